/**
 * Where the writer keeps a cited work's PDF: the entry's `file` field (absolute, or relative to the
 * .bib), else a folder of PDFs (`attest.fullText.pdfFolder`) searched by the DOI or the title in the
 * file's name, as reference managers name files ("Smith - 2020 - Caching at scale.pdf").
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { BibEntry } from '../bibliography/types';
import type { WorkIds } from '../verify/claims';

/** Enough words of a title to tell it apart in a file name, few enough to survive a manager's shortening. */
const TITLE_WORDS = 5;
/** A folder of PDFs is searched this deep and this wide, so that pointing it at a home directory costs little. */
const MAX_DEPTH = 3;
const MAX_FILES = 20_000;

/** Candidate paths for the entry's PDFs, in the order to try them. */
export function pdfCandidates(entry: BibEntry): string[] {
  const base = path.dirname(entry.file);
  const candidates: string[] = [];
  for (const written of entry.pdfs ?? []) {
    const native = written.replace(/[\\/]+/g, path.sep);
    if (path.isAbsolute(native) || /^[A-Za-z]:[\\/]/.test(written)) {
      candidates.push(native);
      continue;
    }
    candidates.push(path.resolve(base, native));
    // Mendeley Desktop drops the leading slash of absolute paths.
    if (path.sep === '/') candidates.push(`/${native}`);
  }
  return candidates;
}

/** The first candidate that is a file, or undefined. */
export async function firstExisting(candidates: readonly string[]): Promise<string | undefined> {
  for (const candidate of candidates) {
    const stat = await fs.stat(candidate).catch(() => undefined);
    if (stat?.isFile()) return candidate;
  }
  return undefined;
}

/** A PDF in the folder whose name holds the work's DOI or the start of its title. */
export async function pdfInFolder(folder: string, title: string | undefined, ids: WorkIds): Promise<string | undefined> {
  const doiKeys = ids.doi ? [ids.doi, ids.doi.replace(/\//g, '_'), ids.doi.replace(/\//g, '-')].map(fold) : [];
  const words = fold(title ?? '').split(' ').filter((w) => w !== '');
  const titleKey = words.length >= 3 ? words.slice(0, TITLE_WORDS).join(' ') : undefined;
  if (doiKeys.length === 0 && titleKey === undefined) return undefined;
  for await (const file of pdfsUnder(folder)) {
    const name = fold(path.basename(file, path.extname(file)));
    if (doiKeys.some((key) => name.includes(key)) || (titleKey !== undefined && name.includes(titleKey))) return file;
  }
  return undefined;
}

/** Lower case, accents off, every run of other characters one space: file names and titles meet here. */
function fold(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

async function* pdfsUnder(folder: string): AsyncGenerator<string> {
  let seen = 0;
  const queue: { dir: string; depth: number }[] = [{ dir: folder, depth: 0 }];
  while (queue.length > 0) {
    const { dir, depth } = queue.shift() as { dir: string; depth: number };
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > MAX_FILES) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && depth < MAX_DEPTH && !entry.name.startsWith('.')) queue.push({ dir: full, depth: depth + 1 });
      else if (entry.isFile() && /\.pdf$/i.test(entry.name)) yield full;
    }
  }
}
