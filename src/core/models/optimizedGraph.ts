/**
 * A copy of an ONNX graph with ONNX Runtime's portable optimisations (level "extended": attention,
 * layer normalisation and GELU fused) already applied, kept beside the graph it was made from:
 *
 *   onnx/model_quantized.onnx             the graph, as downloaded
 *   onnx/model_quantized.optimized.onnx   the copy
 *   onnx/model_quantized.optimized.json   which ONNX Runtime made it, from a file of what size and time
 *
 * Each session over a graph otherwise looks for those fusions again: over bge-small-en-v1.5 int8,
 * making the session took about 370 ms, over the copy about 240 ms, with the same vectors and speed,
 * and a cold `attest search` waits on that session. The copy is used only while its record matches
 * the graph and the ONNX Runtime loaded; the level that also lays weights out for this processor
 * ("all") is left to each session, as its output is not portable.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { readTextFile } from '../text/readFile';

interface MadeFrom {
  readonly onnxruntime: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/** A record is a line of JSON; anything longer is not one of ours. */
const RECORD_BYTES = 4096;

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
    return made.onnxruntime === ort.env.versions.common && made.size === source.size && made.mtimeMs === source.mtimeMs ? copy : undefined;
  } catch {
    // No copy, or a record that is not ours: the graph itself is loaded.
    return undefined;
  }
}

/** Makes (or makes again) the optimised copy of `graph` and its record; each file appears whole or not at all. */
export async function writeOptimizedCopy(graph: string): Promise<string> {
  const { copy, record } = optimizedPaths(graph);
  const source = await fs.stat(graph);
  const suffix = `.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const session = await ort.InferenceSession.create(graph, {
      executionProviders: ['cpu'],
      logSeverityLevel: 3,
      graphOptimizationLevel: 'extended',
      optimizedModelFilePath: copy + suffix,
    });
    await session.release();
    await fs.rename(copy + suffix, copy);
    const made: MadeFrom = { onnxruntime: ort.env.versions.common, size: source.size, mtimeMs: source.mtimeMs };
    await fs.writeFile(record + suffix, `${JSON.stringify(made)}\n`);
    await fs.rename(record + suffix, record);
    return copy;
  } finally {
    await Promise.all([fs.rm(copy + suffix, { force: true }), fs.rm(record + suffix, { force: true })]);
  }
}
