/**
 * What `npm run bench` prints, kept in docs/measurements.md: the figures of its last whole run replace
 * the section between the markers, with when, on which commit and on how loaded a machine they were
 * taken. The prose around it says what the figures mean; this section says what they were last time.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';

export const LAST_RUN_START = '<!-- The last npm run bench: written by bench/record.ts, replaced at each whole run. -->';
export const LAST_RUN_END = '<!-- End of the last npm run bench. -->';

export interface RunRecord {
  readonly finished: Date;
  readonly minutes: number;
  readonly commit: string;
  readonly cores: number;
  /** The load average (1, 5 and 15 minutes) as the run ended. */
  readonly load: readonly number[];
  /** What the run printed. */
  readonly output: string;
}

/** `markdown` with its last-run section replaced by `run`'s, or added at its end when it has none. */
export function withLastRun(markdown: string, run: RunRecord): string {
  const section = [
    LAST_RUN_START,
    '## The last `npm run bench`',
    '',
    `Finished ${run.finished.toISOString().slice(0, 16).replace('T', ' ')} UTC after ${run.minutes.toFixed(0)} minutes, on commit ${run.commit}, ` +
      `${run.cores} cores, load average ${run.load.map((l) => l.toFixed(1)).join(' / ')} at the end.`,
    '',
    fenced(screenText(run.output)),
    LAST_RUN_END,
  ].join('\n');
  const start = markdown.indexOf(LAST_RUN_START);
  if (start === -1) return `${markdown.trimEnd()}\n\n${section}\n`;
  const end = markdown.indexOf(LAST_RUN_END, start);
  if (end === -1) throw new Error(`docs/measurements.md has the start of the last run's section but not its end (${LAST_RUN_END}): mend it by hand.`);
  return markdown.slice(0, start) + section + markdown.slice(end + LAST_RUN_END.length);
}

/** The text as a terminal would show it: progress lines overwritten by `\r` keep what was written last, colours go. */
export function screenText(output: string): string {
  return output
    .replace(/\x1b\[[0-9;]*[A-Za-z]/g, '')
    .split('\n')
    .map((line) => line.slice(line.lastIndexOf('\r', line.length - 2) + 1).replace(/\r$/, ''))
    .join('\n')
    .trimEnd();
}

/** A code block whose fence no run of backticks in `text` can close. */
function fenced(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}text\n${text}\n${fence}`;
}

/** Everything written to standard output from now on, as well as written. */
export function captureOutput(): () => string {
  const chunks: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
  return () => chunks.join('');
}

/** Writes the run into `file` (docs/measurements.md) through a temporary file, so a failed write leaves it as it was. */
export async function recordRun(file: string, started: number, output: string): Promise<void> {
  const run: RunRecord = {
    finished: new Date(),
    minutes: (Date.now() - started) / 60_000,
    commit: currentCommit(),
    cores: os.cpus().length,
    load: os.loadavg(),
    output,
  };
  const updated = withLastRun(await fs.readFile(file, 'utf8'), run);
  const temporary = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temporary, updated);
  await fs.rename(temporary, file);
}

function currentCommit(): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() !== '';
    return dirty ? `${commit} (with changes not committed)` : commit;
  } catch {
    return 'unknown (not a git checkout)';
  }
}
