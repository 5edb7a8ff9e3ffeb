import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { checkManuscript, CheckSession } from '../core/check';
import { FsWorkspace } from '../core/fsWorkspace';
import { manuscriptRootOf } from '../core/manuscript/project';
import { UnreadableFileError } from '../core/text/decode';
import { citedEntries, verifyEntries, withReferenceFindings } from '../core/verify/references';
import type { CheckResult } from '../core/check';
import { analyze } from '../core/index/analyzer';
import { ModelError } from '../core/models/errors';
import { checkSupport, relevanceAmong, withSupportFindings } from '../core/verify/claims';
import { IgnoreList, ignoreFileFor } from '../core/verify/ignore';
import { loadNliModel, NO_MODEL_MESSAGE } from './nli';
import { formatJson, formatText } from './report';
import { ConfigFileError, setUpSources, type SourcesSetup } from './sourcesSetup';
import { indexCommand, INDEX_USAGE } from './index';
import { searchCommand, SEARCH_USAGE } from './search';
import { suggestCommand, SUGGEST_USAGE } from './suggest';
import { verify, VERIFY_USAGE } from './verify';

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;

const USAGE = `Usage: attest check FILE [--bib FILE]... [--format text|json] [--offline] [--config FILE]
                    [--cache DIR] [--show-unchecked] [--nli-model DIR]

Checks the citations of a LaTeX or Markdown manuscript against its bibliographies, and looks the
cited references up in open bibliographic sources (Crossref, OpenAlex, Semantic Scholar, arXiv,
Europe PMC; CORE with a key) to tell fabricated references and wrong metadata.
  --bib FILE          a bibliography to use besides those the manuscript names (repeatable)
  --format FORMAT     text (default) or json
  --offline           send nothing: answer from cached lookups only, report the rest as unchecked
  --config FILE       JSON settings with the editor's keys, e.g. {"attest.sources.enabled": ["crossref"]}
  --cache DIR         where lookups are kept between runs (default: $XDG_CACHE_HOME/attest/lookups)
  --show-unchecked    also list references that could not be checked
  --nli-model DIR     an ONNX NLI model folder (or ATTEST_NLI_MODEL) to judge whether each cited
                      abstract supports its sentence; without one, only unrelated abstracts are caught
API keys come from ATTEST_OPENALEX_API_KEY, ATTEST_SEMANTICSCHOLAR_API_KEY, ATTEST_CORE_API_KEY,
ATTEST_CROSSREF_PLUS_TOKEN.
Exit status: 0 no error found, 1 an error-severity finding, 2 usage or I/O failure.`;

/** Output streams, so tests can capture what a user would see. */
export interface Console {
  out(text: string): void;
  err(text: string): void;
}

const processConsole: Console = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export async function main(argv: readonly string[], io: Console = processConsole): Promise<number> {
  const [command, ...rest] = argv;
  if (command === '--help' || command === '-h' || command === 'help') {
    io.out(`${USAGE}\n\n${VERIFY_USAGE}\n\n${INDEX_USAGE}\n\n${SEARCH_USAGE}\n\n${SUGGEST_USAGE}\n`);
    return EXIT_OK;
  }
  if (command === 'verify') return verify(rest, io);
  if (command === 'index') return indexCommand(rest, io);
  if (command === 'search') return searchCommand(rest, io);
  if (command === 'suggest') return suggestCommand(rest, io);
  if (command !== 'check') {
    io.err(`attest: ${command === undefined ? 'no command given' : `unknown command '${command}'`}\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  return check(rest, io);
}

async function check(args: readonly string[], io: Console): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: true,
      options: {
        bib: { type: 'string', multiple: true, default: [] },
        format: { type: 'string', default: 'text' },
        offline: { type: 'boolean', default: false },
        config: { type: 'string' },
        cache: { type: 'string' },
        'show-unchecked': { type: 'boolean', default: false },
        'nli-model': { type: 'string' },
      },
    });
  } catch (error) {
    io.err(`attest check: ${(error as Error).message}\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  if (positionals.length !== 1) {
    io.err(`attest check: expected one manuscript file, got ${positionals.length}\n${USAGE}\n`);
    return EXIT_USAGE;
  }
  if (values.format !== 'text' && values.format !== 'json') {
    io.err(`attest check: --format must be text or json, not '${values.format}'\n`);
    return EXIT_USAGE;
  }

  const file = path.resolve(positionals[0]);
  const workspace = new FsWorkspace();
  const session = new CheckSession();
  try {
    const setup = await setUpSources({ config: values.config, offline: values.offline, cache: values.cache, showUnchecked: values['show-unchecked'] });
    for (const warning of setup.warnings) io.err(`attest check: ${warning}\n`);
    const root = await manuscriptRootOf(file, workspace, session.manuscripts, () => nearbyTexFiles(file));
    let result = await checkManuscript(root, workspace, session, { extraBibliographies: values.bib });
    if (!result) {
      io.err(`attest check: cannot read ${root}: no such file\n`);
      return EXIT_USAGE;
    }
    if (setup.checkReferences) {
      const verdicts = await verifyEntries(citedEntries(result), setup.sources, { onProgress: progressReporter(io) });
      result = withReferenceFindings(result, verdicts, setup.showUnchecked);
    }
    if (setup.checkSupport) result = await checkClaims(result, values['nli-model'], setup, io);
    io.out(values.format === 'json' ? formatJson(result) : formatText(result, process.cwd()));
    return result.findings.some((f) => f.severity === 'error') ? EXIT_FINDINGS : EXIT_OK;
  } catch (error) {
    if (error instanceof UnreadableFileError || error instanceof ConfigFileError || error instanceof ModelError) {
      io.err(`attest check: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

/** Progress on standard error while references are looked up, when a person is watching. */
function progressReporter(io: Console): ((done: number, total: number) => void) | undefined {
  if (!process.stderr.isTTY || io !== processConsole) return undefined;
  return (done, total) => io.err(`\rLooking up references: ${done}/${total}${done === total ? '\n' : ''}`);
}

/** Whether each cited abstract supports its sentence: with the NLI model when one is given, else by relevance. */
async function checkClaims(result: CheckResult, modelFlag: string | undefined, setup: SourcesSetup, io: Console): Promise<CheckResult> {
  const nli = await loadNliModel(modelFlag, process.env);
  const hasAbstracts = result.bibliographies.some((b) => b.entries.some((e) => e.abstract)) || [...(result.verdicts?.values() ?? [])].some((l) => l.abstract);
  if (!nli && hasAbstracts) io.err(`attest check: ${NO_MODEL_MESSAGE}\n`);
  try {
    const supports = await checkSupport(result, { relevance: relevanceAmong(result, analyze), nli, thresholds: setup.thresholds }, setup.cache);
    const ignored = await IgnoreList.load(ignoreFileFor(result.root));
    return withSupportFindings(result, supports, (c) => ignored.has(c), { reportMissingAbstracts: setup.reportMissingAbstracts });
  } finally {
    await nli?.model.dispose();
  }
}

/** The .tex files of the file's folder and the one above: where the root of a chapter without a magic comment is. */
async function nearbyTexFiles(file: string): Promise<string[]> {
  const dirs = [path.dirname(file), path.dirname(path.dirname(file))];
  const listed = await Promise.all(dirs.map(async (dir) => (await fs.readdir(dir).catch(() => [] as string[])).map((name) => path.join(dir, name))));
  return listed.flat().filter((f) => f.endsWith('.tex'));
}
