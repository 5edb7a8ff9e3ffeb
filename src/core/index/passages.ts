/**
 * What of a paper is read for its relevance (`passageText`), and the sentence of an abstract that best
 * matches a query, so a search result can show why it was found.
 */
import { PlainTextBuilder } from '../manuscript/plainText';
import { splitSentences, type Span } from '../manuscript/sentences';
import type { Paper } from '../papers/paper';
import { analyze, termFrequencies } from './analyzer';

export interface Passage {
  /** The sentence as written in the abstract. */
  readonly text: string;
  /** Offsets into the abstract, end exclusive. */
  readonly start: number;
  readonly end: number;
  readonly score: number;
}

/** What the encoder and the reranker read of a paper: title and abstract, as BEIR's published figures embed them. */
export function passageText(paper: Paper): string {
  return `${paper.title} ${paper.abstract ?? ''}`.trim();
}

/** How much a query term counts: its inverse document frequency in the collection searched. */
export type TermWeight = (term: string) => number;

/** Term-frequency saturation and length discount within a sentence, as BM25 applies them to fields. */
const K1 = 1.2;
const B = 0.75;

/**
 * The abstract's sentences, split as Attest splits a manuscript's (abbreviations such as "e.g." and
 * "et al." do not end one), with offsets into the abstract as given.
 */
export function abstractSentences(abstract: string): Span[] {
  const builder = new PlainTextBuilder();
  builder.append(abstract, 0);
  const plain = builder.build();
  return splitSentences(plain).map(({ start, end }) => ({ start: plain.offsets[start], end: plain.offsets[end - 1] + 1 }));
}

/**
 * The sentence whose terms best match the query's, scored with BM25 against the abstract's mean
 * sentence length; undefined when no sentence shares a term with the query. Ties go to the earlier
 * sentence.
 */
export function bestSentence(query: string, abstract: string, weight: TermWeight): Passage | undefined {
  const queryTerms = new Set(analyze(query));
  const sentences = abstractSentences(abstract).map((span) => ({ ...span, terms: analyze(abstract.slice(span.start, span.end)) }));
  const averageLength = sentences.reduce((sum, { terms }) => sum + terms.length, 0) / Math.max(1, sentences.length);
  let best: Passage | undefined;
  for (const { start, end, terms } of sentences) {
    const norm = K1 * (1 - B + (B * terms.length) / averageLength);
    let score = 0;
    for (const [term, tf] of termFrequencies(terms)) {
      if (queryTerms.has(term)) score += (weight(term) * tf * (K1 + 1)) / (tf + norm);
    }
    if (score > 0 && (best === undefined || score > best.score)) best = { text: abstract.slice(start, end), start, end, score };
  }
  return best;
}
