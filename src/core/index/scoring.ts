/**
 * The best rows of the dense index for a query, by cosine, in ONNX Runtime (the graph in
 * scoringGraph.ts): a matrix-vector product, then a TopK. The MatMul runs SIMD kernels on two
 * threads: over 100,000 vectors of 384 dimensions it took 12 ms where the JavaScript loop it
 * replaced took 73–75 ms on the same two shared cores, and that loop alone was more than a hybrid
 * query's 50 ms budget at that size. The TopK spares a loop over every score in JavaScript, which
 * at a cold start, before the loop is compiled, took about 20 ms over 100,000 papers.
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

/**
 * `vectors` holds `rows` unit vectors of the query's dimension, row by row. Returns the `limit` best
 * rows (all of them when there are fewer) and their cosines, best first, the lower row first among
 * equal cosines.
 */
export async function bestRows(query: Float32Array, vectors: Float32Array, rows: number, limit: number): Promise<{ rows: number[]; scores: Float32Array }> {
  const ort = runtime();
  const { best, rows: found } = await (
    await scoringSession()
  ).run({
    vectors: new ort.Tensor('float32', vectors, [rows, query.length]),
    query: new ort.Tensor('float32', query, [query.length, 1]),
    k: new ort.Tensor('int64', BigInt64Array.of(BigInt(Math.min(limit, rows))), [1]),
  });
  return { rows: Array.from(found.data as BigInt64Array, Number), scores: best.data as Float32Array };
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
