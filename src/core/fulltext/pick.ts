/**
 * The few passages of a full text worth judging against a claim: BM25 over the paper's own passages,
 * with the analyser the evidence index uses, so a claim and the paragraph that states it meet on the
 * same stemmed terms. An NLI model reads a few passages in the time it would take to read a whole
 * paper's hundreds, and most of those would be about something else.
 */
import { analyze, termFrequencies } from '../index/analyzer';
import { Bm25Index } from '../index/bm25';
import type { Passage } from './types';

/**
 * Enough to hold the passage the claim rests on in most papers, few enough to judge quickly. On
 * Citation-Integrity dev (a cited paper's passages among 14 other papers', 75 in all) the annotated
 * evidence is in the top 3 for 72% of citing sentences and in the top 5 for 88% (`npm run bench`).
 */
export const PASSAGES_TO_JUDGE = 5;

export interface PickedPassage extends Passage {
  /** BM25 score within the paper; only the order means anything. */
  readonly score: number;
}

/** A paper's passages indexed by BM25, once, for every claim that cites it. */
export class PassagePicker {
  private readonly index = new Bm25Index({ k1: 1.2, b: 0.75, fieldWeights: [1] });

  constructor(private readonly passages: readonly Passage[]) {
    passages.forEach((passage, i) => this.index.add(String(i), [analyze(passage.text)]));
  }

  /** The `limit` passages that best match the claim, best first; none when no passage shares a term with it. */
  pick(claim: string, limit = PASSAGES_TO_JUDGE): PickedPassage[] {
    const query = termFrequencies(analyze(claim));
    if (query.size === 0) return [];
    return this.index.search(query, limit).map(({ id, score }) => ({ ...this.passages[Number(id)], score }));
  }
}

/**
 * A paper's picker, kept as long as its passages are: a check reads each cited paper's full text once,
 * so the paper is indexed once however many of its claims cite it, and the next check, reading the
 * full texts again, indexes afresh.
 */
const pickers = new WeakMap<readonly Passage[], PassagePicker>();

/** The `limit` passages of a full text that best match the claim, best first; none when no passage shares a term with it. */
export function pickPassages(claim: string, passages: readonly Passage[], limit = PASSAGES_TO_JUDGE): PickedPassage[] {
  if (passages.length === 0) return [];
  let picker = pickers.get(passages);
  if (!picker) {
    picker = new PassagePicker(passages);
    pickers.set(passages, picker);
  }
  return picker.pick(claim, limit);
}
