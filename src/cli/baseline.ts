import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { baselineOf, findingsNotIn, isBaseline, type Baseline, type FindingInContext } from '../core/baseline';
import type { Finding } from '../core/findings';
import { UnreadableFileError } from '../core/text/decode';
import { readTextFile } from '../core/text/readFile';
import { forTerminal } from './terminal';
import type { CheckReport } from './report';

/** Far more than the findings of any paper's repository. */
const MAX_BASELINE_BYTES = 16 * 1024 * 1024;

/** A baseline that cannot be used: said with the file's name, exit 2. */
export class BaselineFileError extends Error {}

/** What `--baseline` and `--write-baseline` make of a run. */
export interface BaselineOutcome {
  /** With `--baseline`: the findings it does not account for. */
  readonly fresh?: ReadonlySet<Finding>;
  /** With `--write-baseline`: the file written. */
  readonly written?: string;
}

/**
 * Reads `--baseline FILE` (never writing it) and tells the findings it does not hold, or writes every
 * finding of the run to `--write-baseline FILE`, atomically (a temporary file renamed over it).
 */
export async function applyBaseline(reports: readonly CheckReport[], files: { readonly read?: string; readonly write?: string }): Promise<BaselineOutcome> {
  const findings = inContext(reports);
  if (files.write !== undefined) {
    const file = path.resolve(files.write);
    const baseline = baselineOf(findings, path.dirname(file));
    const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temp, `${JSON.stringify(baseline, null, 2)}\n`);
      await fs.rename(temp, file);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw new BaselineFileError(`cannot write the baseline ${file}: ${(error as Error).message}`);
    }
    return { written: file };
  }
  if (files.read === undefined) return {};
  const file = path.resolve(files.read);
  return { fresh: new Set(findingsNotIn(await readBaseline(file), findings, path.dirname(file))) };
}

/** One line per finding the baseline does not hold, for standard error. */
export function describeFresh(fresh: ReadonlySet<Finding>, file: string, cwd: string): string {
  const lines = [...fresh].map((f) => `  ${path.relative(cwd, f.file) || f.file}:${f.range.start.line + 1}: ${f.severity}: [${f.code}]${f.key === undefined ? '' : ` ${f.key}`}`);
  const head = fresh.size === 0 ? `no finding is new since the baseline ${file}` : `${fresh.size} finding${fresh.size === 1 ? ' is' : 's are'} not in the baseline ${file}:`;
  return forTerminal([head, ...lines].join('\n'), '\n');
}

async function readBaseline(file: string): Promise<Baseline> {
  let text: string | undefined;
  try {
    text = (await readTextFile(file, MAX_BASELINE_BYTES))?.text;
  } catch (error) {
    if (error instanceof UnreadableFileError) throw new BaselineFileError(`cannot read the baseline ${file}: ${error.message}`);
    throw error;
  }
  if (text === undefined) throw new BaselineFileError(`no baseline ${file}: write one with --write-baseline ${file}`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BaselineFileError(`the baseline ${file} is not valid JSON (${(error as Error).message})`);
  }
  if (!isBaseline(parsed)) throw new BaselineFileError(`${file} is not an Attest baseline (a JSON object with "version": 1 and a "findings" array, as --write-baseline writes)`);
  return parsed;
}

/** Each finding with the entry its key names in its report's bibliographies (the first, as BibTeX reads it). */
function inContext(reports: readonly CheckReport[]): FindingInContext[] {
  return reports.flatMap((report) => {
    const entries = new Map<string, CheckReport['bibliographies'][number]['entries'][number]>();
    for (const entry of report.bibliographies.flatMap((b) => b.entries)) if (!entries.has(entry.key)) entries.set(entry.key, entry);
    return report.findings.map((finding) => {
      const entry = finding.key === undefined ? undefined : entries.get(finding.key);
      return entry ? { finding, entry } : { finding };
    });
  });
}
