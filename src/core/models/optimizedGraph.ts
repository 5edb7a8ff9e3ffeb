/**
 * A copy of an ONNX graph with ONNX Runtime's portable optimisations (level "extended": attention,
 * layer normalisation and GELU fused) already applied, its weights in a file of their own, kept
 * beside the graph it was made from:
 *
 *   onnx/model_quantized.onnx                      the graph, as downloaded
 *   onnx/model_quantized.optimized.1a2b3c4d.onnx   the copy, without its weights
 *   onnx/model_quantized.optimized.1a2b3c4d.data   the copy's weights, which ONNX Runtime maps into memory
 *   onnx/model_quantized.optimized.json            the record: which copy, made by which ONNX Runtime
 *                                                  from a graph of what size and time
 *
 * Each session over a graph otherwise looks for those fusions again, and copies every weight out of
 * the file it parsed. Over bge-small-en-v1.5 int8, making the session took about 370 ms over the
 * graph, 240 ms over a copy holding its weights, and 120–175 ms over this one, with 30 MB less
 * memory; over fp32, about 220 ms instead of 370 and 130 MB less (the weights are the file's pages,
 * shared, rather than a copy of them). A cold `attest search` waits on that session.
 *
 * A model Attest downloaded keeps its copy in its own folder; a model Attest ships, in a folder of
 * Attest's storage (the extension's folder is not Attest's to write); a folder the user names, none.
 *
 * The record is what makes a copy count: it is written last and renamed into place, and names the
 * copy and its weights by an id fresh at each writing, so two windows making copies at once, or a
 * session that mapped an earlier copy, never see a copy's files change. A copy is used only while
 * the record matches the graph, the copy, its weights, this platform and the ONNX Runtime loaded;
 * the levels after "extended" (layout, "all") are left to each session, as their output is not
 * portable.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type * as Lockfile from 'proper-lockfile';
import * as ort from 'onnxruntime-node';
import { readTextFile } from '../text/readFile';

/** What a copy was made from and by, and what it is: the copy is trusted only while all of it holds. */
interface MadeFrom {
  readonly onnxruntime: string;
  /** Some of the fusions depend on the processor (int8 kernels differ between x64 and arm64). */
  readonly platform: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** Names the copy and its weights (see `copyFiles`). */
  readonly id: string;
  readonly copySize: number;
  /** Absent when every weight was small enough to stay in the copy. */
  readonly weightsSize?: number;
}

/** Files of a copy older than this that no record names, and a lock this old, were left by a process that stopped while writing. */
const STALE_MS = 10 * 60 * 1000;

/** A record is a line of JSON; anything longer is not one of ours. */
const RECORD_BYTES = 4096;

/** Weights smaller than this stay in the copy. */
const SMALLEST_EXTERNAL_WEIGHT = 1024;

const ID = /^[0-9a-f]{8}$/;

/** Where the record of `graph`'s copy kept in `folder` (by default beside the graph) is. */
export function optimizedRecord(graph: string, folder = path.dirname(graph)): string {
  return `${stem(graph, folder)}.optimized.json`;
}

/** The optimised copy of `graph` in `folder` this ONNX Runtime may load in its place, if one was made from it as it is now. */
export async function optimizedCopyOf(graph: string, folder = path.dirname(graph)): Promise<string | undefined> {
  try {
    const made = await readRecord(graph, folder);
    if (made === undefined || typeof made.id !== 'string' || !ID.test(made.id)) return undefined;
    const { copy, weights } = copyFiles(graph, folder, made.id);
    const [source, copied, weighed] = await Promise.all([fs.stat(graph), fs.stat(copy), made.weightsSize === undefined ? undefined : fs.stat(weights)]);
    if (!copied.isFile() || (weighed !== undefined && !weighed.isFile())) return undefined;
    const now = madeBy(source.size, source.mtimeMs, made.id, copied.size, weighed?.size);
    const keys = new Set([...Object.keys(now), ...Object.keys(made)]) as Set<keyof MadeFrom>;
    return [...keys].every((key) => made[key] === now[key]) ? copy : undefined;
  } catch {
    // No copy, or a record that is not ours: the graph itself is loaded.
    return undefined;
  }
}

/**
 * Makes (or makes again) the optimised copy of `graph` and its weights in `folder` (made if need be),
 * then the record that makes them count.
 */
export async function writeOptimizedCopy(graph: string, folder = path.dirname(graph)): Promise<string> {
  const source = await fs.stat(graph);
  await fs.mkdir(folder, { recursive: true });
  const release = await lockRecord(optimizedRecord(graph, folder));
  try {
    return await writeLocked(graph, folder, source);
  } finally {
    await release();
  }
}

/**
 * The writing of one copy at a time: several windows loading a model for the first time would each
 * write one, and each copy is as large as the model's weights. Throws while another process writes;
 * a lock left by a process that stopped while writing is taken over once it is STALE_MS old.
 */
async function lockRecord(record: string): Promise<() => Promise<void>> {
  // Loaded by the first writing only: loading a model with its copy made takes no lock.
  const lockfile: typeof Lockfile = await import('proper-lockfile');
  try {
    // Losing the lock (a process stalled past STALE_MS) costs at most a copy written twice: each is named by its writing.
    return await lockfile.lock(record, { lockfilePath: `${record}.lock`, realpath: false, stale: STALE_MS, retries: 0, onCompromised: () => undefined });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') throw new Error(`another process is writing ${record}`);
    throw error;
  }
}

async function writeLocked(graph: string, folder: string, source: { size: number; mtimeMs: number }): Promise<string> {
  const previous = await readRecord(graph, folder).catch(() => undefined);
  await removeStale(graph, folder, previous?.id);
  const id = randomBytes(4).toString('hex');
  const { copy, weights } = copyFiles(graph, folder, id);
  const record = optimizedRecord(graph, folder);
  const partialRecord = `${record}.${id}.tmp`;
  let counted = false;
  try {
    const session = await ort.InferenceSession.create(graph, {
      executionProviders: ['cpu'],
      logSeverityLevel: 3,
      intraOpNumThreads: 1,
      graphOptimizationLevel: 'extended',
      optimizedModelFilePath: copy,
      // Named in the copy, and found beside it.
      extra: { session: { optimized_model_external_initializers_file_name: path.basename(weights), optimized_model_external_initializers_min_size_in_bytes: String(SMALLEST_EXTERNAL_WEIGHT) } },
    });
    await session.release();
    const copySize = (await fs.stat(copy)).size;
    // A graph whose weights are all small has none apart; any other error is this writing's failure.
    const weighed = await fs.stat(weights).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    await fs.writeFile(partialRecord, `${JSON.stringify(madeBy(source.size, source.mtimeMs, id, copySize, weighed?.size))}\n`);
    await fs.rename(partialRecord, record);
    counted = true;
  } finally {
    await removeQuietly([partialRecord, ...(counted ? [] : [copy, weights])]);
  }
  // Superseded: a session that mapped them keeps them where the system allows (not on Windows, where
  // they stay until the stale sweep of a later writing finds them unused).
  if (previous?.id !== undefined && ID.test(previous.id) && previous.id !== id) {
    const earlier = copyFiles(graph, folder, previous.id);
    await removeQuietly([earlier.copy, earlier.weights]);
  }
  return copy;
}

/** The copy's files in `folder` are named after the graph's file. */
function stem(graph: string, folder: string): string {
  return path.join(folder, path.basename(graph).replace(/\.onnx$/i, ''));
}

/** The copy of `graph` in `folder` and its weights, named by `id`. */
function copyFiles(graph: string, folder: string, id: string): { readonly copy: string; readonly weights: string } {
  return { copy: `${stem(graph, folder)}.optimized.${id}.onnx`, weights: `${stem(graph, folder)}.optimized.${id}.data` };
}

async function readRecord(graph: string, folder: string): Promise<Partial<MadeFrom> | undefined> {
  const text = await readTextFile(optimizedRecord(graph, folder), RECORD_BYTES);
  return text === undefined ? undefined : (JSON.parse(text.text) as Partial<MadeFrom>);
}

function madeBy(size: number, mtimeMs: number, id: string, copySize: number, weightsSize: number | undefined): MadeFrom {
  return {
    onnxruntime: ort.env.versions.node ?? ort.env.versions.common,
    platform: `${process.platform}-${process.arch}`,
    size,
    mtimeMs,
    id,
    copySize,
    ...(weightsSize !== undefined && { weightsSize }),
  };
}

/** Copies' files and partial records that no record names, left by a process that stopped while writing them; each as large as a graph. */
async function removeStale(graph: string, dir: string, named: string | undefined): Promise<void> {
  const prefix = `${path.basename(stem(graph, dir))}.optimized.`;
  for (const name of await fs.readdir(dir)) {
    if (!name.startsWith(prefix)) continue;
    const [id, ...rest] = name.slice(prefix.length).split('.');
    const ours = ID.test(id) && (rest.join('.') === 'onnx' || rest.join('.') === 'data');
    const partialRecord = name.startsWith(`${prefix}json.`) && name.endsWith('.tmp');
    if ((!ours || id === named) && !partialRecord) continue;
    const file = path.join(dir, name);
    const stats = await fs.stat(file).catch(() => undefined);
    if (stats !== undefined && Date.now() - stats.mtimeMs > STALE_MS) await removeQuietly([file]);
  }
}

/** Removes what it can: a file another process has mapped cannot be removed on Windows. */
async function removeQuietly(files: readonly string[]): Promise<void> {
  await Promise.all(files.map((file) => fs.rm(file, { force: true }).catch(() => undefined)));
}
