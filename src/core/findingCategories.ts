import type { Finding, FindingCode, ReferenceCategory } from './findings';

/**
 * Each finding code's category under the conferences' rules: `hallucinated`, `error-to-report`,
 * `by-fields` for a `metadata-mismatch` (hallucinated when the authors are mostly wrong or the venue
 * does not exist, else an error to report), or `neither` for what is no verdict on a reference's
 * existence or metadata (the manuscript's own problems, lookups that failed, retractions, support).
 * The README's findings table and the SARIF rules show this table.
 */
export const FINDING_CATEGORIES: Readonly<Record<FindingCode, ReferenceCategory | 'by-fields' | 'neither'>> = {
  'not-found': 'hallucinated',
  'doi-title-conflict': 'hallucinated',
  'metadata-mismatch': 'by-fields',
  'suspicious-metadata': 'error-to-report',
  'missing-key': 'neither',
  'missing-file': 'neither',
  'include-not-followed': 'neither',
  'tex-root-missing': 'neither',
  'duplicate-key': 'neither',
  'unused-entry': 'neither',
  'bib-parse-error': 'neither',
  'front-matter-unread': 'neither',
  'macro-not-expanded': 'neither',
  'venue-unconfirmed': 'neither',
  'preprint-published': 'neither',
  unchecked: 'neither',
  retracted: 'neither',
  'expression-of-concern': 'neither',
  withdrawn: 'neither',
  corrected: 'neither',
  contradicted: 'neither',
  unsupported: 'neither',
  unverifiable: 'neither',
};

/** The category of one finding; undefined for a code that is no verdict on a reference. */
export function categoryOf(finding: Finding): ReferenceCategory | undefined {
  const category = FINDING_CATEGORIES[finding.code];
  if (category === 'by-fields') return finding.category ?? 'error-to-report';
  return category === 'neither' ? undefined : category;
}
