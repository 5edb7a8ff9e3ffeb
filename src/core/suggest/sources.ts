/**
 * What the model is shown of each paper it may cite: a number, the paper's title, year and authors,
 * and the few sentences of its abstract that bear most on the claim. The sentences each drafted
 * sentence is checked against are these same ones: the model was shown nothing else.
 */
import type { Author } from '../bibliography/types';
import { analyze } from '../index/analyzer';
import type { Paper } from '../papers/paper';
import { abstractSentences } from '../verify/claims';
import { TermStatistics, tfidfRelevance } from '../verify/relevance';

export interface NumberedSource {
  /** From 1: the number the model cites it by. */
  readonly number: number;
  readonly paper: Paper;
  /** Sentences of the abstract, in the abstract's order. */
  readonly passages: readonly string[];
}

/** Enough to state a finding with its context; more would crowd the model's context with less relevant text. */
export const PASSAGES_PER_SOURCE = 3;

/** An abstract without sentence punctuation comes out as one "sentence"; this keeps it from swamping the prompt. */
const MAX_PASSAGE_CHARS = 600;

/** Numbers the papers in the order given and picks each one's passages most relevant to `focus`. */
export function numberSources(papers: readonly Paper[], focus: string): NumberedSource[] {
  const sentences = papers.map((paper) => abstractSentences(paper.abstract ?? '').map(clip));
  // Term weights from these abstracts: words every one of them uses say little about which passage matters.
  const relevance = tfidfRelevance(analyze, TermStatistics.of(sentences.flat(), analyze));
  return papers.map((paper, i) => {
    const scored = sentences[i].map((text, index) => ({ text, index, score: relevance(focus, [text]).score }));
    const best = scored.sort((a, b) => b.score - a.score || a.index - b.index).slice(0, PASSAGES_PER_SOURCE);
    return { number: i + 1, paper, passages: best.sort((a, b) => a.index - b.index).map((s) => s.text) };
  });
}

/** "Smith, Jones and Lee", or "Smith et al." beyond three. */
export function authorNames(authors: readonly Author[]): string {
  const names = authors.map((a) => a.family ?? a.literal ?? a.given ?? '').filter((n) => n.length > 0);
  if (names.length === 0) return 'authors unknown';
  if (names.length > 3) return `${names[0]} et al.`;
  return names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

function clip(sentence: string): string {
  return sentence.length <= MAX_PASSAGE_CHARS ? sentence : `${sentence.slice(0, MAX_PASSAGE_CHARS).replace(/\s+\S*$/, '')} …`;
}
