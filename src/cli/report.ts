import * as path from 'node:path';
import type { CheckResult } from '../core/check';
import type { Finding } from '../core/findings';

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
    })),
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
