/**
 * The worker thread of `LibraryThread` (libraryThread.ts): holds the paper library, so that loading,
 * indexing and searching 100,000 papers never holds the extension host. What needs the host (the
 * sentence encoder, the live sources) is asked of it by message.
 */
import { parentPort } from 'node:worker_threads';
import { PaperKeyIndex, type PaperMatch } from '../completion/libraryKeys';
import type { EvidenceFinder, EvidenceResults } from '../evidence';
import type { Embedder, TextKind } from '../models/embedder';
import { RerankerOnFirstUse } from '../models/reranker';
import { importFileInBatches, type ImportProblem } from '../papers/import';
import type { PaperSource, SourceRecord } from '../sources/types';
import { UnreadableFileError } from '../text/decode';
import { IMPORT_BATCH, PaperLibrary } from './library';
import type { HostToWorker, ImportSummary, LibraryAnswers, LibrarySetup, LibraryTask, RerankerSetup, WorkerToHost } from './libraryProtocol';
import { SolrLibrary } from './solr/library';
import { PaperStore, type OpenedStore } from './store/store';

/** Import problems sent back for the log: the count says how many more there were. */
const PROBLEMS_SHOWN = 20;

const port = parentPort;
if (!port) throw new Error('libraryWorker.js runs as a worker thread started by libraryThread.ts');
const post = (message: WorkerToHost): void => port.postMessage(message);

let opened: { readonly dir: string; readonly opening: Promise<OpenedStore> } | undefined;
let library: Promise<PaperLibrary> = Promise.reject(new Error('The paper library was not set up.'));
library.catch(() => undefined);
/** An institution's collection on SolrCloud, when the setup names one: searches and completions go to it instead of the library. */
let collection: Promise<SolrLibrary> | undefined;
/** What searches go to: the library, or the collection. */
let finder: Promise<EvidenceFinder> = library;

/** Each task's cancellation, and the task a signal belongs to, for the callbacks made on its behalf. */
const controllers = new Map<number, AbortController>();
const taskOfSignal = new WeakMap<AbortSignal, number>();
const calls = new Map<number, (answer: HostToWorker & { kind: 'answer' }) => void>();
let nextCall = 1;

function callHost(ask: (call: number, id: number) => WorkerToHost, signal: AbortSignal | undefined): Promise<HostToWorker & { kind: 'answer' }> {
  signal?.throwIfAborted();
  const call = nextCall++;
  return new Promise((resolve, reject) => {
    const aborted = (): void => {
      calls.delete(call);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
    calls.set(call, (answer) => {
      signal?.removeEventListener('abort', aborted);
      if (answer.error !== undefined) reject(new Error(answer.error));
      else resolve(answer);
    });
    post(ask(call, (signal && taskOfSignal.get(signal)) ?? 0));
  });
}

/** The encoder of the host's setup number `generation`, asked by message. */
function hostEmbedder(generation: number): Embedder {
  return {
    embed: async (texts: readonly string[], textKind: TextKind, signal?: AbortSignal) =>
      (await callHost((call, id) => ({ kind: 'embed', call, id, generation, texts, textKind }), signal)).vectors ?? [],
    dispose: async () => undefined,
  };
}

function hostSource(generation: number, source: LibrarySetup['sources'][number], at: number): PaperSource {
  return {
    id: source.id as PaperSource['id'],
    name: source.name,
    search: async (query, options): Promise<SourceRecord[]> =>
      (await callHost((call, id) => ({ kind: 'search', call, id, generation, source: at, query }), options?.signal)).records ?? [],
  };
}

let reranker: RerankerOnFirstUse | undefined;
/** Rerankers a later setup replaced: released once no search runs, since one may still be reordering with them. */
const retired: RerankerOnFirstUse[] = [];
let searching = 0;

/** The reranker `setup` names, kept while setups name the same one. */
function rerankerFor(setup: RerankerSetup | undefined): RerankerOnFirstUse | undefined {
  if (reranker?.dir === setup?.dir && reranker?.threads === setup?.threads && reranker?.optimizedCopies === setup?.optimizedCopies) return reranker;
  if (reranker) retired.push(reranker);
  reranker = setup && new RerankerOnFirstUse(setup.dir, setup.threads, setup.optimizedCopies);
  releaseRetired();
  return reranker;
}

function releaseRetired(): void {
  if (searching === 0) for (const old of retired.splice(0)) void old.dispose();
}

function storeIn(dir: string): Promise<OpenedStore> {
  if (opened?.dir === dir) return opened.opening;
  const opening = PaperStore.open(dir);
  // Unreadable now (permissions, I/O) is not unreadable for good: the next setup tries again.
  opening.catch(() => {
    if (opened?.opening === opening) opened = undefined;
  });
  opened = { dir, opening };
  return opening;
}

/** Sets the library up over the store in `setup.dir`; returns what was repaired, when the store was opened now. */
async function setUp(setup: LibrarySetup): Promise<readonly string[]> {
  const reopened = opened?.dir === setup.dir;
  const opening = storeIn(setup.dir);
  const reorderer = rerankerFor(setup.reranker);
  const reranker = reorderer && ((): ReturnType<RerankerOnFirstUse['get']> => reorderer.get());
  const encoder = setup.encoder === undefined ? undefined : { model: setup.encoder, embedder: hostEmbedder(setup.generation) };
  library = opening.then(
    ({ store }) =>
      new PaperLibrary(store, {
        encoder,
        missingEncoder: setup.missingEncoder,
        mode: setup.mode,
        reranker,
        liveSources: setup.sources.map((source, at) => hostSource(setup.generation, source, at)),
      }),
  );
  library.catch(() => undefined);
  collection = setup.solr && SolrLibrary.open(setup.solr, { encoder, mode: setup.mode, reranker });
  finder = collection ?? library;
  // A collection that cannot be opened now is the search's to report; the next setup tries again.
  finder.catch(() => undefined);
  await library;
  return reopened ? [] : (await opening).messages;
}

async function run(id: number, task: LibraryTask, signal: AbortSignal): Promise<LibraryAnswers[LibraryTask['type']]> {
  const ready = await library;
  const onProgress = (done: number, total: number): void => post({ kind: 'progress', id, done, total });
  switch (task.type) {
    case 'find':
      searching++;
      try {
        return await (
          await finder
        ).find({
          text: task.text,
          limit: task.limit,
          openAccessOnly: task.openAccessOnly,
          signal,
          ...(task.libraryFirst && { onLibraryResults: (results: EvidenceResults) => post({ kind: 'libraryResults', id, results }) }),
        });
      } finally {
        searching--;
        releaseRetired();
      }
    case 'add': {
      const papers = task.onlyNew ? task.papers.filter((paper) => !ready.store.has(paper.id)) : task.papers;
      if (papers.length > 0) await ready.add(papers, { signal, onProgress, embedLater: task.embedLater });
      return papers.length;
    }
    case 'import':
      return importFile(ready, task, signal, onProgress);
    case 'embedMissing':
      return ready.embedMissing({ signal, onProgress });
    case 'unembedded':
      return ready.unembedded();
    case 'complete':
      return collection ? (await collection).complete(task.typed, task.limit, signal) : complete(ready.store, task.typed, task.limit, signal);
  }
}

/** Citation completion's index of each store's papers: made at the first completion, not at load, which it would slow. */
const keyIndexes = new WeakMap<PaperStore, PaperKeyIndex>();

async function complete(store: PaperStore, typed: string, limit: number, signal: AbortSignal): Promise<readonly PaperMatch[]> {
  let index = keyIndexes.get(store);
  if (!index) {
    index = new PaperKeyIndex();
    keyIndexes.set(store, index);
  }
  // Papers added since the last completion are indexed in the background, a slice at a time; this one answers from what is indexed.
  void index.catchUp((from) => store.papers(from));
  // Let a newer keystroke's cancellation of this one arrive first: a writer typing on has moved past it.
  await new Promise((resolve) => setImmediate(resolve));
  signal.throwIfAborted();
  return index.complete(typed, limit);
}

async function importFile(
  ready: PaperLibrary,
  { file, format, embedLater }: Extract<LibraryTask, { type: 'import' }>,
  signal: AbortSignal,
  onProgress: (done: number, total: number) => void,
): Promise<ImportSummary> {
  let added = 0;
  let problemCount = 0;
  const problems: ImportProblem[] = [];
  try {
    for await (const batch of importFileInBatches(file, format, IMPORT_BATCH)) {
      problems.push(...batch.problems.slice(0, PROBLEMS_SHOWN - problems.length));
      problemCount += batch.problems.length;
      await ready.add(batch.papers, { signal, embedLater, onProgress: (done, total) => onProgress(added + done, added + total) });
      added += batch.papers.length;
    }
  } catch (error) {
    if (error instanceof UnreadableFileError) return { unreadable: error.message };
    throw error;
  }
  return { added, problemCount, problems };
}

async function answer(id: number, work: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const controller = new AbortController();
  controllers.set(id, controller);
  taskOfSignal.set(controller.signal, id);
  try {
    post({ kind: 'done', id, value: await work(controller.signal) });
  } catch (error) {
    post({ kind: 'failed', id, message: error instanceof Error ? error.message : String(error), aborted: controller.signal.aborted });
  } finally {
    controllers.delete(id);
  }
}

port.on('message', (message: HostToWorker) => {
  switch (message.kind) {
    case 'setup':
      void answer(message.id, () => setUp(message.setup));
      return;
    case 'task':
      void answer(message.id, (signal) => run(message.id, message.task, signal));
      return;
    case 'abort':
      controllers.get(message.id)?.abort(new Error('Cancelled.'));
      return;
    case 'answer': {
      const settle = calls.get(message.call);
      calls.delete(message.call);
      settle?.(message);
    }
  }
});
