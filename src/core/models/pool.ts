/**
 * Models run in a worker thread, so that inference never holds up the thread that asked for it (in
 * the extension, the extension host). `WorkerNliModel` and `WorkerEmbedder` are the worker-backed
 * `NliModel` and `Embedder`:
 *
 *   const nli = await WorkerNliModel.start(dir, { preferQuantized: true, threads: 2 });
 *   const scores = await nli.classify(pairs, signal);   // aborting drops the batches not yet run
 *   await nli.dispose();                                // ends the thread; pending calls reject
 *
 * Each call is cut into batches sent one at a time; calls take turns batch by batch, so a short
 * verification is not stuck behind a long indexing run.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Embedder, TextKind } from './embedder';
import { ModelError } from './errors';
import type { NliModel, NliPair, NliScores } from './nli';
import type { ModelOptions } from './options';
import { DEFAULT_BATCH_SIZE, inBatches } from './options';
import type { JudgingParameters } from './judging';
import type { CloseRequest, WorkerModelSpec, WorkerReply, WorkerTask } from './protocol';
import { deserializeError } from './protocol';

type ReadyReply = Extract<WorkerReply, { type: 'ready' }>;

/** Takes what it needs from a reply, or throws when the reply is not for this kind of call. */
type ReadReply<R> = (reply: WorkerReply) => R[];

/** A call as the queue sees it, whatever its results are. */
interface PendingCall {
  readonly settled: boolean;
  readonly allSent: boolean;
  takeTask(): WorkerTask | undefined;
  accept(reply: WorkerReply): void;
  fail(error: Error): void;
}

class Call<R> implements PendingCall {
  private next = 0;
  private readonly results: R[] = [];
  settled = false;

  constructor(
    private readonly tasks: readonly WorkerTask[],
    private readonly read: ReadReply<R>,
    private readonly resolve: (results: R[]) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  takeTask(): WorkerTask | undefined {
    return this.tasks[this.next++];
  }

  get allSent(): boolean {
    return this.next >= this.tasks.length;
  }

  accept(reply: WorkerReply): void {
    if (this.settled) return;
    try {
      this.results.push(...this.read(reply));
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if (this.allSent) {
      this.settled = true;
      this.resolve(this.results);
    }
  }

  fail(error: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(error);
  }
}

/** One worker thread holding one model, and the queue of calls waiting for it. */
class ModelWorker {
  private readonly waiting: PendingCall[] = [];
  private running: { readonly id: number; readonly call: PendingCall } | undefined;
  private nextId = 1;
  private stopped: Error | undefined;
  /** Settles when the worker has loaded its model (with what it said of it) or failed to. */
  private readonly loaded: Promise<ReadyReply>;
  private settleLoad!: (outcome: ReadyReply | Error) => void;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    private readonly label: string,
  ) {
    this.loaded = new Promise<ReadyReply>((resolve, reject) => {
      this.settleLoad = (outcome) => (outcome instanceof Error ? reject(outcome) : resolve(outcome));
    });
    this.exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (reply: WorkerReply) => this.onReply(reply));
    worker.on('error', (error) => this.stop(new ModelError(`The ${label} failed: ${error.message}`)));
    worker.on('exit', (code) => this.stop(new ModelError(`The ${label} stopped unexpectedly (exit code ${code}).`)));
  }

  static async start(spec: WorkerModelSpec): Promise<{ worker: ModelWorker; ready: ReadyReply }> {
    const label = spec.kind === 'nli' ? 'NLI model' : 'sentence encoder';
    const model = new ModelWorker(new Worker(path.join(__dirname, 'worker.js'), { workerData: spec }), label);
    try {
      return { worker: model, ready: await model.loaded };
    } catch (error) {
      // A worker that could not load has nothing left to do and ends by itself.
      await model.exited;
      throw error;
    }
  }

  run<R>(tasks: readonly WorkerTask[], read: ReadReply<R>, signal?: AbortSignal): Promise<R[]> {
    if (this.stopped) return Promise.reject(this.stopped);
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (tasks.length === 0) return Promise.resolve([]);
    return new Promise<R[]>((resolve, reject) => {
      const onAbort = () => this.drop(call, signal?.reason as Error);
      const call = new Call<R>(
        tasks,
        read,
        (results) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(results);
        },
        (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(call);
      this.pump();
    });
  }

  /**
   * Calls not finished reject at once; the thread ends after the batch it is running (see
   * worker.ts for why it is not simply terminated).
   */
  async close(): Promise<void> {
    if (!this.stopped) {
      this.stop(new ModelError(`The ${this.label} was shut down.`));
      this.worker.postMessage({ type: 'close' } satisfies CloseRequest);
    }
    await this.exited;
  }

  private pump(): void {
    if (this.running || this.stopped) return;
    const call = this.waiting.shift();
    const task = call?.takeTask();
    if (!call || !task) return;
    const id = this.nextId++;
    this.running = { id, call };
    this.worker.postMessage({ ...task, id });
  }

  private onReply(reply: WorkerReply): void {
    if (reply.type === 'ready') return this.settleLoad(reply);
    if (reply.type === 'load-failed') return this.settleLoad(deserializeError(reply.error));
    if (!this.running || !('id' in reply) || reply.id !== this.running.id) return;
    const { call } = this.running;
    this.running = undefined;
    if (reply.type === 'failed') call.fail(deserializeError(reply.error));
    else call.accept(reply);
    if (!call.settled && !call.allSent) this.waiting.push(call);
    this.pump();
  }

  /** A cancelled call's batches still waiting are never sent; the one running finishes unread. */
  private drop(call: PendingCall, reason: Error): void {
    const index = this.waiting.indexOf(call);
    if (index >= 0) this.waiting.splice(index, 1);
    call.fail(reason);
  }

  private stop(error: Error): void {
    if (this.stopped) return;
    this.stopped = error;
    this.settleLoad(error);
    const calls = [...this.waiting, ...(this.running ? [this.running.call] : [])];
    this.waiting.length = 0;
    this.running = undefined;
    for (const call of calls) call.fail(error);
  }
}

function unexpected(reply: WorkerReply): never {
  throw new Error(`the model's worker answered ${reply.type}`);
}

export class WorkerNliModel implements NliModel {
  private constructor(
    private readonly worker: ModelWorker,
    private readonly batchSize: number,
    readonly judging: JudgingParameters | undefined,
  ) {}

  static async start(dir: string, options: ModelOptions = {}): Promise<WorkerNliModel> {
    const { worker, ready } = await ModelWorker.start({ kind: 'nli', dir, options });
    return new WorkerNliModel(worker, options.batchSize ?? DEFAULT_BATCH_SIZE, ready.judging);
  }

  classify(pairs: readonly NliPair[], signal?: AbortSignal): Promise<NliScores[]> {
    const tasks = inBatches(pairs, this.batchSize).map((batch): WorkerTask => ({ type: 'classify', pairs: batch }));
    return this.worker.run(tasks, (reply) => (reply.type === 'classified' ? reply.scores : unexpected(reply)), signal);
  }

  dispose(): Promise<void> {
    return this.worker.close();
  }
}

export class WorkerEmbedder implements Embedder {
  private constructor(
    private readonly worker: ModelWorker,
    private readonly batchSize: number,
  ) {}

  static async start(dir: string, options: ModelOptions = {}): Promise<WorkerEmbedder> {
    const { worker } = await ModelWorker.start({ kind: 'embedder', dir, options });
    return new WorkerEmbedder(worker, options.batchSize ?? DEFAULT_BATCH_SIZE);
  }

  embed(texts: readonly string[], kind: TextKind, signal?: AbortSignal): Promise<Float32Array[]> {
    const tasks = inBatches(texts, this.batchSize).map((batch): WorkerTask => ({ type: 'embed', texts: batch, kind }));
    return this.worker.run(tasks, (reply) => (reply.type === 'embedded' ? reply.vectors : unexpected(reply)), signal);
  }

  dispose(): Promise<void> {
    return this.worker.close();
  }
}

/**
 * One encoder in several one-thread workers side by side, for embedding in bulk (an import, a library
 * embedded afresh): the texts are dealt out in turn and their vectors put back in order. On two
 * quiet cores, two one-thread sessions embed a third more than one session on two threads, whose
 * threads wait for each other at every operator (bench/embeddingBudget.bench.ts, "two workers").
 * An int8 graph embeds one text at a time in each, so a text's vector is the same in any lane.
 */
export class LanesEmbedder implements Embedder {
  private constructor(private readonly lanes: readonly WorkerEmbedder[]) {}

  static async start(dir: string, lanes: number, options: ModelOptions = {}): Promise<LanesEmbedder> {
    const started = await Promise.allSettled(Array.from({ length: lanes }, () => WorkerEmbedder.start(dir, { ...options, threads: 1 })));
    const failed = started.find((each) => each.status === 'rejected');
    if (failed !== undefined) {
      await Promise.all(started.map((each) => (each.status === 'fulfilled' ? each.value.dispose() : undefined)));
      throw failed.reason;
    }
    return new LanesEmbedder(started.map((each) => (each as PromiseFulfilledResult<WorkerEmbedder>).value));
  }

  async embed(texts: readonly string[], kind: TextKind, signal?: AbortSignal): Promise<Float32Array[]> {
    const dealt = this.lanes.map((_, lane) => texts.flatMap((_, at) => (at % this.lanes.length === lane ? [at] : [])));
    const vectors = new Array<Float32Array>(texts.length);
    await Promise.all(
      this.lanes.map(async (lane, at) => {
        if (dealt[at].length === 0) return;
        const own = await lane.embed(
          dealt[at].map((i) => texts[i]),
          kind,
          signal,
        );
        own.forEach((vector, i) => (vectors[dealt[at][i]] = vector));
      }),
    );
    return vectors;
  }

  async dispose(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.dispose()));
  }
}

/**
 * An encoder whose worker is still starting: embeddings wait for it, and fail as its start failed.
 * Its start runs beside whatever the caller does meanwhile: a search from the CLI opens the library
 * and reads its vectors while ONNX Runtime makes the session, a third of a second for bge-small.
 */
export class StartingEmbedder implements Embedder {
  /** Settles once the worker has loaded the model, rejecting with why it could not. */
  readonly ready: Promise<void>;
  private readonly starting: Promise<WorkerEmbedder>;

  constructor(dir: string, options: ModelOptions = {}) {
    this.starting = WorkerEmbedder.start(dir, options);
    this.ready = this.starting.then(() => undefined);
    // Heard by `ready`'s and each embedding's caller; unheard when nothing asks.
    this.ready.catch(() => undefined);
  }

  async embed(texts: readonly string[], kind: TextKind, signal?: AbortSignal): Promise<Float32Array[]> {
    return (await this.starting).embed(texts, kind, signal);
  }

  async dispose(): Promise<void> {
    const embedder = await this.starting.catch(() => undefined);
    await embedder?.dispose();
  }
}
