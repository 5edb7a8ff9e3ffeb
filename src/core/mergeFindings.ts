import type { CheckResult } from './check';
import type { Finding } from './findings';

/**
 * Combines the findings of several manuscripts checked in one workspace, by file. A finding two
 * manuscripts share (a duplicate key in a .bib both use) is reported once; an entry is reported unused
 * only when no manuscript that reads its bibliography cites it. `extra` findings (a whole bibliography's
 * reference check) join them the same way.
 */
export function mergeFindings(results: Iterable<CheckResult>, extra: readonly Finding[] = []): Map<string, Finding[]> {
  const all = [...results];
  const byFile = new Map<string, Map<string, Finding>>();
  const add = (finding: Finding): void => {
    const file = byFile.get(finding.file) ?? new Map<string, Finding>();
    byFile.set(finding.file, file);
    const identity = `${finding.code}:${finding.range.start.line}:${finding.range.start.character}:${finding.key ?? ''}`;
    if (!file.has(identity)) file.set(identity, finding);
  };
  for (const result of all) {
    for (const finding of result.findings) {
      if (finding.code === 'unused-entry' && citedElsewhere(finding, result, all)) continue;
      add(finding);
    }
  }
  extra.forEach(add);
  return new Map([...byFile].map(([file, findings]) => [file, [...findings.values()]]));
}

function citedElsewhere(finding: Finding, owner: CheckResult, all: readonly CheckResult[]): boolean {
  return all.some(
    (other) => other !== owner && other.bibliographyFiles.includes(finding.file) && (other.manuscript.citesAll || other.citations.some((c) => c.key === finding.key)),
  );
}
