/**
 * Every paper's cosine with the query, as one matrix-vector product in ONNX Runtime (the graph in
 * scoringGraph.ts). Its MatMul runs SIMD kernels on two threads: over 100,000 vectors of 384
 * dimensions it took 12 ms where the JavaScript loop it replaced took 73–75 ms on the same two shared
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
 * Loads ONNX Runtime and makes the scoring session now, so that the first search does not wait for
 * them (a tenth of a second): the dense index asks while its vectors are being read. A failure is
 * the first search's to report.
 */
export function prepareScoring(): void {
  scoringSession().catch(() => undefined);
}

/** `vectors` holds `rows` unit vectors of the query's dimension, row by row. Returns one cosine per row. */
export async function rowScores(query: Float32Array, vectors: Float32Array, rows: number): Promise<Float32Array> {
  const ort = runtime();
  const { scores } = await (await scoringSession()).run({
    vectors: new ort.Tensor('float32', vectors, [rows, query.length]),
    query: new ort.Tensor('float32', query, [query.length, 1]),
  });
  return scores.data as Float32Array;
}

/** The session, made at the first call; one that failed is made again at the next. */
function scoringSession(): Promise<Ort.InferenceSession> {
  session ??= (async () => {
    const ort = runtime();
    return ort.InferenceSession.create(Buffer.from(SCORING_GRAPH_BASE64, 'base64'), {
      executionProviders: ['cpu'],
      intraOpNumThreads: THREADS,
      logSeverityLevel: 3,
      extra: { session: { intra_op: { allow_spinning: '0' } } },
    });
  })().catch((error: unknown) => {
    session = undefined;
    throw error;
  });
  return session;
}

function runtime(): typeof Ort {
  try {
    return require('onnxruntime-node') as typeof Ort;
  } catch (error) {
    throw new Error(`ONNX Runtime could not be loaded on this machine: ${(error as Error).message}`);
  }
}
