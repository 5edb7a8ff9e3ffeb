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
 */
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { notRegularKind } from '../text/readFile';
import type { PdfAnswer } from './pdfProtocol';
import { DEFAULT_READER_LIMITS, inReaderThread, type ReaderLimits } from './readerThread';
import type { FullTextResult } from './types';

export interface PdfLimits extends ReaderLimits {
  /** Larger files are not read: a 300-page paper with figures is far below it. */
  readonly maxBytes: number;
  /** Pages read at most; a thesis or a book is read up to here. */
  readonly maxPages: number;
}

export const DEFAULT_PDF_LIMITS: PdfLimits = { maxBytes: 100 * 1024 * 1024, maxPages: 600, ...DEFAULT_READER_LIMITS };

/** How long a file version the reader gave up on is left alone, unless it changes. */
export const RETRY_GAVE_UP_MS = 24 * 60 * 60 * 1000;

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
  const answer = await inReaderThread<PdfAnswer>({ kind: 'pdf', file, maxPages: limits.maxPages, maxBytes: limits.maxBytes }, limits);
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
