import * as path from 'node:path';
import type { CheckResult } from '../core/check';
import { authorName } from '../core/bibliography/describe';
import type { Finding } from '../core/findings';
import type { SourceRecord } from '../core/sources/types';
import type { ExistenceVerdict } from '../core/verify/existence';
import { missingAbstracts } from '../core/verify/claims';
import type { Verdicts } from '../core/verify/references';

/**
 * The JSON report, a public interface: fields are added, never renamed or removed.
 * Lines and columns are 1-based; columns count UTF-16 code units, as editors do.
 */
export function formatJson(result: CheckResult): string {
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
      sentence: c.claim?.text ?? null,
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
      ...(f.evidence ? { evidence: f.evidence } : {}),
    })),
    ...(result.supports
      ? {
          support: result.supports.map(({ citation, judgement, supportedTogether }) => ({
            key: citation.key,
            file: citation.file,
            line: citation.range.start.line + 1,
            column: citation.range.start.character + 1,
            label: judgement.label,
            supportedTogether,
            entailment: judgement.entailment ?? null,
            contradiction: judgement.contradiction ?? null,
            relevance: judgement.relevance,
            sentence: judgement.sentence ?? null,
            model: judgement.model ?? null,
          })),
        }
      : {}),
    ...(result.supports ? { missingAbstracts: missingAbstracts(result.supports) } : {}),
    ...(result.verdicts ? { references: [...result.verdicts.values()].map(({ entry, verdict, abstract }) => ({ ...referenceReport(entry.key, verdict), ...(abstract ? { abstract } : {}) })) } : {}),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/** One line per finding in the `file:line:column: severity: message [code]` form editors and CI logs link. */
export function formatText(result: CheckResult, cwd: string): string {
  const lines = result.findings.map((f) => `${location(f, cwd)}: ${f.severity}: ${f.message} [${f.code}]`);
  const keys = new Set(result.citations.map((c) => c.key)).size;
  const entries = result.bibliographies.reduce((n, b) => n + b.entries.length, 0);
  const counts = countBySeverity(result.findings);
  lines.push(
    `${path.relative(cwd, result.root) || result.root}: ${result.citations.length} citations of ${keys} keys, ` +
      `${entries} bibliography entries; ${counts.error} errors, ${counts.warning} warnings, ${counts.hint + counts.information} notes.`,
  );
  if (result.verdicts) lines.push(referenceSummary(result.verdicts));
  if (result.supports) {
    const { cited, withoutAbstract } = missingAbstracts(result.supports);
    if (withoutAbstract > 0) lines.push(`support: ${withoutAbstract} of ${cited} cited works have no abstract to check against.`);
  }
  return `${lines.join('\n')}\n`;
}

function location(finding: Finding, cwd: string): string {
  const file = path.relative(cwd, finding.file) || finding.file;
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
      return { key, status: verdict.status, via: verdict.via, source: verdict.record.source, record: recordReport(verdict.record) };
    case 'metadata-mismatch':
      return {
        key,
        status: verdict.status,
        via: verdict.via,
        source: verdict.record.source,
        record: recordReport(verdict.record),
        differences: verdict.differences.map((d) => ({ field: d.field, expected: d.expected ?? null, found: d.found ?? null })),
      };
    case 'not-found':
      return { key, status: verdict.status, asked: verdict.asked };
    case 'unchecked':
      return { key, status: verdict.status, reason: verdict.reason };
  }
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

/** "references: 5 found, 1 with differing metadata, …", and what to do about the unchecked ones. */
function referenceSummary(verdicts: Verdicts): string {
  const counts = { found: 0, 'metadata-mismatch': 0, 'not-found': 0, unchecked: 0 };
  for (const { verdict } of verdicts.values()) counts[verdict.status]++;
  const summary =
    `references: ${counts.found} found, ${counts['metadata-mismatch']} with differing metadata, ` +
    `${counts['not-found']} not found in any source, ${counts.unchecked} could not be checked`;
  return counts.unchecked > 0 ? `${summary} (--show-unchecked says why).` : `${summary}.`;
}
