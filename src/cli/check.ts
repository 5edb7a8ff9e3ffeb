import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  checkBibliographyInStages,
  checkInStages,
  type CheckResult,
  CheckSession,
  claimWithAbstract,
  findRootManuscripts,
  FsWorkspace,
  hasAbstracts,
  IgnoreFileError,
  ignoreListOf,
  manuscriptRootOf,
  missingTexRoot,
  type PipelineHost,
  type Severity,
  VerdictCache,
  verifyEntries,
  withoutAccepted,
} from '../core/app/pipeline';
import type { PrepareProgress } from '../core/app/services';
import { mayNotBeUtf8, notUtf8Note, UnreadableFileError } from '../core/app/text';
import { ModelError } from '../core/app/models';
import { parseCommandLine, usageError } from './args';
import { applyBaseline, BaselineFileError, describeFresh } from './baseline';
import { EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, processConsole, type Console } from './console';
import { type ChosenNli, NO_MODEL_MESSAGE, nliModelOf } from './nli';
import { formatJson, formatJsonOfFolder, formatText, SEVERITIES, shownFindings, type CheckReport } from './report';
import { formatSarif } from './sarif';
import { ConfigFileError, prepareLocalSources, setUpSources, type SourcesSetup } from './sourcesSetup';
import { showProgress, showShare } from './terminal';
import { attestVersion } from './version';

export const CHECK_USAGE = `Usage: attest check FILE|DIR [--bib FILE]... [--format text|json|sarif] [--min-severity LEVEL]
                    [--offline] [--config FILE] [--cache DIR] [--show-unchecked] [--nli-model DIR]
                    [--baseline FILE | --write-baseline FILE]

Checks the citations of a LaTeX or Markdown manuscript against its bibliographies, and looks the
cited references up in open bibliographic sources (Crossref, OpenAlex, Semantic Scholar, arXiv,
Europe PMC; CORE with a key) to tell fabricated references and wrong metadata.
  FILE                a manuscript (.tex, .md, .rmd, .qmd), or a .bib file: every entry of it is
                      looked up, as the editor's Check References does
  DIR                 every root manuscript under it: .tex files with \\documentclass that no other
                      includes, and Markdown files whose front matter names a bibliography
  --bib FILE          a bibliography to use besides those the manuscript names (repeatable)
  --format FORMAT     text (default), json, or sarif (SARIF 2.1.0, for GitHub code scanning); for a
                      DIR, json is {"folder", "manuscripts": [one report per manuscript]}
  --min-severity LEVEL  error, warning, information or hint: leave out less severe findings
                      (default: warning for text and sarif, hint for json); text counts what it leaves out
  --offline           send nothing: answer from cached lookups only, report the rest as unchecked
  --config FILE       JSON settings with the editor's keys, e.g. {"attest.sources.enabled": ["crossref"]}
  --cache DIR         where lookups are kept between runs (default: $XDG_CACHE_HOME/attest/lookups)
  --show-unchecked    also list references that could not be checked
  --nli-model DIR     the ONNX NLI model folder (or ATTEST_NLI_MODEL) that judges whether each cited
                      abstract supports its sentence (default: Attest's built-in model); none: only
                      abstracts that share none of the sentence's key terms are caught
  --baseline FILE     fail (exit 1) only on error findings this baseline does not hold, matched by
                      code, key, file and the reference the key names, not by line; the rest are
                      listed on standard error, and SARIF marks each result new or unchanged
  --write-baseline FILE  write every finding of this run to FILE as the baseline, and exit 0
A line's '% attest-ignore CODE [reason]' (Markdown: '<!-- attest-ignore CODE [reason] -->'), or on a
.bib entry an 'attest-ignore = {CODE [reason]}' field or '% attest-ignore' line above it, accepts
that finding there: it is left out of every output and of the exit status.
API keys come from ATTEST_OPENALEX_API_KEY, ATTEST_SEMANTICSCHOLAR_API_KEY, ATTEST_CORE_API_KEY,
ATTEST_CROSSREF_PLUS_TOKEN. A bibliography the manuscript names that is not beside its root is looked
for in the folders of BIBINPUTS, and an included file in those of TEXINPUTS, as BibTeX and TeX do
(a folder ending in // with its subfolders; an empty entry is the root's folder). DBLP's XML dump,
named by the --config file's "attest.sources.dblp.dumpFile" (with dblp enabled), answers for DBLP
offline: it is indexed into the cache folder before the first check, and again when the file changes.
Exit status: 0 no error found, 1 an error-severity finding, 2 usage or I/O failure.`;

type Format = 'text' | 'json' | 'sarif';
const FORMATS: readonly Format[] = ['text', 'json', 'sarif'];
const DEFAULT_LEAST: Readonly<Record<Format, Severity>> = { text: 'warning', sarif: 'warning', json: 'hint' };

/** What was asked to be checked. */
type Target = { readonly kind: 'manuscript' | 'bibliography'; readonly file: string } | { readonly kind: 'folder'; readonly dir: string };

/** Thrown for input that cannot be read; the message names it and says why. */
class InputError extends Error {}

/** What every check of one run shares. */
interface Run {
  readonly workspace: FsWorkspace;
  readonly session: CheckSession;
  readonly setup: SourcesSetup;
  /** So that a reference two manuscripts cite is asked about once. */
  readonly verdicts: VerdictCache;
  readonly bibs: readonly string[];
  /** The NLI model, chosen at the first support check and shared by every manuscript of the run. */
  readonly nli: () => Promise<ChosenNli | undefined>;
  readonly io: Console;
}

/** `attest check`. */
export async function checkCommand(args: readonly string[], io: Console): Promise<number> {
  const parsed = parseCommandLine(
    'check',
    {
      args: [...args],
      allowPositionals: true,
      options: {
        bib: { type: 'string', multiple: true, default: [] },
        format: { type: 'string', default: 'text' },
        'min-severity': { type: 'string' },
        offline: { type: 'boolean', default: false },
        config: { type: 'string' },
        cache: { type: 'string' },
        'show-unchecked': { type: 'boolean', default: false },
        'nli-model': { type: 'string' },
        baseline: { type: 'string' },
        'write-baseline': { type: 'string' },
      },
    },
    CHECK_USAGE,
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const format = values.format as Format;
  const least = (values['min-severity'] ?? DEFAULT_LEAST[format]) as Severity;
  const problem =
    positionals.length !== 1
      ? `expected one manuscript, .bib file or folder, got ${positionals.length}`
      : !FORMATS.includes(format)
        ? `--format must be text, json or sarif, not '${values.format}'`
        : !SEVERITIES.includes(least)
          ? `--min-severity must be error, warning, information or hint, not '${values['min-severity']}'`
          : values.baseline !== undefined && values['write-baseline'] !== undefined
            ? 'give --baseline or --write-baseline, not both'
            : undefined;
  if (problem !== undefined) return usageError('check', problem, io);

  const model = nliModelOf(values['nli-model'], process.env);
  try {
    const target = await targetOf(path.resolve(positionals[0]));
    for (const bib of values.bib) await assertReadable(path.resolve(bib), '--bib file');
    const warn = (message: string): void => io.err(`attest check: ${message}\n`);
    const setup = await setUpSources({ config: values.config, offline: values.offline, cache: values.cache, showUnchecked: values['show-unchecked'], warn });
    for (const warning of setup.warnings) warn(warning);
    if (setup.checkReferences) await prepareLocalSources(setup.sources, warn, preparationReporter(io));
    const nli = async (): Promise<ChosenNli | undefined> => model?.get();
    const run: Run = { workspace: new FsWorkspace(), session: new CheckSession(), setup, verdicts: new VerdictCache(), bibs: values.bib, nli, io };
    const files =
      target.kind === 'folder'
        ? await findRootManuscripts(target.dir, run.workspace, run.session.manuscripts, warn)
        : [target.kind === 'manuscript' ? await rootOf(target.file, run) : target.file];
    if (files.length === 0) throw new InputError(`no manuscript under ${positionals[0]}: neither a .tex file with \\documentclass nor a Markdown file naming a bibliography`);
    const reports: CheckReport[] = [];
    for (const file of files) reports.push(withoutAccepted(target.kind === 'bibliography' ? await checkBibliography(file, run) : await checkManuscriptOf(file, run)));

    const baseline = await applyBaseline(reports, { read: values.baseline, write: values['write-baseline'] });
    const shown = reports.map((r) => ({ ...r, findings: r.findings.filter(shownFindings(least, setup.showUnchecked)) }));
    const cwd = process.cwd();
    if (format === 'sarif') io.out(formatSarif(shown, cwd, attestVersion(), baseline.fresh));
    else if (format === 'json') io.out(target.kind === 'folder' ? formatJsonOfFolder(target.dir, shown) : formatJson(shown[0]));
    else io.out(reports.map((r) => formatText(r, cwd, least, setup.showUnchecked)).join(''));
    if (baseline.written !== undefined) {
      io.err(`attest check: wrote the baseline ${baseline.written}\n`);
      return EXIT_OK;
    }
    if (baseline.fresh && values.baseline !== undefined) io.err(`attest check: ${describeFresh(baseline.fresh, values.baseline, cwd)}\n`);
    const failing = baseline.fresh ? [...baseline.fresh] : reports.flatMap((r) => r.findings);
    return failing.some((f) => f.severity === 'error') ? EXIT_FINDINGS : EXIT_OK;
  } catch (error) {
    if (
      error instanceof InputError ||
      error instanceof UnreadableFileError ||
      error instanceof ConfigFileError ||
      error instanceof ModelError ||
      error instanceof IgnoreFileError ||
      error instanceof BaselineFileError
    ) {
      io.err(`attest check: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  } finally {
    await model?.dispose();
  }
}

/** The root to check for `file`; a `% !TEX root` that names no file is named in the error, since the error would name only the file it names. */
async function rootOf(file: string, run: Run): Promise<string> {
  const root = await manuscriptRootOf(file, run.workspace, run.session.manuscripts, () => nearbyTexFiles(file));
  const stale = root === file ? undefined : await missingTexRoot(file, run.workspace, run.session.manuscripts);
  if (stale) throw new InputError(`${file}:${stale.range.start.line + 1}: ${stale.message} Correct or remove the comment.`);
  return root;
}

async function targetOf(file: string): Promise<Target> {
  const stat = await fs.stat(file).catch((error: NodeJS.ErrnoException) => {
    throw new InputError(`cannot read ${file}: ${error.code === 'ENOENT' ? noSuchFile(file) : error.message}`);
  });
  if (stat.isDirectory()) {
    await fs.readdir(file).catch((error: Error) => {
      throw new InputError(`cannot read folder ${file}: ${error.message}`);
    });
    return { kind: 'folder', dir: file };
  }
  await assertReadable(file, 'file');
  return { kind: path.extname(file).toLowerCase() === '.bib' ? 'bibliography' : 'manuscript', file };
}

/** "no such file", and for a name that lost bytes that are not UTF-8 on its way here, why. */
function noSuchFile(file: string): string {
  if (!mayNotBeUtf8(file)) return 'no such file';
  return `no such file${notUtf8Note}`;
}

async function assertReadable(file: string, what: string): Promise<void> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new InputError(`cannot read ${what} ${file}: not a file`);
    await fs.access(file, fs.constants.R_OK);
  } catch (error) {
    if (error instanceof InputError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read ${what} ${file}: ${code === 'ENOENT' ? noSuchFile(file) : code === 'EACCES' ? 'permission denied' : (error as Error).message}`);
  }
}

async function checkManuscriptOf(root: string, run: Run): Promise<CheckReport> {
  const { setup } = run;
  const host: PipelineHost = {
    lookUp: lookUpFor(run),
    ignored: ignoreListOf,
    model: (result) => chooseModel(result, run),
    judgements: setup.cache,
    fullTexts: async () => setup.fullText,
  };
  // BIBINPUTS and TEXINPUTS: where a named .bib or an included file missing beside the root is looked for.
  const result = await checkInStages(root, run.workspace, run.session, { extraBibliographies: run.bibs, environment: process.env }, setup, host);
  if (!result) throw new InputError(`cannot read ${root}: no such file`);
  return result;
}

/**
 * The NLI model that judges whether each cited abstract supports its sentence, or none (relevance
 * alone, said once). The model's session is made only when a claim has a text to be judged against:
 * when a cited work has an abstract, at once, while full texts are read; else at the first passage judged.
 */
async function chooseModel(result: CheckResult, run: Run): Promise<ChosenNli | undefined> {
  const nli = await run.nli();
  if (nli && claimWithAbstract(result)) nli.model.start();
  if (!nli && hasAbstracts(result)) run.io.err(`attest check: ${NO_MODEL_MESSAGE}\n`);
  return nli;
}

/** Every entry of one .bib file, looked up as the editor's Check References of This Bibliography does. */
async function checkBibliography(file: string, run: Run): Promise<CheckReport> {
  const checked = await checkBibliographyInStages(file, run.workspace, run.session, run.setup, lookUpFor(run));
  if (!checked) throw new InputError(`cannot read ${file}: no such file`);
  return checked;
}

/** Lookups through the run's sources, each reference asked about once however many manuscripts cite it. */
function lookUpFor(run: Run): PipelineHost['lookUp'] {
  const { setup } = run;
  return (_root, entries) => verifyEntries(entries, setup.sources, { onProgress: progressReporter(run.io), cache: run.verdicts, timeLimitMs: setup.config.timeLimitMs });
}

/** Progress on standard error while references are looked up, when a person is watching. */
function progressReporter(io: Console): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY || io !== processConsole) return undefined;
  return (done, total) => showProgress('Looking up references', done, total);
}

/** Progress on standard error while a local source is made ready (DBLP's dump indexed), when a person is watching. */
function preparationReporter(io: Console): ((progress: PrepareProgress) => void) | undefined {
  if (!process.stderr.isTTY || io !== processConsole) return undefined;
  return (progress) => showShare(progress.task, progress.fraction, `${progress.records.toLocaleString('en')} records`);
}

/** The .tex files of the file's folder and the one above: where the root of a chapter without a magic comment is. */
async function nearbyTexFiles(file: string): Promise<string[]> {
  const dirs = [path.dirname(file), path.dirname(path.dirname(file))];
  const listed = await Promise.all(dirs.map(async (dir) => (await fs.readdir(dir).catch(() => [] as string[])).map((name) => path.join(dir, name))));
  return listed.flat().filter((f) => f.endsWith('.tex'));
}
