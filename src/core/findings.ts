import type { Range } from './text/positions';

export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** Stable codes: they appear in diagnostics, in the CLI's JSON and in user settings. */
export type FindingCode = 'missing-key' | 'missing-file' | 'duplicate-key' | 'unused-entry' | 'bib-parse-error';

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
}
