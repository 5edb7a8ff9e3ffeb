/**
 * The paper library in a worker thread of its own (libraryWorker.ts): the store, its indexes, imports
 * and searches run there, so that 100,000 papers load and are searched without holding the extension
 * host. This side keeps what needs the host's connections, the sentence encoder and the live sources,
 * and answers the worker's calls for them.
 *
 *   const thread = new LibraryThread();
 *   const messages = await thread.setUp({ dir, encoder: { model, embedder }, liveSources });
 *   await thread.find({ text: claim, limit: 10, signal });      // as PaperLibrary.find
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { EvidenceFinder, EvidenceQuery, EvidenceResults, SearchMode } from '../evidence';
import type { PaperFormat } from '../papers/import';
import type { Paper } from '../papers/paper';
import type { PaperSource } from '../sources/types';
import type { AddOptions, Encoder } from './library';
import type { HostToWorker, ImportSummary, LibraryAnswers, LibrarySetup, LibraryTask, WorkerToHost } from './libraryProtocol';

/** Papers per message when the papers are copied out: unpacking one page takes the receiver milliseconds. */
const PAPERS_PAGE = 1_000;

export interface ThreadSetup {
  readonly dir: string;
  readonly encoder?: Encoder;
  readonly missingEncoder?: 'not-configured' | 'not-downloaded';
  readonly mode?: SearchMode;
  readonly liveSources?: readonly PaperSource[];
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
}

export class LibraryThread implements EvidenceFinder {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** The last setup: a worker started after one died is set up again with it. */
  private current: ThreadSetup | undefined;
  private generation = 0;

  constructor(private readonly workerFile = path.join(__dirname, 'libraryWorker.js')) {}

  /** Opens the store in `dir` (once per worker) with this encoder and these sources; returns what was repaired. */
  setUp(setup: ThreadSetup): Promise<readonly string[]> {
    const worker = this.started();
    this.current = setup;
    this.generation++;
    return this.request<readonly string[]>(worker, (id) => ({ kind: 'setup', id, setup: this.described() }), {});
  }

  find(query: EvidenceQuery): Promise<EvidenceResults> {
    return this.task({ type: 'find', text: query.text, limit: query.limit, openAccessOnly: query.openAccessOnly }, { signal: query.signal });
  }

  /** Adds papers (embedded, indexed, saved); with `onlyNew`, only those the library lacks. Returns how many it added. */
  add(papers: readonly Paper[], options: AddOptions & { readonly onlyNew?: boolean } = {}): Promise<number> {
    return this.task({ type: 'add', papers, onlyNew: options.onlyNew }, options);
  }

  /** Reads a JSONL, BibTeX or RIS file in the worker and adds its papers. */
  importFile(file: string, format: PaperFormat, options: AddOptions = {}): Promise<ImportSummary> {
    return this.task({ type: 'import', file, format }, options);
  }

  /** Embeds the papers saved without a vector of the encoder; returns how many. */
  embedMissing(options: AddOptions = {}): Promise<number> {
    return this.task({ type: 'embedMissing' }, options);
  }

  /**
   * Every paper of the store, copied to this thread a page at a time: 100,000 papers in one message
   * held the receiving thread (the extension host) for 1–2 s while it unpacked them.
   */
  async papers(): Promise<readonly Paper[]> {
    const papers: Paper[] = [];
    for (;;) {
      const page = await this.task({ type: 'papers', from: papers.length, count: PAPERS_PAGE }, {});
      papers.push(...page);
      if (page.length < PAPERS_PAGE) return papers;
    }
  }

  private task<T extends LibraryTask>(task: T, options: AddOptions): Promise<LibraryAnswers[T['type']]> {
    return this.request(this.started(), (id) => ({ kind: 'task', id, task }), options);
  }

  private request<R>(worker: Worker, message: (id: number) => HostToWorker, { signal, onProgress }: AddOptions): Promise<R> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      // Cancelled here at once; the worker stops at its next check and its answer is dropped.
      const aborted = (): void => {
        if (!this.pending.delete(id)) return;
        worker.postMessage({ kind: 'abort', id } satisfies HostToWorker);
        this.idle(worker);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', aborted, { once: true });
      const settle = (): void => signal?.removeEventListener('abort', aborted);
      // Only a thread with work pending keeps the process alive.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, {
        resolve: (value) => (settle(), resolve(value as R)),
        reject: (error) => (settle(), reject(error)),
        signal,
        onProgress,
      });
      worker.postMessage(message(id));
    });
  }

  private idle(worker: Worker): void {
    if (this.pending.size === 0) worker.unref();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.workerFile);
    worker.on('message', (message: WorkerToHost) => this.received(worker, message));
    const stop = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    worker.on('error', (error) => stop(new Error(`The paper library's thread failed: ${error.message}`)));
    worker.on('exit', (code) => stop(new Error(`The paper library's thread stopped (exit code ${code}).`)));
    this.worker = worker;
    if (this.current) worker.postMessage({ kind: 'setup', id: 0, setup: this.described() } satisfies HostToWorker);
    return worker;
  }

  private received(worker: Worker, message: WorkerToHost): void {
    switch (message.kind) {
      case 'done':
      case 'failed': {
        const pending = this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id);
        this.idle(worker);
        if (message.kind === 'done') pending.resolve(message.value);
        else pending.reject(message.aborted && pending.signal?.aborted ? pending.signal.reason : new Error(message.message));
        return;
      }
      case 'progress':
        this.pending.get(message.id)?.onProgress?.(message.done, message.total);
        return;
      case 'embed':
      case 'search':
        void this.callback(worker, message);
    }
  }

  /** Answers the worker's call for vectors or a live search, cancelled with the task it serves. */
  private async callback(worker: Worker, message: WorkerToHost & { kind: 'embed' | 'search' }): Promise<void> {
    const signal = this.pending.get(message.id)?.signal;
    let answer: HostToWorker;
    try {
      // The encoder and sources of an earlier setup are gone: vectors of another model must never be saved under its name.
      if (message.generation !== this.generation) throw new Error('The library was set up again with other settings meanwhile.');
      if (message.kind === 'embed') {
        const embedder = this.current?.encoder?.embedder;
        if (!embedder) throw new Error('The sentence encoder is no longer loaded.');
        answer = { kind: 'answer', call: message.call, vectors: await embedder.embed(message.texts, message.textKind, signal) };
      } else {
        const source = this.current?.liveSources?.[message.source];
        if (!source) throw new Error('The source is no longer configured.');
        answer = { kind: 'answer', call: message.call, records: await source.search(message.query, { signal }) };
      }
    } catch (error) {
      answer = { kind: 'answer', call: message.call, error: error instanceof Error ? error.message : String(error) };
    }
    if (this.worker === worker) worker.postMessage(answer);
  }

  /** The current setup as the worker reads it: the encoder and sources by name, since they stay here. */
  private described(): LibrarySetup {
    const setup = this.current as ThreadSetup;
    return {
      generation: this.generation,
      dir: setup.dir,
      encoder: setup.encoder?.model,
      missingEncoder: setup.missingEncoder,
      mode: setup.mode,
      sources: (setup.liveSources ?? []).map((source) => ({ id: source.id, name: source.name })),
    };
  }

  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    for (const pending of this.pending.values()) pending.reject(new Error("The paper library's thread was closed."));
    this.pending.clear();
    await worker?.terminate();
  }
}
