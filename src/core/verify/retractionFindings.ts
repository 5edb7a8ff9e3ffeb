/**
 * Findings for works that no longer stand as published: `retracted` (error), `expression-of-concern`
 * and `withdrawn` (warnings) on each citation, where the writer is looking, and on the entry;
 * `corrected` (a hint) on the entry only. A citation whose sentence already says what became of the
 * work ("… was retracted [3]"), or that the writer ignored with a reason, is knowingly made and not
 * flagged; the entry is flagged while any citation of it is not.
 */
import type { Citation } from '../manuscript/types';
import type { Evidence, Finding, FindingCode, Severity } from '../findings';
import { SOURCE_NAMES } from '../sources/config';
import type { UpdateNotice } from '../sources/types';
import type { BibEntry } from '../bibliography/types';
import type { Lookup } from './results';
import type { RetractionStatus } from './retraction';

/** A citation the writer made knowing what became of the work: ignored with a reason. */
export type Acknowledged = (citation: Citation) => boolean;

type Flagged = Extract<RetractionStatus['status'], 'retracted' | 'expression-of-concern' | 'withdrawn' | 'corrected'>;

const SEVERITY: Readonly<Record<Flagged, Severity>> = { retracted: 'error', 'expression-of-concern': 'warning', withdrawn: 'warning', corrected: 'hint' };

/** Words in the citing sentence that show the writer knows. */
const KNOWING: Readonly<Record<Flagged, RegExp>> = {
  retracted: /\bretract/i,
  'expression-of-concern': /\bconcern|\bretract/i,
  withdrawn: /\bwithdr[ae]w/i,
  corrected: /\b(?:correct|errat|corrig)/i,
};

export function retractionFindings(lookups: Iterable<Lookup>, citations: readonly Citation[], acknowledged: Acknowledged = () => false): Finding[] {
  const findings: Finding[] = [];
  // Grouped once, so the findings cost one pass over the citations however many works are flagged.
  const byKey = new Map<string, Citation[]>();
  for (const citation of citations) {
    const list = byKey.get(citation.key);
    if (list) list.push(citation);
    else byKey.set(citation.key, [citation]);
  }
  for (const { entry, retraction } of lookups) {
    if (!retraction || !isFlagged(retraction.status)) continue;
    const status = retraction.status;
    const finding = findingFor(entry, retraction, status);
    const citing = byKey.get(entry.key) ?? [];
    const unknowing = citing.filter((c) => !(c.claim && KNOWING[status].test(withoutKey(c.claim.text, c.key))) && !acknowledged(c));
    if (citing.length === 0 || unknowing.length > 0) findings.push(finding);
    if (status === 'corrected') continue;
    for (const citation of unknowing) findings.push({ ...finding, file: citation.file, range: citation.range });
  }
  return findings;
}

/** The sentence without the cited key, which may itself read "retracted2020". */
function withoutKey(sentence: string, key: string): string {
  return sentence.split(key).join(' ');
}

function isFlagged(status: RetractionStatus['status']): status is Flagged {
  return status in SEVERITY;
}

function findingFor(entry: BibEntry, retraction: RetractionStatus, status: Flagged): Finding {
  const evidence: Evidence = {
    source: retraction.sources.map((id) => SOURCE_NAMES[id]).join(', '),
    ...(retraction.notice ? { notice: noticeEvidence(retraction.notice) } : {}),
  };
  return { file: entry.file, range: entry.keyRange, key: entry.key, code: status, severity: SEVERITY[status], message: messageFor(entry.key, retraction, status), evidence };
}

function noticeEvidence(notice: UpdateNotice): NonNullable<Evidence['notice']> {
  return { type: notice.type, doi: notice.doi, url: notice.url, date: notice.date, label: notice.label, source: SOURCE_NAMES[notice.source] };
}

const RETRACTED_AS: Readonly<Record<string, string>> = {
  retraction: 'was retracted',
  'partial-retraction': 'was partially retracted',
  withdrawal: 'was withdrawn by its publisher (a retraction)',
  removal: 'was removed by its publisher (a retraction)',
};

function messageFor(key: string, retraction: RetractionStatus, status: Flagged): string {
  const by = retraction.sources.map((id) => SOURCE_NAMES[id]).join(', ');
  const notice = retraction.notice;
  switch (status) {
    case 'retracted': {
      const what = RETRACTED_AS[notice?.type ?? 'retraction'];
      return `'${key}' ${what}${when(notice)}${noticeOf(notice, by)}. Cite it only to discuss the retraction, and say so in the sentence.`;
    }
    case 'expression-of-concern':
      return `'${key}' is the subject of an expression of concern${when(notice)}${noticeOf(notice, by)}: its editors doubt its findings.`;
    case 'withdrawn':
      return `'${key}' was withdrawn by its authors on arXiv${retraction.comment ? `: "${retraction.comment}"` : ''}.`;
    case 'corrected':
      return `'${key}' has a correction${when(notice)}${noticeOf(notice, by)}; check that what you cite still holds.`;
  }
}

function when(notice: UpdateNotice | undefined): string {
  return notice?.date ? ` on ${notice.date}` : '';
}

/**
 * " (notice https://doi.org/10.1/x, per Crossref)", " (notice Lancet. 2020;395:1820,
 * https://europepmc.org/…, per Europe PMC)", or the sources alone when none names it. A DOI its link
 * already shows is not repeated.
 */
function noticeOf(notice: UpdateNotice | undefined, by: string): string {
  if (!notice) return ` (according to ${by})`;
  const linked = notice.doi !== undefined && notice.url !== undefined && notice.url.toLowerCase().endsWith(`/${notice.doi}`);
  const named = [linked ? undefined : (notice.doi ?? notice.label), notice.url].filter((p): p is string => Boolean(p));
  const parts = [...(named.length > 0 ? [`notice ${named.join(', ')}`] : []), `per ${SOURCE_NAMES[notice.source]}`];
  return ` (${parts.join(', ')})`;
}

/** Every finding code this module makes. */
export const RETRACTION_CODES: readonly FindingCode[] = ['retracted', 'expression-of-concern', 'withdrawn', 'corrected'];
