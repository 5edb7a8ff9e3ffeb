import type { RelevanceScorer } from './support';

/** Turns text into index terms (stemmed, stopwords removed): the retrieval analyser. */
export type Analyze = (text: string) => string[];

/** How common each term is across a body of documents, for inverse document frequency. */
export class TermStatistics {
  private readonly frequencies = new Map<string, number>();
  private count = 0;

  constructor(private readonly analyze: Analyze) {}

  static of(texts: Iterable<string>, analyze: Analyze): TermStatistics {
    const stats = new TermStatistics(analyze);
    for (const text of texts) stats.add(text);
    return stats;
  }

  add(text: string): void {
    this.count++;
    for (const term of new Set(this.analyze(text))) this.frequencies.set(term, (this.frequencies.get(term) ?? 0) + 1);
  }

  /** Smoothed inverse document frequency: a term no document has weighs most, one all have weighs least. */
  idf(term: string): number {
    return Math.log((this.count + 1) / ((this.frequencies.get(term) ?? 0) + 1)) + 1;
  }
}

/**
 * Relevance as the cosine of stemmed TF-IDF vectors (sublinear term frequency): cheap, model-free,
 * and enough to tell a cited abstract from an unrelated one (`npm run bench` measures it).
 */
export function tfidfRelevance(analyze: Analyze, statistics: TermStatistics): RelevanceScorer {
  const vectorOf = (text: string): Map<string, number> => {
    const counts = new Map<string, number>();
    for (const term of analyze(text)) counts.set(term, (counts.get(term) ?? 0) + 1);
    const vector = new Map<string, number>();
    for (const [term, count] of counts) vector.set(term, (1 + Math.log(count)) * statistics.idf(term));
    return vector;
  };
  return (claim, passages) => {
    const query = vectorOf(claim);
    const queryNorm = norm(query);
    let best = 0;
    let bestScore = 0;
    passages.forEach((passage, index) => {
      const vector = vectorOf(passage);
      const denominator = queryNorm * norm(vector);
      let dot = 0;
      for (const [term, weight] of query) dot += weight * (vector.get(term) ?? 0);
      const score = denominator === 0 ? 0 : dot / denominator;
      if (score > bestScore) {
        bestScore = score;
        best = index;
      }
    });
    return { score: bestScore, best };
  };
}

function norm(vector: ReadonlyMap<string, number>): number {
  let sum = 0;
  for (const weight of vector.values()) sum += weight * weight;
  return Math.sqrt(sum);
}
