/**
 * Every paper's cosine with the query, as one matrix product in ONNX Runtime (the graph in
 * scoringGraph.ts). Its MatMul runs SIMD kernels on two threads: over 100,000 vectors of 384
 * dimensions it took 8–11 ms where the JavaScript loop it replaced took 75–92 ms on the same shared
 * cores, and that loop alone was more than a hybrid query's 50 ms budget at that size.
 *
 * onnxruntime-node is required at the first search by meaning, not when this module loads, so a
 * search by words (and the CLI's --help) never loads it; a search by meaning needs the encoder, which
 * has loaded it already.
 */
import type * as Ort from 'onnxruntime-node';
import { SCORING_GRAPH_BASE64 } from './scoringGraph';

/** The two cores Attest's speed targets assume, as the encoder's default `threads` setting does. */
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
    throw new Error(`A search by meaning needs ONNX Runtime, which could not be loaded on this machine (${(error as Error).message}); search by words still works.`);
  }
}
