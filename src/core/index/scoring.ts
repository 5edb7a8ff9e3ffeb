/**
 * Every paper's cosine with the query, as one matrix product in ONNX Runtime (the graph in
 * scoringGraph.ts). Its MatMul runs SIMD kernels on two threads: over 100,000 vectors of 384
 * dimensions it took 9–15 ms where the JavaScript loop it replaced took 73–75 ms on the same two shared
 * cores, and that loop alone was more than a hybrid query's 50 ms budget at that size.
 *
 * onnxruntime-node is required at the first search by meaning, not when this module loads, so a
 * search by words (and the CLI's --help) never loads it. In the CLI the encoder has loaded it
 * already; in the editor this loads it in the library's worker too (the encoder runs in its own).
 */
import type * as Ort from 'onnxruntime-node';
import { SCORING_GRAPH_BASE64 } from './scoringGraph';

/**
 * The two cores Attest's speed targets assume. The work is the same on one thread or two, only
 * sooner on two; without spinning, the second thread holds no core between searches, which is what
 * a lower `threads` setting of the encoder asks for.
 */
const THREADS = 2;

let session: Promise<Ort.InferenceSession> | undefined;

/**
 * `blocks` holds `blockCount` blocks of `rowsPerBlock` vectors, each block dimension-major (the first
 * dimension of every vector, then the second…). Returns one cosine per slot, block by block; slots
 * beyond the vectors added score 0.
 */
export async function blockScores(query: Float32Array, blocks: Float32Array, blockCount: number, rowsPerBlock: number): Promise<Float32Array> {
  const ort = runtime();
  session ??= ort.InferenceSession.create(Buffer.from(SCORING_GRAPH_BASE64, 'base64'), {
    executionProviders: ['cpu'],
    intraOpNumThreads: THREADS,
    logSeverityLevel: 3,
    extra: { session: { intra_op: { allow_spinning: '0' } } },
  }).catch((error: unknown) => {
    session = undefined;
    throw error;
  });
  const { scores } = await (await session).run({
    query: new ort.Tensor('float32', query, [1, query.length]),
    blocks: new ort.Tensor('float32', blocks, [blockCount, query.length, rowsPerBlock]),
  });
  return scores.data as Float32Array;
}

function runtime(): typeof Ort {
  try {
    return require('onnxruntime-node') as typeof Ort;
  } catch (error) {
    throw new Error(`ONNX Runtime could not be loaded on this machine: ${(error as Error).message}`);
  }
}
