/**
 * A copy of an ONNX graph with ONNX Runtime's portable optimisations (level "extended": attention,
 * layer normalisation and GELU fused) already applied, its weights in a file of their own, kept
 * beside the graph it was made from:
 *
 *   onnx/model_quantized.onnx                      the graph, as downloaded
 *   onnx/model_quantized.optimized.onnx            the copy, without its weights
 *   onnx/model_quantized.optimized.1a2b3c4d.data   the copy's weights, which ONNX Runtime maps into memory
 *   onnx/model_quantized.optimized.json            which ONNX Runtime made it, from a file of what size and time
 *
 * Each session over a graph otherwise looks for those fusions again, and copies every weight out of
 * the file it parsed. Over bge-small-en-v1.5 int8, making the session took about 370 ms over the
 * graph, 240 ms over a copy holding its weights, and 120–175 ms over this one, with 30 MB less
 * memory; over fp32, about 220 ms instead of 370 and 130 MB less (the weights are the file's pages,
 * shared, rather than a copy of them). A cold `attest search` waits on that session. The copy is
 * used only while its record matches the graph, the copy, its weights, this platform and the ONNX
 * Runtime loaded; the levels after "extended" (layout, "all") are left to each session, as their
 * output is not portable. The weights' file is named afresh at each writing, so a session that
 * mapped the previous one keeps it whole.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as ort from 'onnxruntime-node';
import { readTextFile } from '../text/readFile';

/** What a copy was made from and by, and what it is: the copy is trusted only while all of it holds. */
interface MadeFrom {
  readonly onnxruntime: string;
  /** Some of the fusions depend on the processor (int8 kernels differ between x64 and arm64). */
  readonly platform: string;
  readonly size: number;
  readonly mtimeMs: number;
  readonly copySize: number;
  /** The weights' file beside the copy, and its size; absent when every weight was small enough to stay in the copy. */
  readonly weights?: string;
  readonly weightsSize?: number;
}

/** A partial copy older than this was left by a process that stopped while writing it. */
const STALE_PARTIAL_MS = 10 * 60 * 1000;

/** A record is a line of JSON; anything longer is not one of ours. */
const RECORD_BYTES = 4096;

/** Weights smaller than this stay in the copy. */
const SMALLEST_EXTERNAL_WEIGHT = 1024;

export function optimizedPaths(graph: string): { readonly copy: string; readonly record: string } {
  const base = graph.replace(/\.onnx$/i, '');
  return { copy: `${base}.optimized.onnx`, record: `${base}.optimized.json` };
}

/** The optimised copy of `graph` this ONNX Runtime may load in its place, if one was made from it as it is now. */
export async function optimizedCopyOf(graph: string): Promise<string | undefined> {
  const { copy, record } = optimizedPaths(graph);
  try {
    const [text, source, copied] = await Promise.all([readTextFile(record, RECORD_BYTES), fs.stat(graph), fs.stat(copy)]);
    if (text === undefined || !copied.isFile()) return undefined;
    const made = JSON.parse(text.text) as Partial<MadeFrom>;
    const weights = made.weights === undefined ? undefined : weightsFile(copy, made.weights);
    if (weights === null) return undefined;
    const weighed = weights === undefined ? undefined : await fs.stat(weights);
    if (weighed !== undefined && !weighed.isFile()) return undefined;
    const now = madeBy(source.size, source.mtimeMs, copied.size, weights === undefined ? undefined : { name: path.basename(weights), size: weighed?.size ?? 0 });
    const keys = new Set([...Object.keys(now), ...Object.keys(made)]) as Set<keyof MadeFrom>;
    return [...keys].every((key) => made[key] === now[key]) ? copy : undefined;
  } catch {
    // No copy, or a record that is not ours: the graph itself is loaded.
    return undefined;
  }
}

/** Makes (or makes again) the optimised copy of `graph`, its weights and its record; each file appears whole or not at all. */
export async function writeOptimizedCopy(graph: string): Promise<string> {
  const { copy, record } = optimizedPaths(graph);
  const source = await fs.stat(graph);
  await removeStalePartials(copy, record);
  const fresh = randomBytes(4).toString('hex');
  const suffix = `.${fresh}.tmp`;
  // Named in the copy, and found beside it.
  const weights = `${path.basename(copy, '.onnx')}.${fresh}.data`;
  const weightsPath = path.join(path.dirname(copy), weights);
  let kept = false;
  try {
    const session = await ort.InferenceSession.create(graph, {
      executionProviders: ['cpu'],
      logSeverityLevel: 3,
      intraOpNumThreads: 1,
      graphOptimizationLevel: 'extended',
      optimizedModelFilePath: copy + suffix,
      extra: { session: { optimized_model_external_initializers_file_name: weights, optimized_model_external_initializers_min_size_in_bytes: String(SMALLEST_EXTERNAL_WEIGHT) } },
    });
    await session.release();
    const copySize = (await fs.stat(copy + suffix)).size;
    const weighed = await fs.stat(weightsPath).catch(() => undefined);
    kept = true;
    await fs.rename(copy + suffix, copy);
    await fs.writeFile(record + suffix, `${JSON.stringify(madeBy(source.size, source.mtimeMs, copySize, weighed && { name: weights, size: weighed.size }))}\n`);
    await fs.rename(record + suffix, record);
    await removeEarlierWeights(copy, weights);
    return copy;
  } finally {
    await Promise.all([fs.rm(copy + suffix, { force: true }), fs.rm(record + suffix, { force: true }), kept ? undefined : fs.rm(weightsPath, { force: true })]);
  }
}

function madeBy(size: number, mtimeMs: number, copySize: number, weights?: { name: string; size: number }): MadeFrom {
  return {
    onnxruntime: ort.env.versions.node ?? ort.env.versions.common,
    platform: `${process.platform}-${process.arch}`,
    size,
    mtimeMs,
    copySize,
    ...(weights && { weights: weights.name, weightsSize: weights.size }),
  };
}

/** The weights' file a record names, beside the copy; null when the name is not one a copy's weights have. */
function weightsFile(copy: string, name: unknown): string | null {
  const prefix = `${path.basename(copy, '.onnx')}.`;
  return typeof name === 'string' && name.startsWith(prefix) && /^[0-9a-f]{8}\.data$/.test(name.slice(prefix.length)) ? path.join(path.dirname(copy), name) : null;
}

/** Weights of copies made before, other than `current`: a session that mapped one keeps it, as the system keeps an open file. */
async function removeEarlierWeights(copy: string, current: string): Promise<void> {
  for (const name of await fs.readdir(path.dirname(copy))) {
    if (name !== current && weightsFile(copy, name) !== null) await fs.rm(path.join(path.dirname(copy), name), { force: true }).catch(() => undefined);
  }
}

/** Partial copies, and weights no record names, that a stopped process left beside `copy`, each as large as a graph. */
async function removeStalePartials(copy: string, record: string): Promise<void> {
  const dir = path.dirname(copy);
  const named = await readTextFile(record, RECORD_BYTES)
    .then((text) => text && (JSON.parse(text.text) as Partial<MadeFrom>).weights)
    .catch(() => undefined);
  const prefix = `${path.basename(copy)}.`;
  for (const name of await fs.readdir(dir)) {
    const partial = name.startsWith(prefix) && name.endsWith('.tmp');
    const unnamedWeights = weightsFile(copy, name) !== null && name !== named;
    if (!partial && !unnamedWeights) continue;
    const file = path.join(dir, name);
    const stats = await fs.stat(file).catch(() => undefined);
    if (stats !== undefined && Date.now() - stats.mtimeMs > STALE_PARTIAL_MS) await fs.rm(file, { force: true });
  }
}
