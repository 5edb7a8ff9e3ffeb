/**
 * The worker thread full texts are read in (pdfWorker.ts): the writer's PDFs, and the JATS, HTML and
 * plain text services send, so that neither a long paper nor a hostile one holds the extension host.
 * Each read gets a time limit and a memory limit: the worker's JavaScript heap, and what the process
 * gains while it reads (pdf.js's decoded streams are no heap's), looked at every MEMORY_WATCH_MS.
 * Readers take turns, one at a time in a process, so that the memory limit bounds them all together:
 * four PDF bombs cited in one manuscript cost the limit once, not four times at once.
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { FetchedFormat, FetchedTextAnswer, ReaderAnswer, ReaderRequest } from './pdfProtocol';
import type { Passage } from './types';

export interface ReaderLimits {
  readonly timeoutMs: number;
  /**
   * The reader's memory: its JavaScript heap (the worker's resource limit), and everything else the
   * process gains while it reads (the bytes of a PDF's decoded streams, which no heap limit counts).
   * A text that asks for more (a Flate bomb) ends the reader, not the editor.
   */
  readonly memoryMb: number;
}

/** A minute and 1.5 GB: a 300-page paper needs a fraction of either. */
export const DEFAULT_READER_LIMITS: ReaderLimits = { timeoutMs: 60_000, memoryMb: 1536 };

/** The worker's answer, or why the reader gave up on the text: out of time, out of memory, crashed. */
export type Outcome<A extends ReaderAnswer> = A | { readonly ok: false; readonly gaveUp: string };

/** How often the process's memory is looked at while a text is read: pdf.js inflates some hundreds of MB a second. */
const MEMORY_WATCH_MS = 20;

const MB = 1024 * 1024;

let turns: Promise<unknown> = Promise.resolve();

/** `read` after the readers before it have ended, their memory given back. */
function inTurn<T>(read: () => Promise<T>): Promise<T> {
  const mine = turns.then(read);
  turns = mine.catch(() => undefined);
  return mine;
}

/** The worker's answer to `request`, after the readers before it have ended. */
export function inReaderThread<A extends ReaderAnswer>(request: ReaderRequest, limits: ReaderLimits): Promise<Outcome<A>> {
  return inTurn(() => inWorker<A>(request, limits));
}

async function inWorker<A extends ReaderAnswer>(request: ReaderRequest, limits: ReaderLimits): Promise<Outcome<A>> {
  const before = process.memoryUsage.rss();
  // The heap limit ends a worker whose objects grow; the watch, one whose decoded bytes do.
  const worker = new Worker(path.join(__dirname, 'pdfWorker.js'), { workerData: request, resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb } });
  let timer: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  const outcome = await new Promise<Outcome<A>>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, gaveUp: `timeout: reading it took longer than ${Math.round(limits.timeoutMs / 1000)} s` }), limits.timeoutMs);
    watch = setInterval(() => {
      const grown = process.memoryUsage.rss() - before;
      if (grown > limits.memoryMb * MB) resolve({ ok: false, gaveUp: `memory: reading it took more than the ${limits.memoryMb} MB the reader may use` });
    }, MEMORY_WATCH_MS);
    worker.once('message', (answer: A) => resolve(answer));
    worker.once('error', (error: Error & { code?: string }) =>
      resolve({
        ok: false,
        gaveUp: error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `memory: its objects took more than the ${limits.memoryMb} MB the reader may use` : `crash: ${error.message}`,
      }),
    );
    worker.once('exit', (code) => resolve({ ok: false, gaveUp: `crash: exit code ${code}` }));
  });
  clearTimeout(timer);
  clearInterval(watch);
  // Ended before the next reader's turn, so that its memory is not counted against that one.
  await worker.terminate();
  return outcome;
}

/** A full text a service sent, read into passages in the worker; why not, when it gave up on it. */
export async function readFetchedText(format: FetchedFormat, text: string, limits: ReaderLimits = DEFAULT_READER_LIMITS): Promise<{ passages: Passage[] } | { reason: string }> {
  const answer = await inReaderThread<FetchedTextAnswer>({ kind: 'fetched', format, text }, limits);
  return 'gaveUp' in answer ? { reason: `the full text was not read: the reader gave up on it (${answer.gaveUp})` } : answer.read;
}
