/**
 * The full text a claim is judged against: the writer's own PDF first (it is the version they read),
 * else an open full text from the services. Reasons from every place tried are kept, so the user
 * learns why a citation was judged on its abstract alone.
 */
import { promises as fs } from 'node:fs';
import type { Paper } from '../papers/paper';
import type { FullTextProvider } from './types';
import type { FullTextFinder } from './find';
import { firstExisting, pdfCandidates, PdfFolder } from './localPdfs';
import { DEFAULT_PDF_LIMITS, readPdf, type PdfLimits } from './pdf';
import type { FullTextStore } from './store';
import { pickPassages } from './pick';
import { passagePlace, type FullText, type FullTextResult } from './types';

export interface FullTextOptions {
  /** Open full texts from the services; none when the user turned them off. */
  readonly finder?: FullTextFinder;
  readonly store?: FullTextStore;
  /** A folder of PDFs searched by DOI and title for entries without a `file` field. */
  readonly pdfFolder?: string;
  readonly pdfLimits?: PdfLimits;
}

/**
 * The provider for one run (a check, a CLI invocation): the PDF folder is walked once for all its
 * entries, and what of it could not be searched is told once through `warn`.
 */
export function fullTextProvider(options: FullTextOptions, warn?: (message: string) => void): FullTextProvider {
  const folder = options.pdfFolder ? new PdfFolder(options.pdfFolder, warn) : undefined;
  return async (entry, ids, signal) => {
    const reasons: string[] = [];
    const pdf = (await firstExisting(pdfCandidates(entry))) ?? (await folder?.find(entry.title, ids));
    if (pdf) {
      const read = await readStoredPdf(pdf, options);
      if ('fullText' in read) return read;
      reasons.push(read.reason);
    } else {
      if (entry.pdfs?.length) reasons.push(`the PDF of the file field was not found (${entry.pdfs[0]})`);
      // Not found in a folder searched in part is not "no PDF": it may be in what was skipped.
      const unsearched = await folder?.unsearched();
      if (unsearched) reasons.push(`not found in the PDF folder, which was not searched in full: ${unsearched}`);
    }
    if (options.finder) {
      const found = await options.finder.find(ids, signal);
      if ('fullText' in found) return found;
      reasons.push(found.reason);
    }
    return reasons.length > 0 ? { reason: reasons.join('; ') } : undefined;
  };
}

/** Where a passage is and what it says, as Find Evidence shows it under a result. */
export interface PassageAtHand {
  readonly place: string;
  readonly text: string;
}

/**
 * For one search's results (works found, not cited entries): each one's best passage for the claim when
 * its full text is at hand, a PDF of the folder or what an earlier check stored. Asks no service, so
 * showing the results stays quick; the folder is walked once for all of them.
 */
export async function passagesAtHand(claim: string, papers: readonly Paper[], options: FullTextOptions): Promise<(PassageAtHand | undefined)[]> {
  const folder = options.pdfFolder ? new PdfFolder(options.pdfFolder) : undefined;
  const atHand = async (paper: Paper): Promise<FullText | undefined> => {
    const ids = { doi: paper.doi, arxivId: paper.arxivId };
    const pdf = await folder?.find(paper.title, ids);
    const read = pdf ? await readStoredPdf(pdf, options) : undefined;
    if (read && 'fullText' in read) return read.fullText;
    return options.finder?.stored(ids);
  };
  return Promise.all(
    papers.map(async (paper) => {
      const fullText = await atHand(paper).catch(() => undefined);
      const [best] = fullText ? pickPassages(claim, fullText.passages, 1) : [];
      return best && { place: passagePlace(best), text: best.text };
    }),
  );
}

/**
 * A PDF is read once per version of the file: the store keys what was read by its real path, size and
 * modification time. That the reader gave up on it is kept by real path and size alone, so a file
 * whose time keeps moving (a link to a /proc file, one a sync tool touches) does not cost the reader's
 * whole limit at every check; a file replaced by another is nearly always of another size.
 */
async function readStoredPdf(file: string, options: FullTextOptions): Promise<FullTextResult> {
  const stat = await fs.stat(file).catch(() => undefined);
  const real = stat && (await fs.realpath(file).catch(() => file));
  const version = stat && `pdf:${real}:${stat.size}:${Math.trunc(stat.mtimeMs)}`;
  const gaveUpOn = stat && `pdf-gave-up:${real}:${stat.size}`;
  for (const key of [version, gaveUpOn]) {
    const stored = key ? await options.store?.get(key) : undefined;
    if (stored) return stored;
  }
  const read = await readPdf(file, options.pdfLimits ?? DEFAULT_PDF_LIMITS);
  const key = 'reason' in read && read.retryAt !== undefined ? gaveUpOn : version;
  if (key) await options.store?.set(key, read);
  return read;
}
