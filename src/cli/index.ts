import { counted } from './counted';
import { PaperLibrary, type Encoder } from '../core/index/library';
import { StoreError } from '../core/index/store';
import { ModelError } from '../core/models/errors';
import { formatOf, importFileInBatches, type ImportResult, type PaperFormat } from '../core/papers/import';
import { parseCommandLine } from './args';
import { UnreadableFileError } from '../core/text/decode';
import type { Console } from './main';
import { encoderDir, isFileSystemError, loadEncoder, replacingVectors } from './encoder';
import { forTerminal, showProgress } from './terminal';
import { IMPORT_BATCH } from '../core/index/library';

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
  const formats = files.map(formatOf);
  const unknown = files.find((_, at) => formats[at] === undefined);
  if (unknown !== undefined) return usage(io, `cannot tell the format of ${unknown}: name it .jsonl, .bib or .ris`);

  let encoder: Encoder | undefined;
  try {
    encoder = await loadEncoder(encoderDir(parsed.values['embed-model'], process.env));
    const { library, messages } = await PaperLibrary.open(store, { encoder });
    for (const message of messages) io.err(`attest index: ${message}\n`);
    const replacing = replacingVectors('index', library.store.encoder?.model, encoder, library.store.size);
    if (replacing !== undefined) io.err(replacing);
    let added = 0;
    for (const [at, file] of files.entries()) {
      const problems = new ProblemReport(file, io);
      for await (const batch of importFileInBatches(file, formats[at] as PaperFormat, IMPORT_BATCH)) {
        problems.add(batch);
        await library.add(batch.papers, { onProgress: progress('Embedding', encoder, added) });
        added += batch.papers.length;
      }
      problems.finish();
    }
    const embedded = await library.embedMissing({ onProgress: progress('Embedding earlier papers', encoder) });
    const vectors = library.store.encoder;
    const also = embedded > 0 ? `, embedded ${embedded} added earlier` : '';
    const size = `the library in ${store} holds ${counted(library.store.size, 'paper', 'papers')}${vectors ? ` (vectors: ${vectors.model}, ${vectors.dimension} dimensions)` : ''}`;
    io.out(`Added ${counted(added, 'paper', 'papers')}${also}; ${forTerminal(size)}.\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ModelError) && !(error instanceof StoreError) && !(error instanceof UnreadableFileError) && !isFileSystemError(error)) throw error;
    io.err(`attest index: ${(error as Error).message}\n`);
    return 2;
  } finally {
    await encoder?.embedder.dispose();
  }
}

/** A file's unreadable lines, the first few listed as they come and the rest counted at the end. */
class ProblemReport {
  private problems = 0;
  private leftOut = 0;

  constructor(
    private readonly file: string,
    private readonly io: Console,
  ) {}

  add(result: ImportResult): void {
    for (const problem of result.problems) {
      if (this.problems++ < SHOWN_PROBLEMS) this.io.err(`attest index: ${this.file}:${problem.line}: ${problem.message}\n`);
    }
    this.leftOut += result.leftOut;
  }

  finish(): void {
    if (this.problems > SHOWN_PROBLEMS) this.io.err(`attest index: ${this.file}: ${this.problems - SHOWN_PROBLEMS} more lines could not be read\n`);
    if (this.leftOut > 0) this.io.err(`attest index: ${this.file}: ${this.leftOut} ${this.leftOut === 1 ? 'entry' : 'entries'} without an abstract left out\n`);
  }
}

/** Progress on standard error while papers are embedded, when a person is watching; `before` were embedded by earlier batches. */
function progress(what: string, encoder: Encoder | undefined, before = 0): ((done: number, total: number) => void) | undefined {
  if (!encoder || !process.stderr.isTTY) return undefined;
  return (done, total) => showProgress(what, before + done, before + total);
}

function usage(io: Console, problem: string): number {
  io.err(`attest index: ${problem}\n${INDEX_USAGE}\n`);
  return 2;
}
