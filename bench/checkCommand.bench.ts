/**
 * What a CI run of `attest check` costs: the bundled example offline, where no cited work has a text
 * to judge, with the built-in NLI model and with `--nli-model none`, in fresh processes taken by
 * turns so that the machine's drift falls on both. The model is made only when a pair is to be judged
 * (cli/nli.ts), so the two should cost the same: the target is at most 1.15 times.
 */
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median } from './stats';

const CLI = path.join(__dirname, '..', '..', 'bin', 'attest.js');
const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'paper.tex');
const RUNS = 9;

/** One run of `attest ARGS` in a process of its own: its CPU time (user and system) and peak resident memory. */
function cost(args: readonly string[]): { cpuSeconds: number; peakMb: number } {
  const report = path.join(os.tmpdir(), `attest-check-cost-${process.pid}.txt`);
  // The example has errors, so the command exits 1, which /usr/bin/time passes on.
  try {
    execFileSync('/usr/bin/time', ['-f', '%U %S %M', '-o', report, process.execPath, CLI, ...args], { stdio: 'ignore' });
  } catch (error) {
    if ((error as { status?: number }).status !== 1) throw error;
  }
  // Its last line: a command that failed has "Command exited with non-zero status 1" before it.
  const [user, system, kilobytes] = (execFileSync('cat', [report]).toString().trim().split('\n').pop() ?? '').split(/\s+/).map(Number);
  return { cpuSeconds: user + system, peakMb: kilobytes / 1024 };
}

export async function benchCheckCommand(): Promise<void> {
  const cache = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-check-cost-'));
  try {
    const check = ['check', EXAMPLE, '--offline', '--cache', cache];
    const withModel: { cpuSeconds: number; peakMb: number }[] = [];
    const without: { cpuSeconds: number; peakMb: number }[] = [];
    for (let run = 0; run < RUNS; run++) {
      withModel.push(cost(check));
      without.push(cost([...check, '--nli-model', 'none']));
    }
    const ratios = withModel.map((w, at) => w.cpuSeconds / without[at].cpuSeconds);
    const line = (runs: typeof withModel): string => `CPU p50 ${median(runs.map((r) => r.cpuSeconds)).toFixed(2)} s, peak ${median(runs.map((r) => r.peakMb)).toFixed(0)} MB`;
    console.log(`attest check, the bundled example offline (nothing to judge), ${RUNS} runs each by turns:`);
    console.log(`  with the built-in model         ${line(withModel)}`);
    console.log(`  with --nli-model none           ${line(without)}`);
    console.log(`  ratio, run by run, p50          ${median(ratios).toFixed(2)}   target ≤ 1.15`);
  } finally {
    await fs.rm(cache, { recursive: true, force: true });
  }
}
