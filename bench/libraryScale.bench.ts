/**
 * The paper library at scale, measured as a user meets it: whole `attest` commands. At 5,000 and
 * 100,000 generated papers it prints how long `attest index add` takes and its peak memory, a cold
 * `attest search --query` (a fresh process each time: start-up, opening the library, one query),
 * the query's own time p50/p95 in a process that has the library open, lexical and hybrid (random
 * vectors: the cost does not depend on what they mean), and the library's size on disk. The random
 * vectors are stored under the name of the default encoder, bge-small-en-v1.5 int8: where
 * `npm run models:fetch` has fetched it, a cold `attest search --embed-model` with it is timed too.
 *
 * Generating and indexing 100,000 papers takes minutes on a shared machine, so the libraries are kept
 * in ATTEST_SCALE_DIR (default: attest-library-scale in the system's temporary folder) and reused
 * while their files are those this Attest writes; delete the folder to measure `index add` again.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PaperLibrary } from '../src/core/index/library';
import type { Embedder } from '../src/core/models/embedder';
import { encoderCache, isLaidOut, REGISTRY_ENCODERS, type RegistryEncoder } from './encoders/registry';
import { median, percentile } from './stats';
import { CLAIM, syntheticPaper } from './syntheticPapers';

const SIZES = [5_000, 100_000];
const CLI = path.join(__dirname, '..', '..', 'bin', 'attest.js');
const COLD_RUNS = 5;
const WARM_QUERIES = 50;
const DIMENSION = 384;
/** A hybrid query's dense half: the default encoder's, whose name the random vectors are stored under. */
const ENCODER = defaultEncoder();
const MODEL = ENCODER.name;

export async function benchLibraryScale(): Promise<void> {
  const root = process.env.ATTEST_SCALE_DIR ?? path.join(os.tmpdir(), 'attest-library-scale');
  console.log('library at scale: whole attest commands over generated papers');
  for (const size of SIZES) await benchSize(path.join(root, String(size)), size);
}

async function benchSize(dir: string, size: number): Promise<void> {
  const corpus = path.join(dir, 'corpus.jsonl');
  const store = path.join(dir, 'library');
  await fs.mkdir(dir, { recursive: true });
  if (!(await exists(corpus))) await writeCorpus(corpus, size);
  const label = `    ${size.toLocaleString('en')} papers`.padEnd(22);
  if (!(await exists(path.join(store, 'manifest.json')))) {
    const { seconds, peakMb } = timed(['index', 'add', corpus, '--store', store]);
    console.log(`${label}index add ${seconds.toFixed(1)} s, peak ${peakMb.toFixed(0)} MB`);
  } else console.log(`${label}index add: reusing ${store} (delete it to measure again)`);

  const cold: number[] = [];
  for (let run = 0; run < COLD_RUNS; run++) cold.push(timed(['search', '--store', store, '--query', CLAIM]).seconds * 1000);
  console.log(`${label}cold search (whole command) p50 ${median(cold).toFixed(0)} ms, peak ${timed(['search', '--store', store, '--query', CLAIM]).peakMb.toFixed(0)} MB`);

  const start = performance.now();
  const { library } = await PaperLibrary.open(store);
  const openMs = performance.now() - start;
  const lexical = await queryTimes(library);
  console.log(`${label}open ${openMs.toFixed(0)} ms; lexical query p50 ${lexical.p50.toFixed(1)} ms, p95 ${lexical.p95.toFixed(1)} ms`);
  await embedRandomly(store);
  const { library: hybrid } = await PaperLibrary.open(store, { encoder: { model: MODEL, embedder: randomEmbedder() } });
  const times = await queryTimes(hybrid);
  console.log(`${label}hybrid query p50 ${times.p50.toFixed(1)} ms, p95 ${times.p95.toFixed(1)} ms (${DIMENSION}-d, random vectors)`);
  if (await isLaidOut(ENCODER, encoderCache())) {
    const args = ['search', '--store', store, '--embed-model', path.join(encoderCache(), ENCODER.name), '--query', CLAIM];
    const coldHybrid: number[] = [];
    for (let run = 0; run < COLD_RUNS; run++) coldHybrid.push(timed(args).seconds * 1000);
    console.log(`${label}cold hybrid search (whole command, ${ENCODER.name}) p50 ${median(coldHybrid).toFixed(0)} ms, peak ${timed(args).peakMb.toFixed(0)} MB`);
  } else console.log(`${label}cold hybrid search: skipped, ${ENCODER.name} not fetched (npm run models:fetch)`);
  console.log(`${label}on disk ${(await sizeOf(store) / 1024 / 1024).toFixed(0)} MB with vectors`);
}

/** Runs `attest ARGS` in a process of its own; its wall time and peak resident memory. */
function timed(args: readonly string[]): { seconds: number; peakMb: number } {
  const report = path.join(os.tmpdir(), `attest-scale-time-${process.pid}`);
  execFileSync('/usr/bin/time', ['-f', '%e %M', '-o', report, process.execPath, CLI, ...args], { stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  const [seconds, kilobytes] = execFileSync('cat', [report]).toString().trim().split(/\s+/).map(Number);
  return { seconds, peakMb: kilobytes / 1024 };
}

async function queryTimes(library: PaperLibrary): Promise<{ p50: number; p95: number }> {
  const times: number[] = [];
  const words = CLAIM.split(' ');
  for (let i = 0; i < WARM_QUERIES; i++) {
    const text = words.filter((_, at) => (at + i) % 3 !== 0).join(' ');
    const start = performance.now();
    await library.find({ text, limit: 10 });
    times.push(performance.now() - start);
  }
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

function defaultEncoder(): RegistryEncoder {
  const encoder = REGISTRY_ENCODERS.find(({ name }) => name === 'bge-small-en-v1.5-int8');
  if (encoder === undefined) throw new Error('bench/encoders/registry.ts no longer lists bge-small-en-v1.5-int8');
  return encoder;
}

/** Gives every paper a random vector once, as an encoder would have: the library keeps them. */
async function embedRandomly(store: string): Promise<void> {
  const { library } = await PaperLibrary.open(store, { encoder: { model: MODEL, embedder: randomEmbedder() } });
  await library.embedMissing();
}

function randomEmbedder(): Embedder {
  let seed = 7;
  const random = (): number => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648 - 0.5;
  };
  return {
    embed: async (texts) => texts.map(() => Float32Array.from({ length: DIMENSION }, random)),
    dispose: async () => undefined,
  };
}

async function writeCorpus(file: string, size: number): Promise<void> {
  const out = createWriteStream(file);
  for (let i = 0; i < size; i++) {
    const paper = syntheticPaper(i);
    if (!out.write(`${JSON.stringify({ _id: paper.id, title: paper.title, text: paper.abstract })}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  }
  await new Promise<void>((resolve, reject) => {
    out.on('error', reject);
    out.end(resolve);
  });
}

async function sizeOf(dir: string): Promise<number> {
  const names = await fs.readdir(dir);
  const sizes = await Promise.all(names.map(async (name) => (await fs.stat(path.join(dir, name))).size));
  return sizes.reduce((sum, size) => sum + size, 0);
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(() => true, () => false);
}

if (require.main === module) {
  benchLibraryScale().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
