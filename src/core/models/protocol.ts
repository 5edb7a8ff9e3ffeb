/** The messages between `pool.ts` (the client, on the caller's thread) and `worker.ts`. */
import type { TextKind } from './embedder';
import { ModelError } from './errors';
import type { JudgingParameters } from './judging';
import type { NliPair, NliScores } from './nli';
import type { ModelOptions } from './options';

/** What the worker loads, given as its `workerData`. */
export interface WorkerModelSpec {
  readonly kind: 'nli' | 'embedder';
  readonly dir: string;
  readonly options: ModelOptions;
}

/** One batch of work. */
export type WorkerTask =
  | { readonly type: 'classify'; readonly pairs: readonly NliPair[] }
  | { readonly type: 'embed'; readonly texts: readonly string[]; readonly kind: TextKind };

export type WorkerRequest = WorkerTask & { readonly id: number };

/** Asks the worker to finish the batch it is running, release its model and end. */
export interface CloseRequest {
  readonly type: 'close';
}

export type WorkerReply =
  /** Loaded; an NLI model trained for Attest says how it judges (its attest.json). */
  | { readonly type: 'ready'; readonly judging?: JudgingParameters }
  | { readonly type: 'load-failed'; readonly error: SerializedError }
  | { readonly type: 'classified'; readonly id: number; readonly scores: NliScores[] }
  | { readonly type: 'embedded'; readonly id: number; readonly vectors: Float32Array[] }
  | { readonly type: 'failed'; readonly id: number; readonly error: SerializedError };

/** An error as it crosses the thread boundary: structured clone would drop its class. */
export interface SerializedError {
  readonly name: string;
  readonly message: string;
  readonly file?: string;
}

export function serializeError(error: unknown): SerializedError {
  if (error instanceof ModelError) return { name: error.name, message: error.message, file: error.file };
  if (error instanceof Error) return { name: error.name, message: error.message };
  return { name: 'Error', message: String(error) };
}

export function deserializeError(error: SerializedError): Error {
  if (error.name === 'ModelError') return new ModelError(error.message, error.file);
  const rebuilt = new Error(error.message);
  rebuilt.name = error.name;
  return rebuilt;
}
