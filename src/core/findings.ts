import type { Range } from './text/positions';

export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** Stable codes: they appear in diagnostics, in the CLI's JSON and in user settings. */
export type FindingCode =
  | 'missing-key'
  | 'missing-file'
  | 'include-not-followed'
  | 'tex-root-missing'
  | 'duplicate-key'
  | 'unused-entry'
  | 'bib-parse-error'
  | 'front-matter-unread'
  | 'macro-not-expanded'
  | 'not-found'
  | 'doi-title-conflict'
  | 'metadata-mismatch'
  | 'unchecked'
  | 'venue-unconfirmed'
  | 'preprint-published'
  | 'suspicious-metadata'
  | 'retracted'
  | 'expression-of-concern'
  | 'withdrawn'
  | 'corrected'
  | 'contradicted'
  | 'unsupported'
  | 'unverifiable';

/** One problem Attest reports, as plain data that the editor and the CLI each present their own way. */
export interface Finding {
  readonly code: FindingCode;
  readonly severity: Severity;
  readonly message: string;
  /** Absolute path of the file the finding is located in. */
  readonly file: string;
  readonly range: Range;
  /** The citation or entry key the finding is about, when there is one. */
  readonly key?: string;
  /** Text that may replace the finding's range to fix it, best first: the keys a mistyped key may have meant. */
  readonly replacements?: readonly string[];
  /** What the verdict rests on, for the user to judge it: the matched record, the fields that differ, … */
  readonly evidence?: Evidence;
  /**
   * For a `metadata-mismatch`, whose category depends on the fields that differ: `hallucinated` when
   * the author list is mostly not the work's or the venue does not exist (see `findingCategories.ts`).
   */
  readonly category?: ReferenceCategory;
}

/**
 * What the conferences' rules (NeurIPS 2026, after ICLR and ICML 2026) call a finding about a reference:
 * a *hallucinated* reference (not found, an identifier of another work, authors mostly wrong, a venue
 * that does not exist) or an *error to report* in a real one (a wrong year, venue, pages, arXiv version).
 */
export type ReferenceCategory = 'hallucinated' | 'error-to-report';

/** JSON-safe evidence behind a finding; the CLI prints it as is. */
export interface Evidence {
  /** The source whose record decided the verdict. */
  readonly source?: string;
  readonly record?: {
    readonly id: string;
    readonly url?: string;
    readonly title: string;
    readonly authors: readonly string[];
    readonly year?: number;
    readonly venue?: string;
    readonly doi?: string;
    readonly arxivId?: string;
  };
  /** For a `doi-title-conflict`: the work found under the entry's title, when a source has one. */
  readonly titled?: Evidence['record'];
  /** How the record was found: by `doi`, `arxiv` id, `pubmed` (PubMed or PubMed Central) id or `title` search. */
  readonly via?: string;
  readonly differences?: readonly { readonly field: string; readonly expected: string; readonly found: string }[];
  /** The notice a `retracted`, `expression-of-concern` or `corrected` finding rests on, as the source lists it. */
  readonly notice?: {
    readonly type: string;
    readonly doi?: string;
    readonly url?: string;
    readonly date?: string;
    readonly label?: string;
    readonly source: string;
  };
  /** Sources that were asked and had no record. */
  readonly asked?: readonly string[];
  /** The sentence of the cited abstract a support verdict rests on. */
  readonly sentence?: string;
  readonly scores?: { readonly entailment?: number; readonly contradiction?: number; readonly relevance: number };
  /** The NLI model that judged, when one did. */
  readonly model?: string;
  /** Whether `sentence` is from the cited work's `abstract` or its `full text`. */
  readonly from?: 'abstract' | 'full text';
  /** Where in the full text: "Results, p. 6". */
  readonly place?: string;
}

/** Findings in reading order: by file, then line, then column. Sorts in place. */
export function sortFindings(findings: Finding[]): Finding[] {
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}
