import { spawn } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { median, ms } from './stats';

/**
 * The host bench: the extension as users get it (the VSIX this machine's `npm run package` builds),
 * started in a real VS Code extension host by test/host/run.js, which runs test/host/suite/*.bench.js.
 * The first host start imports 100,000 papers through Import Papers and searches them; each later start
 * (same global storage) loads them at its first completion. Every start measures activation.
 *
 *   npm run bench:host                    # ATTEST_HOST_BENCH_STARTS=3 host starts (default)
 *   ATTEST_HOST_EXTENSION=. npm run bench:host    # the compiled repository instead of the package
 */

const ROOT = path.resolve(__dirname, '..', '..');
const RUN = path.join(ROOT, 'test', 'host', 'run.js');
const SERVER_MAIN = path.join(ROOT, 'test', 'host', 'node_modules', 'code-server', 'lib', 'vscode', 'out', 'server-main.js');
const CHROMIUM = process.env.ATTEST_HOST_CHROMIUM || '/usr/bin/chromium';

interface Latencies {
  readonly completionMs: readonly number[];
  readonly hoverMs: readonly number[];
}

interface Stalls {
  readonly longestStallMs: number;
  /** Since the phase began. */
  readonly longestStallEndedAtMs: number;
  readonly stallsOver50Ms: number;
}

interface Phase {
  readonly phase: 'import' | 'load';
  readonly idle: Latencies;
  readonly during: Latencies & Stalls & { readonly workMs: number; readonly untilOfferedMs: number };
  readonly idleAfter: Latencies;
  readonly search: Stalls & { readonly searchMs: number; readonly results: number };
}

type Figure = { readonly activationMs: number } | Phase;

/** Whether test/host/setup.sh has installed the harness (code-server's VS Code server and Chromium). */
export function hostHarnessInstalled(): boolean {
  return existsSync(SERVER_MAIN) && existsSync(CHROMIUM);
}

/** `npm run bench`'s part: the host bench when the harness is installed, else one line saying how to get it. */
export async function benchHostIfInstalled(): Promise<void> {
  if (!hostHarnessInstalled()) {
    console.log('host bench: skipped, the host harness is not installed (run `node test/host/run.js` once, or `npm run bench:host`, which installs it)');
    return;
  }
  await benchHost();
}

export async function benchHost(): Promise<void> {
  const starts = Math.max(2, Number(process.env.ATTEST_HOST_BENCH_STARTS || 3));
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-host-bench-'));
  try {
    const [what, env] = await extensionUnderTest(work);
    console.log(`host bench: ${what} in code-server's VS Code, ${starts} host starts (machine load ${load()})`);
    const figures: Figure[] = [];
    const dataDir = path.join(work, 'data');
    for (let i = 0; i < starts; i++) {
      figures.push(...(await hostStart(i === 0 ? 'import' : 'load', { ...env, ATTEST_HOST_DATA_DIR: dataDir }, path.join(work, `figures-${i}.jsonl`))));
    }
    report(figures);
    console.log(`  machine load after: ${load()}`);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** The extension the harness is told to start: one the caller named, else the package built for this machine. */
async function extensionUnderTest(work: string): Promise<[string, NodeJS.ProcessEnv]> {
  if (process.env.ATTEST_HOST_VSIX) return [`${path.basename(process.env.ATTEST_HOST_VSIX)} (ATTEST_HOST_VSIX)`, {}];
  if (process.env.ATTEST_HOST_EXTENSION) return [`${process.env.ATTEST_HOST_EXTENSION} (ATTEST_HOST_EXTENSION)`, {}];
  await run(process.execPath, [path.join(ROOT, 'scripts', 'package.js'), '--out', work], {});
  const vsix = (await fs.readdir(work)).find((f) => f.endsWith('.vsix'));
  if (!vsix) throw new Error(`scripts/package.js wrote no VSIX into ${work}`);
  return [`the packaged ${vsix}, installed`, { ATTEST_HOST_VSIX: path.join(work, vsix) }];
}

async function hostStart(phase: Phase['phase'], env: NodeJS.ProcessEnv, figuresFile: string): Promise<Figure[]> {
  await run(process.execPath, [RUN, '--bench', '--grep', `host bench ${phase}:`], {
    ...env,
    ATTEST_HOST_FIGURES: figuresFile,
    ATTEST_HOST_TIMEOUT_MS: process.env.ATTEST_HOST_TIMEOUT_MS || '1200000',
  });
  const text = await fs.readFile(figuresFile, 'utf8');
  return text
    .split('\n')
    .filter((line) => line)
    .map((line) => JSON.parse(line) as Figure);
}

/** The 1, 5 and 15 minute load averages, as `uptime` prints them: the figures above depend on them. */
function load(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
}

/** Runs a child quietly; its output is shown only when it fails. */
function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer): void => {
      output = (output + chunk.toString()).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${path.basename(args[0])} failed (${code ?? signal}):\n${output}`))));
  });
}

function report(figures: readonly Figure[]): void {
  const activations = figures.flatMap((f) => ('activationMs' in f ? [f.activationMs] : []));
  console.log(`  activation: median ${ms(median(activations))} of ${activations.length} fresh host starts (${activations.map((a) => a.toFixed(0)).join(', ')} ms)`);
  const phases = figures.filter((f): f is Phase => 'phase' in f);
  const imported = phases.find((p) => p.phase === 'import');
  if (imported) {
    const d = imported.during;
    console.log(`  100,000 papers imported (Import Papers, JSONL): ${ms(d.workMs)}, in completion after ${ms(d.untilOfferedMs)}; longest extension-host stall ${stall(d)}`);
    console.log(`    completion while importing ${spread(d.completionMs)}, idle before ${spread(imported.idle.completionMs)}, after ${spread(imported.idleAfter.completionMs)}`);
    console.log(`    hover while importing ${spread(d.hoverMs)}, idle before ${spread(imported.idle.hoverMs)}, after ${spread(imported.idleAfter.hoverMs)}`);
    console.log(`  Find Evidence over 100,000 papers, just imported: ${ms(imported.search.searchMs)}, longest extension-host stall ${stall(imported.search)}`);
  }
  for (const loaded of phases.filter((p) => p.phase === 'load')) {
    const d = loaded.during;
    console.log(`  100,000 papers loaded in a fresh host, from the first completion: in completion after ${ms(d.untilOfferedMs)}; longest extension-host stall ${stall(d)}`);
    console.log(`    completion while loading ${spread(d.completionMs)}, idle after ${spread(loaded.idleAfter.completionMs)}`);
    console.log(`    hover while loading ${spread(d.hoverMs)}, idle before ${spread(loaded.idle.hoverMs)}, after ${spread(loaded.idleAfter.hoverMs)}`);
    console.log(`  Find Evidence, first search after the load: ${ms(loaded.search.searchMs)}, longest extension-host stall ${stall(loaded.search)}`);
  }
}

function stall(s: Stalls): string {
  return `${ms(s.longestStallMs)}, ended ${ms(s.longestStallEndedAtMs)} in (${s.stallsOver50Ms} over 50 ms)`;
}

/** Median and worst of a few latencies. */
function spread(values: readonly number[]): string {
  if (values.length === 0) return 'not asked';
  return `median ${ms(median(values))}, max ${ms(Math.max(...values))} (${values.length} requests)`;
}

if (require.main === module) {
  benchHost().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
