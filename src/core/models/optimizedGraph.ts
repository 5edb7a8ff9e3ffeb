/**
 * A copy of an ONNX graph with ONNX Runtime's portable optimisations (level "extended": attention,
 * layer normalisation and GELU fused) already applied, in ONNX Runtime's own format, kept beside the
 * graph it was made from:
 *
 *   onnx/model_quantized.onnx             the graph, as downloaded
 *   onnx/model_quantized.optimized.ort    the copy
 *   onnx/model_quantized.optimized.json   which ONNX Runtime made it, from a file of what size and time
 *
 * Each session over a graph otherwise looks for those fusions again: over bge-small-en-v1.5 int8,
 * making the session took about 370 ms, over the copy as an ONNX file about 240 ms, and over the
 * copy in ONNX Runtime's format, read into memory that the session then uses as its weights
 * (`session.ts`), about 180 ms and 55 MB less memory, with the same vectors and speed. A cold
 * `attest search` waits on that session. The copy is used only while its record matches the graph,
 * the copy, this platform and the ONNX Runtime loaded (its format is that runtime's); the levels
 * after "extended" (layout, "all") are left to each session, as their output is not portable.
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
}

/** A partial copy older than this was left by a process that stopped while writing it. */
const STALE_PARTIAL_MS = 10 * 60 * 1000;

/** A record is a line of JSON; anything longer is not one of ours. */
const RECORD_BYTES = 4096;

export function optimizedPaths(graph: string): { readonly copy: string; readonly record: string } {
  const base = graph.replace(/\.onnx$/i, '');
  return { copy: `${base}.optimized.ort`, record: `${base}.optimized.json` };
}

/** The optimised copy of `graph` this ONNX Runtime may load in its place, if one was made from it as it is now. */
export async function optimizedCopyOf(graph: string): Promise<string | undefined> {
  const { copy, record } = optimizedPaths(graph);
  try {
    const [text, source, copied] = await Promise.all([readTextFile(record, RECORD_BYTES), fs.stat(graph), fs.stat(copy)]);
    if (text === undefined || !copied.isFile()) return undefined;
    const made = JSON.parse(text.text) as Partial<MadeFrom>;
    const now = madeBy(source.size, source.mtimeMs, copied.size);
    return (Object.keys(now) as (keyof MadeFrom)[]).every((key) => made[key] === now[key]) ? copy : undefined;
  } catch {
    // No copy, or a record that is not ours: the graph itself is loaded.
    return undefined;
  }
}

/** Makes (or makes again) the optimised copy of `graph` and its record; each file appears whole or not at all. */
export async function writeOptimizedCopy(graph: string): Promise<string> {
  const { copy, record } = optimizedPaths(graph);
  const source = await fs.stat(graph);
  await removeStalePartials(copy);
  const suffix = `.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const session = await ort.InferenceSession.create(graph, {
      executionProviders: ['cpu'],
      logSeverityLevel: 3,
      intraOpNumThreads: 1,
      graphOptimizationLevel: 'extended',
      optimizedModelFilePath: copy + suffix,
      // Named by the option, not by the partial file's extension, from which ONNX Runtime would otherwise guess it.
      extra: { session: { save_model_format: 'ORT' } },
    });
    await session.release();
    const copySize = (await fs.stat(copy + suffix)).size;
    await fs.rename(copy + suffix, copy);
    await fs.writeFile(record + suffix, `${JSON.stringify(madeBy(source.size, source.mtimeMs, copySize))}\n`);
    await fs.rename(record + suffix, record);
    return copy;
  } finally {
    await Promise.all([fs.rm(copy + suffix, { force: true }), fs.rm(record + suffix, { force: true })]);
  }
}

function madeBy(size: number, mtimeMs: number, copySize: number): MadeFrom {
  return { onnxruntime: ort.env.versions.node ?? ort.env.versions.common, platform: `${process.platform}-${process.arch}`, size, mtimeMs, copySize };
}

/** Partial copies beside `copy` that a stopped process left, each as large as a graph. */
async function removeStalePartials(copy: string): Promise<void> {
  const dir = path.dirname(copy);
  const prefix = `${path.basename(copy)}.`;
  for (const name of await fs.readdir(dir)) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const file = path.join(dir, name);
    const stats = await fs.stat(file).catch(() => undefined);
    if (stats !== undefined && Date.now() - stats.mtimeMs > STALE_PARTIAL_MS) await fs.rm(file, { force: true });
  }
}
