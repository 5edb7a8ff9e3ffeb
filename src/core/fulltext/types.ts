import type { BibEntry } from '../bibliography/types';

/** Where a full text came from: an open-access service, or the writer's own PDF. */
export type FullTextSource = 'europepmc' | 'arxiv' | 'core' | 'pdf';

/** A stretch of a full text small enough to judge: a paragraph, or a few of its sentences. */
export interface Passage {
  /** The heading of the top-level section it belongs to as the paper writes it ("Results"); empty when the paper has none. */
  readonly section: string;
  /** 1-based page, for PDFs. */
  readonly page?: number;
  readonly text: string;
}

export interface FullText {
  readonly source: FullTextSource;
  /** What was read: a PMCID, a URL, a file path. */
  readonly location: string;
  readonly passages: readonly Passage[];
}

/**
 * A full text, or why there is none: the check then judges against the abstract alone. A `transient`
 * reason may pass (the file was busy or not readable for now): it is given for this check only, and
 * the next check tries again. One with `retryAt` (epoch ms; the PDF reader gave up on the file) holds
 * until then, so that a file that costs the reader's whole time limit does not cost it on every check.
 */
export type FullTextResult = { readonly fullText: FullText } | { readonly reason: string; readonly transient?: boolean; readonly retryAt?: number };

/** Where a passage is, as a reader looks for it: "Results, p. 6". */
export function passagePlace(passage: Pick<Passage, 'section' | 'page'>): string {
  const parts = [passage.section, passage.page === undefined ? '' : `p. ${passage.page}`].filter((p) => p !== '');
  return parts.length > 0 ? parts.join(', ') : 'full text';
}

/** A cited work's identifiers: the entry's own, else those of the record the reference check found. */
export interface WorkIds {
  readonly doi?: string;
  readonly arxivId?: string;
  readonly pmid?: string;
  readonly pmcid?: string;
}

/** The full text of a cited entry, or why there is none; undefined when full texts are not looked for. */
export type FullTextProvider = (entry: BibEntry, ids: WorkIds, signal?: AbortSignal) => Promise<FullTextResult | undefined>;
