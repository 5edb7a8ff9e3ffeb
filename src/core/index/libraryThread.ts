/**
 * The paper library in a worker thread of its own (libraryWorker.ts): the store, its indexes, imports
 * and searches run there, so that 100,000 papers load and are searched without holding the extension
 * host. This side keeps what needs the host's connections, the sentence encoder and the live sources,
 * and answers the worker's calls for them.
 *
 *   const thread = new LibraryThread();
 *   const messages = await thread.setUp({ dir, encoder: { model, embedder }, liveSources });
 *   await thread.find({ text: claim, limit: 10, signal });      // as PaperLibrary.find
 *   await thread.complete('residual lear', 100, signal);       // [{ key: 'he2016deep', paper }]
 */
import * as path from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { PaperMatch } from '../completion/libraryKeys';
import type { EvidenceFinder, EvidenceQuery, EvidenceResults, SearchMode } from '../evidence';
import { OnDemandWorker } from '../onDemandWorker';
import type { PaperFormat } from '../papers/import';
import type { Paper } from '../papers/paper';
import type { PaperSource } from '../sources/types';
import type { AddOptions, Encoder } from './library';
import type { SolrTarget } from './solr/client';
import type { HostToWorker, ImportSummary, LibraryAnswers, LibrarySetup, LibraryTask, RerankerSetup, WorkerToHost } from './libraryProtocol';

export interface ThreadSetup {
  readonly dir: string;
  readonly encoder?: Encoder;
  readonly missingEncoder?: 'not-configured' | 'not-downloaded';
  readonly mode?: SearchMode;
  /** The reranker that reorders the top of each search (see `LibrarySetup`). */
  readonly reranker?: RerankerSetup;
  readonly liveSources?: readonly PaperSource[];
  /** Searches go to this collection on SolrCloud instead of the store (see `SolrLibrary`). */
  readonly solr?: SolrTarget;
}

interface Pending {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly signal?: AbortSignal;
  readonly onProgress?: (done: number, total: number) => void;
  readonly onLibraryResults?: (results: EvidenceResults) => void;
}

export class LibraryThread implements EvidenceFinder {
  private readonly worker: OnDemandWorker<Pending>;
  private nextId = 1;
  /** The last setup: a worker started after one died is set up again with it. */
  private current: ThreadSetup | undefined;
  private generation = 0;

  constructor(workerFile = path.join(__dirname, 'libraryWorker.js')) {
    this.worker = new OnDemandWorker<Pending>(workerFile, "The paper library's thread", (worker) => {
      worker.on('message', (message: WorkerToHost) => this.received(worker, message));
      if (this.current) worker.postMessage({ kind: 'setup', id: 0, setup: this.described() } satisfies HostToWorker);
    });
  }

  /** Opens the store in `dir` (once per worker) with this encoder and these sources; returns what was repaired. */
  setUp(setup: ThreadSetup): Promise<readonly string[]> {
    // Started before the setup is taken, so that a new worker is not set up twice.
    this.worker.start();
    this.current = setup;
    this.generation++;
    return this.request<readonly string[]>((id) => ({ kind: 'setup', id, setup: this.described() }), {});
  }

  find(query: EvidenceQuery): Promise<EvidenceResults> {
    const { onLibraryResults } = query;
    return this.request(
      (id) => ({
        kind: 'task',
        id,
        task: { type: 'find', text: query.text, limit: query.limit, openAccessOnly: query.openAccessOnly, libraryFirst: onLibraryResults !== undefined },
      }),
      {
        signal: query.signal,
        onLibraryResults,
      },
    );
  }

  /**
   * Adds papers (embedded, indexed, saved); with `onlyNew`, only those the library lacks; with
   * `embedLater`, not embedded until `embedMissing`. Returns how many it added.
   */
  add(papers: readonly Paper[], options: AddOptions & { readonly onlyNew?: boolean; readonly embedLater?: boolean } = {}): Promise<number> {
    return this.task({ type: 'add', papers, onlyNew: options.onlyNew, embedLater: options.embedLater }, options);
  }

  /** Reads a JSONL, BibTeX or RIS file in the worker and adds its papers. */
  importFile(file: string, format: PaperFormat, options: AddOptions & { readonly embedLater?: boolean } = {}): Promise<ImportSummary> {
    return this.task({ type: 'import', file, format, embedLater: options.embedLater }, options);
  }

  /** Embeds the papers saved without a vector of the encoder; returns how many. */
  embedMissing(options: AddOptions = {}): Promise<number> {
    return this.task({ type: 'embedMissing' }, options);
  }

  /**
   * How many papers have no vector of the encoder (undefined without one). Asked after a stop, it
   * counts what the stop left: the thread has taken the stop before this task, and saves nothing after it.
   */
  unembedded(): Promise<number | undefined> {
    return this.task({ type: 'unembedded' }, {});
  }

  /**
   * Citation completion: the library's papers that match `typed`, best first, at most `limit`, each
   * with the key it would be cited by. Matched in the worker, which indexes its papers for this at the
   * first call and those added since at each later one, meanwhile answering from what it has indexed:
   * the extension host never holds the library's papers nor searches them.
   */
  complete(typed: string, limit: number, signal?: AbortSignal): Promise<readonly PaperMatch[]> {
    return this.task({ type: 'complete', typed, limit }, { signal });
  }

  private task<T extends LibraryTask>(task: T, options: AddOptions): Promise<LibraryAnswers[T['type']]> {
    return this.request((id) => ({ kind: 'task', id, task }), options);
  }

  private request<R>(message: (id: number) => HostToWorker, { signal, onProgress, onLibraryResults }: AddOptions & Pick<Pending, 'onLibraryResults'>): Promise<R> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      const settle = (): void => signal?.removeEventListener('abort', aborted);
      const worker = this.worker.wait(id, {
        resolve: (value) => (settle(), resolve(value as R)),
        reject: (error) => (settle(), reject(error)),
        signal,
        onProgress,
        onLibraryResults,
      });
      // Cancelled here at once; the worker stops at its next check and its answer is dropped.
      const aborted = (): void => {
        if (!this.worker.settle(id)) return;
        worker.postMessage({ kind: 'abort', id } satisfies HostToWorker);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', aborted, { once: true });
      worker.postMessage(message(id));
    });
  }

  private received(worker: Worker, message: WorkerToHost): void {
    switch (message.kind) {
      case 'done':
      case 'failed': {
        const pending = this.worker.settle(message.id);
        if (!pending) return;
        if (message.kind === 'done') pending.resolve(message.value);
        else pending.reject(message.aborted && pending.signal?.aborted ? pending.signal.reason : new Error(message.message));
        return;
      }
      case 'progress':
        this.worker.waiting(message.id)?.onProgress?.(message.done, message.total);
        return;
      case 'libraryResults':
        this.worker.waiting(message.id)?.onLibraryResults?.(message.results);
        return;
      case 'embed':
      case 'search':
        void this.callback(worker, message);
    }
  }

  /** Answers the worker's call for vectors or a live search, cancelled with the task it serves. */
  private async callback(worker: Worker, message: WorkerToHost & { kind: 'embed' | 'search' }): Promise<void> {
    const signal = this.worker.waiting(message.id)?.signal;
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
    if (this.worker.isRunning(worker)) worker.postMessage(answer);
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
      reranker: setup.reranker,
      sources: (setup.liveSources ?? []).map((source) => ({ id: source.id, name: source.name })),
      ...(setup.solr !== undefined && { solr: setup.solr }),
    };
  }

  dispose(): Promise<void> {
    return this.worker.dispose();
  }
}
