/**
 * The writer's own PDF of a cited work, read into passages: text through pdf.js in a worker thread
 * (pdfWorker.ts), reading order and running heads from pdfLayout.ts, headings, hyphenation and the
 * reference list from prose.ts. Every PDF that cannot be read gives a reason instead, and the check
 * goes on with the abstract. A reason in the file itself (encrypted, not a PDF, damaged or truncated,
 * no text layer, too large) holds for this version of the file. When the reader gives up on a file
 * (it ran out of time or memory, or crashed) that holds for this version for RETRY_GAVE_UP_MS: a busy
 * machine may run out of time once, but a PDF bomb would otherwise cost the whole time limit on every
 * check. Any other reason (the file busy or not readable for now) is `transient`, and the next check reads again.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { linesOfPdf } from './pdfLayout';
import type { PdfAnswer, PdfRequest } from './pdfProtocol';
import { passagesFromLines } from './prose';
import type { FullTextResult } from './types';

export interface PdfLimits {
  /** Larger files are not read: a 300-page paper with figures is far below it. */
  readonly maxBytes: number;
  /** Pages read at most; a thesis or a book is read up to here. */
  readonly maxPages: number;
  readonly timeoutMs: number;
  /**
   * The reader's JavaScript heap, so that a PDF asking for unbounded memory ends the reader (a crash),
   * not the editor. The bytes of decoded streams are not counted in it: a Flate bomb is bounded by
   * `timeoutMs` (a 1 GiB one reaches about 1.1 GB first) and, being remembered, costs that once a day.
   */
  readonly memoryMb: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { maxBytes: 100 * 1024 * 1024, maxPages: 600, timeoutMs: 60_000, memoryMb: 1536 };

/** How long a file version the reader gave up on is left alone, unless it changes. */
export const RETRY_GAVE_UP_MS = 24 * 60 * 60 * 1000;

/** A page with fewer characters than this has no text layer to speak of: a scan, or only figures. */
const MIN_CHARS_PER_PAGE = 20;

export async function readPdf(file: string, limits: PdfLimits = DEFAULT_PDF_LIMITS): Promise<FullTextResult> {
  const name = path.basename(file);
  let size: number;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return { reason: `${name} is not a file` };
    size = stat.size;
  } catch (error) {
    return { reason: `${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, transient: true };
  }
  if (size > limits.maxBytes) return { reason: `${name} is ${sizeOf(size)}, more than the ${sizeOf(limits.maxBytes)} Attest reads` };
  const answer = await inWorker({ file, maxPages: limits.maxPages }, limits);
  if ('gaveUp' in answer) return gaveUp(name, answer.gaveUp);
  if (!answer.ok) return answer.lasting ? { reason: `${name}: ${answer.reason}` } : { reason: `${name}: ${answer.reason}`, transient: true };
  const characters = answer.pages.reduce((sum, page) => sum + page.items.reduce((n, item) => n + item.text.trim().length, 0), 0);
  if (characters < MIN_CHARS_PER_PAGE * Math.max(1, answer.pages.length)) return { reason: `${name} has no text layer (a scan?); the abstract is used instead` };
  const { passages: all } = passagesFromLines(linesOfPdf(answer.pages));
  // Before the first heading stand the title, the authors and their addresses: not what a claim cites.
  const firstSection = all.findIndex((p) => p.section !== '');
  const passages = firstSection > 0 ? all.slice(firstSection) : all;
  if (passages.length === 0) return { reason: `${name} has no readable paragraphs` };
  return { fullText: { source: 'pdf', location: file, passages } };
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

function inWorker(request: PdfRequest, limits: PdfLimits): Promise<Outcome> {
  return new Promise((resolve) => {
    // A hostile PDF can ask for unbounded memory; the worker, not the editor, runs out.
    const worker = new Worker(path.join(__dirname, 'pdfWorker.js'), { workerData: request, resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb } });
    const finish = (outcome: Outcome): void => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: false, gaveUp: `timeout: reading it took longer than ${Math.round(limits.timeoutMs / 1000)} s` }), limits.timeoutMs);
    worker.once('message', (answer: PdfAnswer) => finish(answer));
    worker.once('error', (error) => finish({ ok: false, gaveUp: `crash: ${error.message}` }));
    worker.once('exit', (code) => finish({ ok: false, gaveUp: `crash: exit code ${code}` }));
  });
}
