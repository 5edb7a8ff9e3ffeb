/**
 * Hybrid ranking: the lexical index's ranking and the dense index's, fused by their scores.
 *
 *   await rankPapers({ lexical, dense }, { text, vector }, 'hybrid', 100)   // [{ id, score }], best first
 *
 * Each side's scores are put on one scale by standardising them over that side's candidates (BM25
 * is unbounded, a cosine lies in [-1, 1]), then mixed: (1 − w)·lexical + w·dense. A paper only one
 * side found counts as that side's weakest candidate on the other. The weight and the depth were
 * chosen on BEIR SciFact's training claims among reciprocal-rank fusion (k, weights, depths) and
 * min-max and z-score mixes (bench/fusion.ts, figures in the README); with bge-small-en-v1.5 this
 * mix led on the training claims, where reciprocal-rank fusion with k = 60 trailed it by 0.025 nDCG@10.
 * The weight went from 0.7 to 0.75 when claims lost bge's query instruction (encoderConfig.ts): 0.777
 * against 0.776 there. It went to 0.5 with the default encoder's input cut to 128 tokens
 * (all-MiniLM-L6-v2, issue 38): a shorter input makes the dense side weaker against BM25. On the 809
 * training claims, hybrid alone: 0.729 at 0.5 against 0.707 at 0.75 (0.732 at 0.4); on the 161 the
 * reranker held out, reranked: 0.826 against 0.803 (0.829 at 0.4), and ahead of 0.4 at the reranker's
 * depths of 30 and 50. bge-small-en-v1.5 at 512 tokens loses 0.014 hybrid alone there (0.763 against
 * 0.777) and 0.009 reranked (0.860 against 0.869).
 */
import type { SearchMode } from '../evidence';
import type { DenseIndex } from './dense';
import type { LexicalSearch } from './lexical';

/** The fusion Find Evidence ships: the dense side's weight, and how many papers each side offers at least. */
export const FUSION = { denseWeight: 0.5, depth: 1000 } as const;

export interface Ranked {
  readonly id: string;
  readonly score: number;
}

export interface Indexes {
  readonly lexical: LexicalSearch;
  /** Absent, or missing some papers, while vectors are not computed yet. */
  readonly dense?: DenseIndex;
}

export interface RankQuery {
  readonly text: string;
  /** The query's vector from the encoder that made the dense index's; needed by dense and hybrid. */
  readonly vector?: Float32Array;
}

/**
 * The `depth` best papers for the query in `mode`. A hybrid ranking fuses each side's first
 * `FUSION.depth` papers (more when `depth` asks for more), so it can rank a paper that only one
 * side found, and each side's scale is judged on a sample that does not shrink with `depth`.
 */
export async function rankPapers(indexes: Indexes, query: RankQuery, mode: SearchMode, depth: number): Promise<Ranked[]> {
  if (mode === 'lexical') return indexes.lexical.search(query.text, depth);
  const { dense } = indexes;
  if (dense === undefined || query.vector === undefined) throw new Error(`A ${mode} search needs a dense index and the query's vector.`);
  if (mode === 'dense') return dense.search(query.vector, depth);
  const candidates = Math.max(depth, FUSION.depth);
  const byMeaning = await dense.search(query.vector, candidates);
  return standardisedFusion(indexes.lexical.search(query.text, candidates), byMeaning, FUSION.denseWeight).slice(0, depth);
}

/**
 * (1 − denseWeight)·z(lexical) + denseWeight·z(dense), where z standardises a side's scores over its
 * candidates; a paper missing from a side gets that side's lowest z. Equal scores go to the paper
 * the lexical ranking placed first, then to the dense ranking's order, so the order never depends on
 * map iteration.
 */
export function standardisedFusion(lexical: readonly Ranked[], dense: readonly Ranked[], denseWeight: number): Ranked[] {
  const lexicalZ = standardised(lexical);
  const denseZ = standardised(dense);
  const lexicalFloor = lowest(lexicalZ.values());
  const denseFloor = lowest(denseZ.values());
  // A Set keeps the lexical ranking's order, then the dense one's papers the lexical side lacks; the sort is stable.
  return [...new Set([...lexicalZ.keys(), ...denseZ.keys()])]
    .map((id) => ({ id, score: (1 - denseWeight) * (lexicalZ.get(id) ?? lexicalFloor) + denseWeight * (denseZ.get(id) ?? denseFloor) }))
    .sort((a, b) => b.score - a.score);
}

/** Each candidate's score as standard deviations from the candidates' mean (`zScores`), by id. */
function standardised(ranking: readonly Ranked[]): Map<string, number> {
  const z = zScores(ranking.map(({ score }) => score));
  return new Map(ranking.map(({ id }, at) => [id, z[at]]));
}

/** Each value as standard deviations from the values' mean; all 0 when they are equal. */
export function zScores(values: readonly number[]): number[] {
  const mean = values.reduce((sum, value) => sum + value, 0) / Math.max(values.length, 1);
  const deviation = Math.sqrt(values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / Math.max(values.length, 1));
  return values.map((value) => (deviation > 0 ? (value - mean) / deviation : 0));
}

/** The least of the values, 0 when there are none (a side with no candidates gives no one an edge). */
function lowest(values: Iterable<number>): number {
  let least = 0;
  for (const value of values) least = Math.min(least, value);
  return least;
}
