import { counted } from './counted';
import { type Encoder, formatOf, IMPORT_BATCH, importFileInBatches, type PaperFormat, PaperLibrary, StoreError } from '../core/app/library';
import { ModelError, modelName } from '../core/app/models';
import { ProblemReport } from './importProblems';
import { parseCommandLine, usageError } from './args';
import { UnreadableFileError } from '../core/app/text';
import type { Console } from './console';
import { embedTokensProblem, embedTokens, encoderChoice, isFileSystemError, loadEncoder, replacingVectors } from './encoder';
import { forTerminal, showProgress } from './terminal';
import { SOLR_BATCH } from '../core/app/solr';
import { solrTarget } from './solr';

export const INDEX_USAGE = `Usage: attest index add FILE... (--store DIR | --solr URL [--collection NAME]) [--embed-model DIR [--embed-tokens N]]

Adds papers to the paper library in DIR, which Find Evidence and attest search read (created if
needed). Files by extension: .jsonl (one object a line: id or _id, title, abstract or text, optional
authors, year, doi, arxivId, venue, openAccessUrl; BEIR's corpus.jsonl), .bib (entries with an
abstract) and .ris. A paper with an id the library has replaces it. Lines that cannot be read are
reported with their line numbers; the rest are imported.
  --embed-model DIR   an ONNX sentence encoder folder (or ATTEST_EMBED_MODEL) to embed the papers
                      with, for dense and hybrid search; papers added earlier without it are embedded too
  --embed-tokens N    the most tokens of each paper's title and abstract the encoder reads (default
                      128, the editor's attest.retrieval.encoder.inputTokens; at most the model's own)
  --solr URL          add them to Attest's collection on the SolrCloud at URL instead (see attest solr
                      init), embedded with the collection's encoder, in batches of ${SOLR_BATCH}, each
                      committed; papers it holds with the same text are skipped, so a stopped import
                      resumes where it stopped when run again
  --collection NAME   the Solr collection (default papers)
Exit status: 0 imported, 2 usage or I/O failure.`;

/** `attest index add`. */
export async function indexCommand(args: readonly string[], io: Console): Promise<number> {
  const parsed = parseCommandLine(
    'index',
    {
      args: [...args],
      allowPositionals: true,
      options: { store: { type: 'string' }, 'embed-model': { type: 'string' }, 'embed-tokens': { type: 'string' }, solr: { type: 'string' }, collection: { type: 'string' } },
    },
    INDEX_USAGE,
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const [subcommand, ...files] = parsed.positionals;
  const { store, solr } = parsed.values;
  if (subcommand !== 'add') return usageError('index', subcommand === undefined ? 'no subcommand given' : `unknown subcommand '${subcommand}'`, io);
  if (files.length === 0) return usageError('index', 'no file given', io);
  if (store !== undefined && solr !== undefined) return usageError('index', 'give --store DIR or --solr URL, not both', io);
  if (parsed.values.collection !== undefined && solr === undefined) return usageError('index', '--collection needs --solr URL', io);
  const inputTokens = embedTokens(parsed.values['embed-tokens']);
  if (inputTokens === undefined) return usageError('index', embedTokensProblem(parsed.values['embed-tokens']), io);
  const formats = files.map(formatOf);
  const unknown = files.find((_, at) => formats[at] === undefined);
  if (unknown !== undefined) return usageError('index', `cannot tell the format of ${unknown}: name it .jsonl, .bib or .ris`, io);
  if (solr !== undefined)
    return (await import('./solrIndex')).addToSolr(
      files,
      formats as PaperFormat[],
      solrTarget(solr, parsed.values.collection, process.env),
      encoderChoice(parsed.values['embed-model'], inputTokens, process.env),
      io,
    );
  if (!store) return usageError('index', '--store DIR is required (or --solr URL)', io);

  let encoder: Encoder | undefined;
  try {
    encoder = await loadEncoder(encoderChoice(parsed.values['embed-model'], inputTokens, process.env));
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
    const size = `the library in ${store} holds ${counted(library.store.size, 'paper', 'papers')}${vectors ? ` (vectors: ${modelName(vectors.model)}, ${vectors.dimension} dimensions)` : ''}`;
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

/** Progress on standard error while papers are embedded, when a person is watching; `before` were embedded by earlier batches. */
function progress(what: string, encoder: Encoder | undefined, before = 0): ((done: number, total: number) => void) | undefined {
  if (!encoder || !process.stderr.isTTY) return undefined;
  return (done, total) => showProgress(what, before + done, before + total);
}
