import { distance } from 'fastest-levenshtein';
import * as path from 'node:path';
import { BibliographyCache } from './bibliography/cache';
import { bblOf, filecontentsOf, listsInManuscript, placedIn, type ParseBibliography, type WrittenFile } from './bibliography/documentLists';
import type { BibEntry, Bibliography } from './bibliography/types';
import { AcceptanceCollector, type Acceptances } from './acceptance';
import { sortFindings, type Finding } from './findings';
import { loadManuscript, ParseCache, type Manuscript } from './manuscript/project';
import { RealPaths } from './manuscript/realPaths';
import type { Citation } from './manuscript/types';
import { IN_THREAD, type Parsers } from './parsing/parsers';
import type { Range } from './text/positions';
import { checkIntrinsic } from './verify/intrinsic';
import type { CitationSupport, Verdicts } from './verify/results';
import { readIfText, type Workspace } from './workspace';
import { searchPathOf, type SearchPath, type TexEnvironment } from './texSearchPath';

export interface CheckOptions {
  /** Bibliographies to use besides those the manuscript names (the CLI's `--bib`, a setting). */
  readonly extraBibliographies?: readonly string[];
  /** Report entries no citation uses. */
  readonly reportUnused?: boolean;
  /**
   * The environment the adapter was started with: its `BIBINPUTS` and `TEXINPUTS` are where a named
   * bibliography or an included file the root's folder lacks is looked for, as BibTeX and TeX do.
   */
  readonly environment?: TexEnvironment;
  /** The present, for telling a year in the future; the clock by default. */
  readonly now?: Date;
}

export interface CheckResult {
  readonly root: string;
  readonly manuscript: Manuscript;
  /** Every bibliography file the check looked for, found or not: what a change to should re-check. */
  readonly bibliographyFiles: readonly string[];
  /** The bibliographies that were found and read. */
  readonly bibliographies: readonly Bibliography[];
  readonly citations: readonly Citation[];
  readonly findings: readonly Finding[];
  /** What the open sources said about the cited entries, once the reference check has run. */
  readonly verdicts?: Verdicts;
  /** Whether each cited abstract supports its claim, once the support check has run. */
  readonly supports?: readonly CitationSupport[];
  /** The findings the writer accepted in the files (`attest-ignore`), which reports leave out: `withoutAccepted`. */
  readonly acceptances?: Acceptances;
}

/** The caches one session of checks shares, so unchanged files are not parsed again. */
export class CheckSession {
  readonly manuscripts: ParseCache;
  readonly bibliographies: BibliographyCache;

  constructor(parsers: Parsers = IN_THREAD) {
    this.manuscripts = new ParseCache(parsers);
    this.bibliographies = new BibliographyCache(parsers);
  }
}

/**
 * Checks a manuscript's citations against its bibliographies: keys cited but defined nowhere, keys
 * defined twice, entries never cited, files that are named but missing, and .bib text that does not parse.
 * Returns undefined when the root file cannot be read.
 */
export async function checkManuscript(root: string, workspace: Workspace, session: CheckSession, options: CheckOptions = {}): Promise<CheckResult | undefined> {
  const rootDir = path.resolve(path.dirname(root));
  const environment = options.environment ?? {};
  const manuscript = await loadManuscript(root, workspace, session.manuscripts, searchPathOf('TEXINPUTS', environment, rootDir));
  if (!manuscript) return undefined;
  const findings: Finding[] = [];

  for (const { reference, from, reason, lookedIn } of manuscript.missingIncludes) {
    findings.push({
      code: 'missing-file',
      severity: 'warning',
      message: reason ?? `File '${reference.name}' not found (looked for ${lookedFor(reference.path, lookedIn)}).`,
      file: from,
      range: reference.range,
    });
  }

  for (const { code, message, file, range } of manuscript.notices) findings.push({ code, severity: 'warning', message, file, range });

  for (const source of manuscript.sources) {
    if (!source.frontMatterProblem) continue;
    findings.push({
      code: 'front-matter-unread',
      severity: 'warning',
      message: `The YAML front matter ${source.frontMatterProblem.reason}: the bibliographies and nocite it names may be missed.`,
      file: source.file,
      range: source.frontMatterProblem.range,
    });
  }

  for (const source of manuscript.sources) {
    for (const { name, reason, range } of source.macroProblems ?? []) {
      findings.push({
        code: 'macro-not-expanded',
        severity: 'warning',
        message: `\\${name} ${reason}, so the claims that use it are read without its text.`,
        file: source.file,
        range,
      });
    }
  }

  const bibliographies: Bibliography[] = [];
  const parse = (file: string, text: string): Promise<Bibliography> => session.bibliographies.parse(file, text);
  const accepted = new AcceptanceCollector();
  const wanted = await bibliographyFiles(manuscript, options);
  const missingNamed: Finding[] = [];
  const written = await filecontentsOf(manuscript, workspace);
  const bibInputs = searchPathOf('BIBINPUTS', environment, rootDir);
  const foundOnPath: string[] = [];
  for (const { file, reference } of wanted) {
    const read = await readIfText(workspace, file);
    const at = reference ?? { file: root, range: START_OF_FILE };
    if (read.error !== undefined) {
      findings.push({ code: 'bib-parse-error', severity: 'error', message: read.error, file: at.file, range: at.range });
      continue;
    }
    if (read.text === undefined && reference) {
      const found = await foundElsewhere(file, reference.fromRoot, written, bibInputs, workspace, parse);
      if (found) {
        bibliographies.push(found.bibliography);
        if (found.textOnPath !== undefined) {
          foundOnPath.push(found.bibliography.file);
          accepted.addBibliography(found.textOnPath, found.bibliography.entries);
        }
        for (const problem of found.bibliography.problems) {
          findings.push({ code: 'bib-parse-error', severity: 'error', message: problem.message, file: found.bibliography.file, range: problem.range });
        }
        continue;
      }
    }
    if (read.text === undefined) {
      (reference ? missingNamed : findings).push({
        code: 'missing-file',
        severity: reference ? 'warning' : 'error',
        message: `Bibliography '${reference?.name ?? file}' not found (looked for ${reference ? lookedFor(file, await bibInputs.lookedIn(rootDir)) : file}).`,
        file: at.file,
        range: at.range,
      });
      continue;
    }
    const bibliography = await parse(file, read.text);
    bibliographies.push(bibliography);
    accepted.addBibliography(read.text, bibliography.entries);
    for (const problem of bibliography.problems) {
      findings.push({ code: 'bib-parse-error', severity: 'error', message: problem.message, file, range: problem.range });
    }
  }
  // LaTeX reads the compiled .bbl, not the .bib: without the .bib (an arXiv source), the .bbl is the bibliography.
  const bbl = bibliographies.length === 0 ? bblOf(manuscript) : undefined;
  const bblText = bbl === undefined ? undefined : await workspace.readText(bbl);
  if (bbl !== undefined && bblText !== undefined) bibliographies.push(await parse(bbl, bblText));
  else findings.push(...missingNamed);
  bibliographies.push(...(await listsInManuscript(manuscript, wanted.length === 0, workspace, parse)));

  const entries = bibliographies.flatMap((b) => b.entries);
  for (const f of duplicateKeys(entries, manuscript.language)) findings.push(f);
  // A Markdown file that names no bibliography is not a pandoc manuscript: its `@name`s are mentions.
  if (manuscript.language === 'latex' || wanted.length > 0) for (const f of missingKeys(manuscript, bibliographies, entries)) findings.push(f);
  if (options.reportUnused ?? true)
    for (const f of unusedEntries(
      manuscript,
      bibliographies.filter((b) => !b.printedWhole).flatMap((b) => b.entries),
    ))
      findings.push(f);
  const cited = new Set(manuscript.citations.map((c) => c.key));
  for (const f of suspiciousMetadata(manuscript.citesAll ? entries : entries.filter((e) => cited.has(e.key)), options.now)) findings.push(f);

  // Findings of a file are on its citations, or among those found so far: only those files can hold an acceptance that matters.
  const commented = new Set([...manuscript.sources.filter((s) => s.citations.length > 0).map((s) => s.file), ...findings.map((f) => f.file)]);
  for (const source of manuscript.sources) {
    if (!commented.has(source.file)) continue;
    const text = (await readIfText(workspace, source.file)).text;
    if (text !== undefined) accepted.addManuscript(source.file, text, source.language);
  }

  return {
    root,
    manuscript,
    bibliographyFiles: [...wanted.map((w) => w.file), ...foundOnPath, ...(bbl === undefined ? [] : [bbl])],
    bibliographies,
    citations: manuscript.citations,
    findings: sortFindings(findings),
    acceptances: accepted.acceptances,
  };
}

const START_OF_FILE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

interface BibliographyFile {
  readonly file: string;
  /** Where the manuscript names it; undefined for one given by option. */
  readonly reference?: { readonly file: string; readonly name: string; readonly range: Range; readonly fromRoot?: string };
}

/**
 * A named bibliography that is not where the root's folder puts it, as LaTeX and BibTeX would find it
 * still: the body of a `filecontents` that writes it, else a folder of the search path.
 */
async function foundElsewhere(
  file: string,
  relative: string | undefined,
  written: ReadonlyMap<string, WrittenFile>,
  searchPath: SearchPath,
  workspace: Workspace,
  parse: ParseBibliography,
): Promise<{ bibliography: Bibliography; textOnPath?: string } | undefined> {
  const body = written.get(file);
  if (body) return { bibliography: placedIn(await parse(file, body.text), body) };
  const found = await searchPath.find(relative ?? path.basename(file), async (candidate) => (await readIfText(workspace, candidate)).text);
  return found && { bibliography: await parse(found.file, found.value), textOnPath: found.value };
}

/** The file looked for, and where else when a search path was followed. */
function lookedFor(file: string, lookedIn: string | undefined): string {
  return lookedIn === undefined ? file : `${file}, ${lookedIn}`;
}

/** The manuscript's own bibliographies, then the extra ones, each once however many names (symbolic links) reach it. */
async function bibliographyFiles(manuscript: Manuscript, options: CheckOptions): Promise<BibliographyFile[]> {
  const files = new Map<string, BibliographyFile>();
  const realPaths = new RealPaths();
  const add = async (file: string, reference?: BibliographyFile['reference']): Promise<void> => {
    const real = await realPaths.of(file);
    if (!files.has(real)) files.set(real, { file, reference });
  };
  for (const source of manuscript.sources) {
    // A remote resource (biblatex's `location=remote`) is not fetched: a check reads files only.
    for (const b of source.bibliographies)
      if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(b.name)) await add(b.path, { file: source.file, name: b.name, range: b.range, fromRoot: b.fromRoot });
  }
  for (const extra of options.extraBibliographies ?? []) await add(path.resolve(extra));
  return [...files.values()];
}

/** What the tool that reads the manuscript's bibliography does with a key defined twice. */
const DUPLICATE_RESOLUTION: Record<Manuscript['language'], string> = {
  latex: 'BibTeX and biber use the first definition.',
  // pandoc's citeproc has kept either definition, or listed both, from one version to the next.
  markdown: "pandoc's citeproc may use either definition, or list both.",
};

export function duplicateKeys(entries: readonly BibEntry[], language: Manuscript['language']): Finding[] {
  const first = new Map<string, BibEntry>();
  const findings: Finding[] = [];
  for (const entry of entries) {
    const original = first.get(entry.key);
    if (!original) {
      first.set(entry.key, entry);
      continue;
    }
    findings.push({
      code: 'duplicate-key',
      severity: 'warning',
      message: `Duplicate key '${entry.key}': also defined at ${path.basename(original.file)}:${original.range.start.line + 1}. ${DUPLICATE_RESOLUTION[language]}`,
      file: entry.file,
      range: entry.keyRange,
      key: entry.key,
    });
  }
  return findings;
}

function missingKeys(manuscript: Manuscript, bibliographies: readonly Bibliography[], entries: readonly BibEntry[]): Finding[] {
  const bibitems = manuscript.sources.flatMap((s) => s.bibitems);
  const known = [...new Set([...entries.map((e) => e.key), ...bibitems])];
  const keys = new Set(known);
  const names = bibliographies.filter((b) => !manuscript.sources.some((s) => s.file === b.file)).map((b) => path.basename(b.file));
  if (bibitems.length > 0) names.push('thebibliography');
  const where = names.length === 0 ? undefined : names.join(', ');
  return manuscript.citations
    .filter((c) => !keys.has(c.key))
    .map((c) => {
      const replacements = similarKeys(c.key, known);
      const message =
        where === undefined
          ? `'${c.key}' cannot be resolved: the manuscript names no bibliography file that exists.`
          : `'${c.key}' is not in any bibliography (${where}).` + (replacements.length > 0 ? ` Did you mean '${replacements[0]}'?` : '');
      return { code: 'missing-key', severity: 'error', message, file: c.file, range: c.range, key: c.key, replacements } satisfies Finding;
    });
}

/** Keys that differ from `key` only in case or by a typo or two, closest first. */
function similarKeys(key: string, known: readonly string[]): string[] {
  const lower = key.toLowerCase();
  // Short keys are one edit away from many others; only a case difference is a safe guess for them.
  const allowed = key.length < 5 ? 0 : key.length < 10 ? 1 : 2;
  return known
    .map((candidate) => ({ candidate, d: distance(lower, candidate.toLowerCase()) }))
    .filter(({ d }) => d <= allowed)
    .sort((a, b) => a.d - b.d || a.candidate.localeCompare(b.candidate))
    .slice(0, 3)
    .map(({ candidate }) => candidate);
}

function unusedEntries(manuscript: Manuscript, entries: readonly BibEntry[]): Finding[] {
  if (manuscript.citesAll) return [];
  const cited = new Set(manuscript.citations.map((c) => c.key));
  return entries
    .filter((e) => !cited.has(e.key))
    .map(
      (e) =>
        ({
          code: 'unused-entry',
          severity: 'hint',
          message: `'${e.key}' is never cited in ${path.basename(manuscript.root)}.`,
          file: e.file,
          range: e.keyRange,
          key: e.key,
        }) satisfies Finding,
    );
}

/** Entries whose metadata no real work has: a year to come, a placeholder author, a malformed DOI. */
export function suspiciousMetadata(entries: readonly BibEntry[], now: Date | undefined): Finding[] {
  return entries.flatMap((e) =>
    checkIntrinsic(e, { now }).map(
      (issue) =>
        ({
          code: 'suspicious-metadata',
          severity: 'warning',
          message: `'${e.key}': ${issue.message}`,
          file: e.file,
          range: e.keyRange,
          key: e.key,
        }) satisfies Finding,
    ),
  );
}
