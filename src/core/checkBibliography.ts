import { duplicateKeys, suspiciousMetadata, type CheckResult, type CheckSession } from './check';
import { sortFindings, type Finding } from './findings';
import { AcceptanceCollector } from './acceptance';
import type { Workspace } from './workspace';

/** A .bib file checked on its own, shaped as a manuscript's check without citations. */
export type BibliographyCheck = Pick<CheckResult, 'root' | 'bibliographies' | 'citations' | 'findings' | 'acceptances'>;

/**
 * Checks one bibliography by itself, as the editor's Check References of This Bibliography does
 * before looking its entries up: text that does not parse, keys defined twice, and metadata no real
 * work has, for every entry. Undefined when the file does not exist; throws for one that is not text.
 */
export async function checkBibliographyFile(file: string, workspace: Workspace, session: CheckSession, now?: Date): Promise<BibliographyCheck | undefined> {
  const text = await workspace.readText(file);
  if (text === undefined) return undefined;
  const bibliography = await session.bibliographies.parse(file, text);
  const problems: Finding[] = bibliography.problems.map((problem) => ({ code: 'bib-parse-error', severity: 'error', message: problem.message, file, range: problem.range }));
  // A .bib checked on its own is read as BibTeX and biber read it.
  const findings = problems.concat(duplicateKeys(bibliography.entries, 'latex'), suspiciousMetadata(bibliography.entries, now));
  const accepted = new AcceptanceCollector();
  accepted.addBibliography(text, bibliography.entries);
  return { root: file, bibliographies: [bibliography], citations: [], findings: sortFindings(findings), acceptances: accepted.acceptances };
}
