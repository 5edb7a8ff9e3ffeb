/**
 * The writer's own PDF of a cited work, read into passages: text through pdf.js in a worker thread
 * (pdfWorker.ts), reading order and running heads from pdfLayout.ts, headings, hyphenation and the
 * reference list from prose.ts, all in the worker. Every PDF that cannot be read gives a reason
 * instead, and the check goes on with the abstract. A reason in the file itself (encrypted, not a PDF,
 * damaged or truncated, no text layer, too large, not a regular file) holds for this version of the
 * file. When the reader gives up on a file (it ran out of time or memory, or crashed) that holds for
 * RETRY_GAVE_UP_MS (provider.ts keeps it by the file's path and size): a busy machine may run out of
 * time once, but a PDF bomb would otherwise cost the whole time limit on every check. Any other reason
 * (the file busy, empty or not readable for now) is `transient`, and the next check reads again.
 *
 * Readers take turns, one PDF at a time in a process, so that the memory limit bounds them all
 * together: four bombs cited in one manuscript cost the limit once, not four times at once.
 */
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { notRegularKind } from '../text/readFile';
import type { PdfAnswer, PdfRequest } from './pdfProtocol';
import type { FullTextResult } from './types';

export interface PdfLimits {
  /** Larger files are not read: a 300-page paper with figures is far below it. */
  readonly maxBytes: number;
  /** Pages read at most; a thesis or a book is read up to here. */
  readonly maxPages: number;
  readonly timeoutMs: number;
  /**
   * The reader's memory: its JavaScript heap (the worker's resource limit), and everything else the
   * process gains while it reads (the bytes of decoded streams, which no heap limit counts), watched
   * every MEMORY_WATCH_MS. A PDF that asks for more (a Flate bomb) ends the reader, not the editor.
   */
  readonly memoryMb: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { maxBytes: 100 * 1024 * 1024, maxPages: 600, timeoutMs: 60_000, memoryMb: 1536 };

/** How long a file version the reader gave up on is left alone, unless it changes. */
export const RETRY_GAVE_UP_MS = 24 * 60 * 60 * 1000;

/** How often the process's memory is looked at while a PDF is read: pdf.js inflates some hundreds of MB a second. */
const MEMORY_WATCH_MS = 20;

const MB = 1024 * 1024;

export async function readPdf(file: string, limits: PdfLimits = DEFAULT_PDF_LIMITS): Promise<FullTextResult> {
  const name = path.basename(file);
  let stat: Stats;
  try {
    stat = await fs.stat(file);
  } catch (error) {
    return { reason: `${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, transient: true };
  }
  const kind = notRegularKind(stat);
  if (kind) return { reason: `${name} is ${kind}, not a regular file; Attest reads only regular files` };
  // What /proc and /sys files report, however much they hold (/proc/self/pagemap: gigabytes).
  if (stat.size === 0) return { reason: `${name} is empty, or a special file that reports no size (such as one under /proc); it was not read`, transient: true };
  if (stat.size > limits.maxBytes) return { reason: `${name} is ${sizeOf(stat.size)}, more than the ${sizeOf(limits.maxBytes)} Attest reads` };
  const answer = await inTurn(() => inWorker({ file, maxPages: limits.maxPages, maxBytes: limits.maxBytes }, limits));
  if ('gaveUp' in answer) return gaveUp(name, answer.gaveUp);
  if (!answer.ok) return answer.lasting ? { reason: `${name}: ${answer.reason}` } : { reason: `${name}: ${answer.reason}`, transient: true };
  if (!answer.hasTextLayer) return { reason: `${name} has no text layer (a scan?); the abstract is used instead` };
  if (answer.passages.length === 0) return { reason: `${name} has no readable paragraphs` };
  return { fullText: { source: 'pdf', location: file, passages: answer.passages } };
}

function sizeOf(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${Math.ceil(bytes / 1024)} KB`;
}

function gaveUp(name: string, why: string): FullTextResult {
  const now = Date.now();
  const hours = Math.round(RETRY_GAVE_UP_MS / 3_600_000);
  return {
    reason: `${name}: not read: the PDF reader gave up on it (${why}) at ${utcMinute(now)}; it is tried again after the file changes or in ${hours} hours`,
    retryAt: now + RETRY_GAVE_UP_MS,
  };
}

function utcMinute(time: number): string {
  return `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The worker's answer, or why the reader gave up on the file: out of time, out of memory, crashed. */
type Outcome = PdfAnswer | { readonly ok: false; readonly gaveUp: string };

let turns: Promise<unknown> = Promise.resolve();

/** `read` after the readers before it have ended, their memory given back. */
function inTurn<T>(read: () => Promise<T>): Promise<T> {
  const mine = turns.then(read);
  turns = mine.catch(() => undefined);
  return mine;
}

async function inWorker(request: PdfRequest, limits: PdfLimits): Promise<Outcome> {
  const before = process.memoryUsage.rss();
  // The heap limit ends a worker whose objects grow; the watch, one whose decoded bytes do.
  const worker = new Worker(path.join(__dirname, 'pdfWorker.js'), { workerData: request, resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb } });
  let timer: NodeJS.Timeout | undefined;
  let watch: NodeJS.Timeout | undefined;
  const outcome = await new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, gaveUp: `timeout: reading it took longer than ${Math.round(limits.timeoutMs / 1000)} s` }), limits.timeoutMs);
    watch = setInterval(() => {
      const grown = process.memoryUsage.rss() - before;
      if (grown > limits.memoryMb * MB) resolve({ ok: false, gaveUp: `memory: reading it took more than the ${limits.memoryMb} MB the reader may use` });
    }, MEMORY_WATCH_MS);
    worker.once('message', (answer: PdfAnswer) => resolve(answer));
    worker.once('error', (error: Error & { code?: string }) =>
      resolve({ ok: false, gaveUp: error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `memory: its objects took more than the ${limits.memoryMb} MB the reader may use` : `crash: ${error.message}` }),
    );
    worker.once('exit', (code) => resolve({ ok: false, gaveUp: `crash: exit code ${code}` }));
  });
  clearTimeout(timer);
  clearInterval(watch);
  // Ended before the next reader's turn, so that its memory is not counted against that one.
  await worker.terminate();
  return outcome;
}
