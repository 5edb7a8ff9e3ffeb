/**
 * Where the writer keeps a cited work's PDF: the entry's `file` field (absolute, or relative to the
 * .bib), else a folder of PDFs (`attest.fullText.pdfFolder`) searched by the DOI or the title in the
 * file's name, as reference managers name files ("Smith - 2020 - Caching at scale.pdf").
 */
import { promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import type { BibEntry } from '../bibliography/types';
import type { WorkIds } from './types';

/** Enough words of a title to tell it apart in a file name, few enough to survive a manager's shortening. */
const TITLE_WORDS = 5;

/** How much of a folder of PDFs is searched, so that pointing it at a home directory costs little. */
export interface PdfFolderLimits {
  /** Levels of folders below it. */
  readonly maxDepth: number;
  /** Files and folders seen in all. */
  readonly maxEntries: number;
}

export const PDF_FOLDER_LIMITS: PdfFolderLimits = { maxDepth: 3, maxEntries: 20_000 };

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

/**
 * The first candidate that exists, or undefined. Whatever it is: the PDF reader says why it does not
 * read a folder, a FIFO or a /proc file, where skipping it would say only that there is no PDF.
 */
export async function firstExisting(candidates: readonly string[]): Promise<string | undefined> {
  for (const candidate of candidates) {
    if (
      await fs.stat(candidate).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/**
 * The writer's folder of PDFs (`attest.fullText.pdfFolder`), walked once, at the first lookup, for
 * every entry of a run. Symbolic links are followed, each folder read once however many links lead to
 * it. What the walk could not search (an unreadable folder, the limits) is told once through `warn`,
 * and is the reason given for a work not found there: a PDF may be in what was skipped.
 */
export class PdfFolder {
  private walked?: Promise<FolderListing>;

  constructor(
    readonly folder: string,
    private readonly warn: (message: string) => void = () => undefined,
    private readonly limits: PdfFolderLimits = PDF_FOLDER_LIMITS,
  ) {}

  /** A PDF whose name holds the work's DOI or the start of its title. */
  async find(title: string | undefined, ids: WorkIds): Promise<string | undefined> {
    const doiKeys = ids.doi ? [ids.doi, ids.doi.replace(/\//g, '_'), ids.doi.replace(/\//g, '-')].map(fold) : [];
    const words = fold(title ?? '')
      .split(' ')
      .filter((w) => w !== '');
    const titleKey = words.length >= 3 ? words.slice(0, TITLE_WORDS).join(' ') : undefined;
    if (doiKeys.length === 0 && titleKey === undefined) return undefined;
    const { pdfs } = await this.listing();
    return pdfs.find(({ name }) => doiKeys.some((key) => name.includes(key)) || (titleKey !== undefined && name.includes(titleKey)))?.file;
  }

  /** What the walk could not search, as a sentence; undefined when it searched everything. */
  async unsearched(): Promise<string | undefined> {
    return (await this.listing()).unsearched;
  }

  private listing(): Promise<FolderListing> {
    this.walked ??= walk(this.folder, this.limits).then((listing) => {
      if (listing.unsearched) this.warn(`The PDF folder ${this.folder} was not searched in full: ${listing.unsearched}.`);
      return listing;
    });
    return this.walked;
  }
}

interface FolderListing {
  /** Each PDF with its name folded as titles are. */
  readonly pdfs: readonly { readonly file: string; readonly name: string }[];
  readonly unsearched?: string;
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

async function walk(folder: string, limits: PdfFolderLimits): Promise<FolderListing> {
  const pdfs: { file: string; name: string }[] = [];
  const unreadable: { dir: string; why: string }[] = [];
  const root = await fs.stat(folder).catch((error: NodeJS.ErrnoException) => error);
  if (root instanceof Error) return { pdfs, unsearched: root.code === 'ENOENT' ? 'it does not exist' : `it cannot be read (${why(root)})` };
  if (!root.isDirectory()) return { pdfs, unsearched: 'it is not a folder' };
  // By device and inode: a link back to a folder already read (a loop) leads nowhere new.
  const seen = new Set([identity(root)]);
  const queue = [{ dir: folder, depth: 0 }];
  let entries = 0;
  let tooDeep: string | undefined;
  let full = false;
  // An index, not shift(): the walk stays linear in the folders it reads.
  for (let next = 0; next < queue.length && !full; next++) {
    const { dir, depth } = queue[next];
    const listed = await fs.readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => error);
    if (listed instanceof Error) {
      unreadable.push({ dir, why: why(listed) });
      continue;
    }
    for (const entry of listed) {
      if (++entries > limits.maxEntries) {
        full = true;
        break;
      }
      if (entry.name.startsWith('.')) continue;
      const file = path.join(dir, entry.name);
      // Whatever is named like a PDF and is no folder, so the reader says why it does not read a FIFO or a link to /proc.
      if (/\.pdf$/i.test(entry.name) && !entry.isDirectory() && (!entry.isSymbolicLink() || (await isNotFolder(file)))) {
        pdfs.push({ file, name: fold(path.basename(file, path.extname(file))) });
        continue;
      }
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue;
      const stat = await fs.stat(file).catch((error: NodeJS.ErrnoException) => error);
      if (stat instanceof Error) {
        // A link to nothing is no folder left unsearched; one that cannot be followed may be.
        if (stat.code !== 'ENOENT') unreadable.push({ dir: file, why: why(stat) });
        continue;
      }
      if (!stat.isDirectory() || seen.has(identity(stat))) continue;
      seen.add(identity(stat));
      if (depth < limits.maxDepth) queue.push({ dir: file, depth: depth + 1 });
      else tooDeep ??= file;
    }
  }
  const parts: string[] = [];
  if (unreadable.length > 0) {
    const named = unreadable.slice(0, 3).map((u) => `${u.dir} (${u.why})`);
    parts.push(
      `${unreadable.length} folder${unreadable.length === 1 ? '' : 's'} could not be read and ${unreadable.length === 1 ? 'was' : 'were'} skipped: ${named.join(', ')}${unreadable.length > 3 ? ', …' : ''}`,
    );
  }
  if (full) parts.push(`it holds more than ${limits.maxEntries.toLocaleString('en-US')} files and folders, and those after them were not searched`);
  if (tooDeep) parts.push(`folders more than ${limits.maxDepth} levels down, such as ${tooDeep}, were not searched`);
  return parts.length > 0 ? { pdfs, unsearched: parts.join('; ') } : { pdfs };
}

function identity(stat: Stats): string {
  return `${stat.dev}:${stat.ino}`;
}

/** A link's target exists and is no folder. */
async function isNotFolder(file: string): Promise<boolean> {
  const stat = await fs.stat(file).catch(() => undefined);
  return stat !== undefined && !stat.isDirectory();
}

function why(error: NodeJS.ErrnoException): string {
  return error.code === 'EACCES' || error.code === 'EPERM' ? 'permission denied' : (error.code ?? error.message);
}
