/**
 * SARIF 2.1.0, the format GitHub code scanning and other CI dashboards read: one run of Attest,
 * one result per finding, located by file, line and column.
 */
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Log, ReportingDescriptor, Result } from 'sarif';
import { categoryOf, FINDING_CATEGORIES, type Finding, type FindingCode, type ReferenceCategory, type Severity } from '../core/app/pipeline';
import type { CheckReport } from './report';

const SOURCE_ROOT = '%SRCROOT%';

/** Each finding code as a SARIF rule: what it means, in the words a reader of a code-scanning alert needs. */
export const RULES: Readonly<Record<FindingCode, string>> = {
  'missing-key': 'A cited key is defined in no bibliography of the manuscript.',
  'missing-file': 'A bibliography or included file the manuscript names does not exist or cannot be read.',
  'include-not-followed': 'An included file was not read: it is nested too deep, or the manuscript includes too many files; its citations are not checked.',
  'tex-root-missing': "The '% !TEX root' comment names a file that does not exist; the file is checked as its own root.",
  'duplicate-key': 'A key is defined twice; BibTeX uses the first definition.',
  'unused-entry': 'A bibliography entry the manuscript never cites.',
  'bib-parse-error': 'BibTeX text that does not parse; the entries around it may be lost.',
  'front-matter-unread': 'YAML front matter too large, too deeply nested or not valid YAML; the bibliographies it names may be missed.',
  'macro-not-expanded':
    'A LaTeX macro without arguments would print too much text to expand (a definition that doubles another, repeated); the claims that use it are checked without it.',
  'not-found': 'No open source (Crossref, OpenAlex, Semantic Scholar, arXiv, Europe PMC, CORE) has a record of the reference: possibly fabricated.',
  'doi-title-conflict': "The reference's DOI or PubMed id names a work whose title is clearly another: a real identifier attached to a title it does not belong to.",
  'metadata-mismatch': 'The reference matches a real record whose title, authors, year or venue differ, or claims a venue no source knows for a work known only as a preprint.',
  'venue-unconfirmed': 'The only record found is a preprint while the entry names a venue; the venue could not be confirmed.',
  'preprint-published': 'A cited preprint (arXiv, bioRxiv, medRxiv) has since been published; the published version can replace it.',
  unchecked: 'The reference could not be looked up (offline, rate-limited or a source failed); nothing is known about it.',
  retracted: 'The cited work was retracted (wholly or in part, or withdrawn or removed by its publisher); the finding names the notice.',
  'expression-of-concern': 'The cited work is the subject of an expression of concern: its editors doubt its findings.',
  withdrawn: 'The cited e-print was withdrawn by its authors.',
  corrected: 'The cited work has a correction (an erratum or corrigendum); what is cited may have changed.',
  'suspicious-metadata': 'An entry has metadata no real work has: a year to come, a placeholder author, a malformed DOI or arXiv id, an ISBN with a wrong check digit.',
  contradicted: 'A sentence of the cited abstract contradicts the claim citing it.',
  unsupported: 'No sentence of the cited abstract supports the claim citing it.',
  unverifiable: 'The cited reference has no abstract to check the claim against.',
};

const LEVELS: Readonly<Record<Severity, Result.level>> = { error: 'error', warning: 'warning', information: 'note', hint: 'note' };

/**
 * The reports as one SARIF log; with `fresh`, the findings not in the baseline, each result says whether it is new. Files under `cwd` (the repository, in CI) are named relative to it,
 * as code scanning wants; others by absolute file URI.
 */
export function formatSarif(reports: readonly CheckReport[], cwd: string, version: string, fresh?: ReadonlySet<Finding>): string {
  const codes = Object.keys(RULES) as FindingCode[];
  const rules: ReportingDescriptor[] = codes.map((code) => ({ id: code, shortDescription: { text: RULES[code] }, ...ruleCategory(code) }));
  const results = reports
    .flatMap((report) => report.findings)
    .map((finding): Result => {
      const result = resultOf(finding, codes.indexOf(finding.code), cwd);
      // Against a baseline (`--baseline`), whether each result is new since it.
      return fresh ? { ...result, baselineState: fresh.has(finding) ? 'new' : 'unchanged' } : result;
    });
  const log: Log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'Attest', version, rules } },
        originalUriBaseIds: { [SOURCE_ROOT]: { uri: `${pathToFileURL(cwd).href}/` } },
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function resultOf(finding: Finding, ruleIndex: number, cwd: string): Result {
  const { start, end } = finding.range;
  const category = categoryOf(finding);
  return {
    ruleId: finding.code,
    ruleIndex,
    level: LEVELS[finding.severity],
    message: { text: finding.message },
    locations: [
      {
        physicalLocation: {
          artifactLocation: artifactOf(finding.file, cwd),
          region: { startLine: start.line + 1, startColumn: start.character + 1, endLine: end.line + 1, endColumn: end.character + 1 },
        },
      },
    ],
    ...(finding.key !== undefined || finding.evidence !== undefined || category !== undefined
      ? { properties: { key: finding.key, evidence: finding.evidence, ...(category && { category }) } }
      : {}),
  };
}

/**
 * A rule's category under the conferences' rules (`findingCategories.ts`) as a property and a tag,
 * which code scanning lists and filters by; a `metadata-mismatch` result carries its own.
 */
function ruleCategory(code: FindingCode): Pick<ReportingDescriptor, 'properties'> {
  const category = FINDING_CATEGORIES[code];
  if (category === 'neither') return {};
  const tags = category === 'by-fields' ? [CATEGORY_TAGS.hallucinated, CATEGORY_TAGS['error-to-report']] : [CATEGORY_TAGS[category]];
  return { properties: { category: category === 'by-fields' ? 'hallucinated or error-to-report, by the fields that differ' : category, tags } };
}

const CATEGORY_TAGS: Readonly<Record<ReferenceCategory, string>> = { hallucinated: 'hallucinated-reference', 'error-to-report': 'reference-error' };

function artifactOf(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  const relative = path.relative(cwd, file);
  if (relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) return { uri: pathToFileURL(file).href };
  return { uri: relative.split(path.sep).map(encodeURIComponent).join('/'), uriBaseId: SOURCE_ROOT };
}
