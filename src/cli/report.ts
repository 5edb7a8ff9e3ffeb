import { counted } from './counted';
import * as path from 'node:path';
import { type AcceptedFinding, categoryOf, type CheckResult, describeUnchecked, type Finding, type Severity } from '../core/app/pipeline';
import { authorName } from '../core/app/bibliography';
import { passagePlace, type SourceRecord } from '../core/app/services';
import type { ExistenceVerdict, RetractionStatus, Verdicts } from '../core/app/verdicts';
import { missingAbstracts, supportConfidence, type SupportJudgement } from '../core/app/support';
import { forTerminal } from './terminal';

/** What one check reports: a manuscript's, or a bibliography's on its own (no citations). */
export type CheckReport = Pick<CheckResult, 'root' | 'bibliographies' | 'citations' | 'findings' | 'verdicts' | 'supports' | 'acceptances'> & {
  /** The findings the writer accepted with `attest-ignore`, left out of `findings`. */
  readonly accepted?: readonly AcceptedFinding[];
};

/** Most severe first. */
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'information', 'hint'];

/** Whether a finding is as severe as `least` or more. */
function atLeast(least: Severity): (finding: Finding) => boolean {
  return (finding) => SEVERITIES.indexOf(finding.severity) <= SEVERITIES.indexOf(least);
}

/** The findings a report shows: those as severe as `least`, and the unchecked references when asked for (`--show-unchecked`), whatever their severity. */
export function shownFindings(least: Severity, showUnchecked: boolean): (finding: Finding) => boolean {
  const severe = atLeast(least);
  return (finding) => severe(finding) || (showUnchecked && finding.code === 'unchecked');
}

/**
 * The longest `sentence` a citation of the JSON report carries, in UTF-16 units; a longer one is cut and
 * ends with "…". A "sentence" can run for pages (a line with no full stop), and each of its citations
 * carrying it whole made the report grow with the square of the input.
 */
export const SENTENCE_CHARACTERS = 1000;

/**
 * The JSON report, a public interface: fields are added, never renamed or removed.
 * Lines and columns are 1-based; columns count UTF-16 code units, as editors do.
 */
export function formatJson(result: CheckReport): string {
  return `${JSON.stringify(jsonReport(result), null, 2)}\n`;
}

/** Several reports (`attest check DIR`): the folder and one report per manuscript, as formatJson writes it. */
export function formatJsonOfFolder(folder: string, results: readonly CheckReport[]): string {
  return `${JSON.stringify({ folder, manuscripts: results.map(jsonReport) }, null, 2)}\n`;
}

function jsonReport(result: CheckReport): Record<string, unknown> {
  const report = {
    file: result.root,
    bibliographies: result.bibliographies.map((b) => b.file),
    citations: result.citations.map((c) => ({
      key: c.key,
      command: c.command,
      file: c.file,
      line: c.range.start.line + 1,
      column: c.range.start.character + 1,
      endLine: c.range.end.line + 1,
      endColumn: c.range.end.character + 1,
      sentence: c.claim ? capped(c.claim.text) : null,
    })),
    findings: result.findings.map((f) => ({
      code: f.code,
      severity: f.severity,
      key: f.key ?? null,
      file: f.file,
      line: f.range.start.line + 1,
      column: f.range.start.character + 1,
      endLine: f.range.end.line + 1,
      endColumn: f.range.end.character + 1,
      message: f.message,
      // `hallucinated` or `error-to-report` under the conferences' rules; null for what is no verdict on a reference.
      category: categoryOf(f) ?? null,
      ...(f.evidence ? { evidence: f.evidence } : {}),
    })),
    // Only when there are some, so a report without acceptances reads as before.
    ...(result.accepted?.length
      ? {
          accepted: result.accepted.map(({ finding, reason }) => ({
            code: finding.code,
            key: finding.key ?? null,
            file: finding.file,
            line: finding.range.start.line + 1,
            column: finding.range.start.character + 1,
            reason: reason ?? null,
          })),
        }
      : {}),
    ...(result.supports
      ? {
          support: result.supports.map(({ citation, judgement, supportedTogether, fullText }) => ({
            key: citation.key,
            file: citation.file,
            line: citation.range.start.line + 1,
            column: citation.range.start.character + 1,
            label: judgement.label,
            // How sure a supported label is shown (strong: with a check mark) and the model's dev record at its level; null on other labels.
            confidence: supportConfidence(judgement) ?? null,
            onDev: judgement.onDev ?? null,
            supportedTogether,
            entailment: judgement.entailment ?? null,
            contradiction: judgement.contradiction ?? null,
            relevance: judgement.relevance,
            sentence: judgement.sentence ?? null,
            model: judgement.model ?? null,
            evidence: evidenceReport(judgement),
            fullText: fullText ?? null,
          })),
        }
      : {}),
    ...(result.supports ? { missingAbstracts: missingAbstracts(result.supports, result.verdicts), supportModel: supportModel(result.supports) ?? null } : {}),
    ...(result.verdicts
      ? {
          references: [...result.verdicts.values()].map(({ entry, verdict, abstract, retraction }) => ({
            ...referenceReport(entry.key, verdict),
            ...(abstract ? { abstract } : {}),
            ...(retraction ? { retraction: retractionReport(retraction) } : {}),
          })),
        }
      : {}),
  };
  return report;
}

function capped(sentence: string): string {
  if (sentence.length <= SENTENCE_CHARACTERS) return sentence;
  const cut = SENTENCE_CHARACTERS - 1;
  // Never between the two halves of a surrogate pair.
  const end = /[\uD800-\uDBFF]/.test(sentence[cut - 1]) ? cut - 1 : cut;
  return `${sentence.slice(0, end)}…`;
}

/** The NLI model that judged the citations, by name; undefined when relevance alone did. */
function supportModel(supports: NonNullable<CheckReport['supports']>): string | undefined {
  return supports.find((s) => s.judgement.model !== undefined)?.judgement.model;
}

/** Where the sentence a support verdict rests on is: `from` abstract or full text, with its section and page. */
function evidenceReport(judgement: SupportJudgement): Record<string, unknown> | null {
  if (judgement.sentence === undefined) return null;
  const place = judgement.evidence ?? { from: 'abstract' };
  return place.from === 'abstract'
    ? { from: 'abstract', text: judgement.sentence }
    : { from: 'full text', section: place.section || null, page: place.page ?? null, place: passagePlace(place), text: judgement.sentence };
}

/**
 * One line per finding as severe as `least` or more, in the `file:line:column: severity: message [code]`
 * form editors and CI logs link, then a summary that counts every finding, shown or not.
 */
export function formatText(result: CheckReport, cwd: string, least: Severity = 'hint', showUnchecked = false): string {
  const shown = result.findings.filter(shownFindings(least, showUnchecked));
  const lines = shown.map((f) => `${location(f, cwd)}: ${f.severity}: ${messageLines(f.message)} [${f.code}]`);
  const keys = new Set(result.citations.map((c) => c.key)).size;
  const entries = result.bibliographies.reduce((n, b) => n + b.entries.length, 0);
  const counts = countBySeverity(result.findings);
  const what = isBibliographyCheck(result)
    ? counted(entries, 'entry', 'entries')
    : `${counted(result.citations.length, 'citation', 'citations')} of ${counted(keys, 'key', 'keys')}, ${counted(entries, 'bibliography entry', 'bibliography entries')}`;
  const hidden = result.findings.length - shown.length;
  const notShown = hidden > 0 ? ` ${hidden} below ${least} not shown (--min-severity hint shows them).` : '';
  lines.push(
    `${forTerminal(path.relative(cwd, result.root) || result.root)}: ${what}; ${counted(counts.error, 'error', 'errors')}, ${counted(counts.warning, 'warning', 'warnings')}, ${counted(counts.hint + counts.information, 'note', 'notes')}.${notShown}`,
  );
  if (result.accepted?.length) lines.push(`accepted: ${counted(result.accepted.length, 'finding', 'findings')} the files accept with attest-ignore, not shown.`);
  if (result.verdicts) lines.push(forTerminal(referenceSummary(result.verdicts), '\n'));
  if (result.supports) {
    const { cited, withoutAbstract, notLookedUp } = missingAbstracts(result.supports, result.verdicts);
    if (withoutAbstract > notLookedUp) lines.push(`support: ${withoutAbstract - notLookedUp} of ${cited} cited works have no abstract to check against.`);
    if (notLookedUp > 0) {
      const why = result.verdicts ? 'a source did not answer, or the reference was not checked' : 'references are not looked up';
      lines.push(`support: the abstracts of ${notLookedUp} of ${cited} cited works could not be looked up (${why}); the support check had nothing to read for them.`);
    }
    const model = supportModel(result.supports);
    if (model !== undefined) lines.push(forTerminal(`support: judged by the NLI model ${model}.`));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * A finding's message for a terminal: its own line breaks (an unchecked reference's reason per source)
 * go on indented lines, which never read as a `file:line:column:` finding, and every control character
 * of the outside text it quotes is escaped.
 */
function messageLines(message: string): string {
  return message
    .split('\n')
    .map((line) => forTerminal(line))
    .join('\n    ');
}

function isBibliographyCheck(result: CheckReport): boolean {
  return result.bibliographies.length === 1 && result.bibliographies[0].file === result.root;
}

function location(finding: Finding, cwd: string): string {
  const file = forTerminal(path.relative(cwd, finding.file) || finding.file);
  return `${file}:${finding.range.start.line + 1}:${finding.range.start.character + 1}`;
}

function countBySeverity(findings: readonly Finding[]): Record<Finding['severity'], number> {
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  for (const f of findings) counts[f.severity]++;
  return counts;
}

/** One looked-up reference in the JSON report: its verdict and what it rests on. */
function referenceReport(key: string, verdict: ExistenceVerdict): Record<string, unknown> {
  switch (verdict.status) {
    case 'found':
      return { ...matchReport(key, verdict), ...(verdict.venueUnconfirmed ? { venueUnconfirmed: verdict.venueUnconfirmed } : {}) };
    case 'metadata-mismatch':
      return {
        ...matchReport(key, verdict),
        differences: verdict.differences.map((d) => ({ field: d.field, expected: d.expected ?? null, found: d.found ?? null })),
      };
    case 'not-found':
      return { key, status: verdict.status, asked: verdict.asked };
    case 'doi-title-conflict':
      return {
        ...matchReport(key, verdict),
        titled: verdict.titled ? recordReport(verdict.titled) : null,
        ...(verdict.titleNotFoundIn && { titleNotFoundIn: verdict.titleNotFoundIn }),
      };
    case 'unchecked':
      return { key, status: verdict.status, reason: verdict.reason };
  }
}

function matchReport(key: string, verdict: Extract<ExistenceVerdict, { record: SourceRecord }>): Record<string, unknown> {
  return { key, status: verdict.status, via: verdict.via, source: verdict.record.source, record: recordReport(verdict.record) };
}

function recordReport(record: SourceRecord): Record<string, unknown> {
  return {
    id: record.id,
    url: record.url ?? null,
    title: record.title,
    authors: record.authors.map(authorName),
    year: record.year ?? null,
    venue: record.venue ?? null,
    doi: record.doi ?? null,
    arxivId: record.arxivId ?? null,
  };
}

/**
 * A found work's standing in the JSON report: `status` (`retracted`, `expression-of-concern`,
 * `withdrawn`, `corrected`, `none`, `notice` for a work that is itself a notice, `unchecked`), the
 * notice it rests on and every notice listed.
 */
function retractionReport(retraction: RetractionStatus): Record<string, unknown> {
  const notice = (n: NonNullable<RetractionStatus['notice']>): Record<string, unknown> => ({
    type: n.type,
    doi: n.doi ?? null,
    url: n.url ?? null,
    date: n.date ?? null,
    label: n.label ?? null,
    source: n.source,
  });
  return {
    status: retraction.status,
    notice: retraction.notice ? notice(retraction.notice) : null,
    notices: retraction.notices.map(notice),
    sources: retraction.sources,
    ...(retraction.comment !== undefined ? { comment: retraction.comment } : {}),
    ...(retraction.reason !== undefined ? { reason: retraction.reason } : {}),
  };
}

/** "references: 5 found, 1 with differing metadata, …", and on a line of its own why some were not checked. */
function referenceSummary(verdicts: Verdicts): string {
  const counts = { found: 0, 'metadata-mismatch': 0, 'not-found': 0, 'doi-title-conflict': 0, unchecked: 0 };
  for (const { verdict } of verdicts.values()) counts[verdict.status]++;
  const conflicts = counts['doi-title-conflict'] > 0 ? `${counts['doi-title-conflict']} whose DOI or PubMed id names another work, ` : '';
  const summary =
    `references: ${counts.found} found, ${counts['metadata-mismatch']} with differing metadata, ` +
    `${counts['not-found']} not found in any source, ${conflicts}${counts.unchecked} could not be checked`;
  const standing = retractionSummary(verdicts);
  const unchecked = describeUnchecked(verdicts);
  return [`${summary}.`, standing, unchecked].filter((line) => line !== undefined).join('\n');
}

/** "retractions: 1 retracted, 1 under an expression of concern, …; 2 found works whose standing no source could tell". */
function retractionSummary(verdicts: Verdicts): string | undefined {
  const counts = { retracted: 0, 'expression-of-concern': 0, withdrawn: 0, corrected: 0, unchecked: 0 };
  for (const { retraction } of verdicts.values()) {
    if (retraction && retraction.status in counts) counts[retraction.status as keyof typeof counts]++;
  }
  const flagged = counts.retracted + counts['expression-of-concern'] + counts.withdrawn + counts.corrected;
  if (flagged + counts.unchecked === 0) return undefined;
  const parts = [
    `${counts.retracted} retracted`,
    `${counts['expression-of-concern']} under an expression of concern`,
    `${counts.withdrawn} withdrawn`,
    `${counts.corrected} corrected`,
  ];
  const unchecked = counts.unchecked > 0 ? `; ${counted(counts.unchecked, 'found work', 'found works')} whose standing no source could tell` : '';
  return `retractions: ${parts.join(', ')}${unchecked}.`;
}
