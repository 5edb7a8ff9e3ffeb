// What the reference and support checks learn, as a check's result carries it: types alone, so that
// check.ts and the checks in verify/ can each name them without importing the other.
import type { BibEntry } from '../bibliography/types';
import type { FullTextSource } from '../fulltext/types';
import type { Citation } from '../manuscript/types';
import type { Abstract } from './abstracts';
import type { ExistenceVerdict } from './existence';
import type { RetractionStatus } from './retraction';
import type { SupportJudgement } from './support';

/** What was learnt about one entry: the verdict and, for a work that was found, its abstract. */
export interface Lookup {
  readonly entry: BibEntry;
  readonly verdict: ExistenceVerdict;
  readonly abstract?: Abstract;
  /**
   * Without an abstract, a source that might hold it did not answer, or the time limit or a cancel
   * came first: no abstract here is no answer, and the next check asks again.
   */
  readonly abstractUnanswered?: true;
  /** For a work that was found: whether it was retracted, is under concern, corrected or withdrawn. */
  readonly retraction?: RetractionStatus;
}

/** One lookup per distinct key: the first definition, as BibTeX uses it. */
export type Verdicts = ReadonlyMap<string, Lookup>;

/** One citation's support verdict. */
export interface CitationSupport {
  readonly citation: Citation;
  readonly judgement: SupportJudgement;
  /** Another citation of the same sentence supports the claim, so this one need not. */
  readonly supportedTogether: boolean;
  /** What the judgement read besides the abstract: the full text and where from, or why there was none. Absent when full texts are off. */
  readonly fullText?: FullTextStatus;
}

export type FullTextStatus = { readonly source: FullTextSource; readonly location: string } | { readonly reason: string };
