import * as path from 'node:path';
import { PaperLibrary, type Encoder } from '../core/index/library';
import { StoreError } from '../core/index/store';
import { ModelError } from '../core/models/errors';
import { OnnxEmbedder } from '../core/models/embedder';
import { formatOf, importPapers, type ImportResult } from '../core/papers/import';
import type { Paper } from '../core/papers/paper';
import { parseCommandLine } from './args';
import { LARGEST_TEXT_BYTES, readNamedTextFile } from '../core/text/readFile';
import type { Console } from './main';
import { forTerminal, showProgress } from './terminal';

export const INDEX_USAGE = `Usage: attest index add FILE... --store DIR [--embed-model DIR]

Adds papers to the paper library in DIR, which Find Evidence and attest search read (created if
needed). Files by extension: .jsonl (one object a line: id or _id, title, abstract or text, optional
authors, year, doi, arxivId, venue, openAccessUrl; BEIR's corpus.jsonl), .bib (entries with an
abstract) and .ris. A paper with an id the library has replaces it. Lines that cannot be read are
reported with their line numbers; the rest are imported.
  --embed-model DIR   an ONNX sentence encoder folder (or ATTEST_EMBED_MODEL) to embed the papers
                      with, for dense and hybrid search; papers added earlier without it are embedded too
Exit status: 0 imported, 2 usage or I/O failure.`;

/** How many problems of one file are listed before the rest are only counted. */
const SHOWN_PROBLEMS = 20;

/** `attest index add`. */
export async function indexCommand(args: readonly string[], io: Console): Promise<number> {
  const parsed = parseCommandLine('index', { args: [...args], allowPositionals: true, options: { store: { type: 'string' }, 'embed-model': { type: 'string' } } }, INDEX_USAGE, io);
  if (typeof parsed === 'number') return parsed;
  const [subcommand, ...files] = parsed.positionals;
  const { store } = parsed.values;
  if (subcommand !== 'add') return usage(io, subcommand === undefined ? 'no subcommand given' : `unknown subcommand '${subcommand}'`);
  if (files.length === 0) return usage(io, 'no file given');
  if (!store) return usage(io, '--store DIR is required');
  const papers: Paper[] = [];
  for (const file of files) {
    const format = formatOf(file);
    if (format === undefined) return usage(io, `cannot tell the format of ${file}: name it .jsonl, .bib or .ris`);
    let text: string;
    try {
      text = await readNamedTextFile(file, LARGEST_TEXT_BYTES);
    } catch (error) {
      io.err(`attest index: ${(error as Error).message}\n`);
      return 2;
    }
    const result = importPapers(text, format, path.resolve(file));
    reportImport(file, result, io);
    for (const paper of result.papers) papers.push(paper);
  }

  let encoder: Encoder | undefined;
  try {
    encoder = await loadEncoder(encoderDir(parsed.values['embed-model'], process.env));
    const { library, messages } = await PaperLibrary.open(store, { encoder });
    for (const message of messages) io.err(`attest index: ${message}\n`);
    await library.add(papers, { onProgress: progress('Embedding', encoder) });
    const embedded = await library.embedMissing({ onProgress: progress('Embedding earlier papers', encoder) });
    const vectors = library.store.encoder;
    const also = embedded > 0 ? `, embedded ${embedded} added earlier` : '';
    const size = `the library in ${store} holds ${library.store.size} papers${vectors ? ` (vectors: ${vectors.model}, ${vectors.dimension} dimensions)` : ''}`;
    io.out(`Added ${papers.length} papers${also}; ${forTerminal(size)}.\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ModelError) && !(error instanceof StoreError) && !isFileSystemError(error)) throw error;
    io.err(`attest index: ${(error as Error).message}\n`);
    return 2;
  } finally {
    await encoder?.embedder.dispose();
  }
}

/** The encoder folder the CLI was given: `--embed-model DIR`, else `ATTEST_EMBED_MODEL`. */
export function encoderDir(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return flag ?? (env.ATTEST_EMBED_MODEL?.trim() || undefined);
}

/** The encoder in `dir`, loaded and named by its folder. */
export async function loadEncoder(dir: string | undefined): Promise<Encoder | undefined> {
  if (dir === undefined) return undefined;
  const resolved = path.resolve(dir);
  return { model: path.basename(resolved), embedder: await OnnxEmbedder.load(resolved) };
}

/** An error of the store's files (permissions, a full disk), reported like an unreadable input. */
export function isFileSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

function reportImport(file: string, result: ImportResult, io: Console): void {
  for (const problem of result.problems.slice(0, SHOWN_PROBLEMS)) io.err(`attest index: ${file}:${problem.line}: ${problem.message}\n`);
  if (result.problems.length > SHOWN_PROBLEMS) io.err(`attest index: ${file}: ${result.problems.length - SHOWN_PROBLEMS} more lines could not be read\n`);
  if (result.leftOut > 0) io.err(`attest index: ${file}: ${result.leftOut} ${result.leftOut === 1 ? 'entry' : 'entries'} without an abstract left out\n`);
}

/** Progress on standard error while papers are embedded, when a person is watching. */
function progress(what: string, encoder: Encoder | undefined): ((done: number, total: number) => void) | undefined {
  if (!encoder || !process.stderr.isTTY) return undefined;
  return (done, total) => showProgress(what, done, total);
}

function usage(io: Console, problem: string): number {
  io.err(`attest index: ${problem}\n${INDEX_USAGE}\n`);
  return 2;
}
