import { counted } from './counted';
import { promises as fs } from 'node:fs';
import type { SearchMode } from '../core/app/evidence';
import type { Encoder } from '../core/app/library';
import { ModelError, modelName } from '../core/app/models';
import {
  askedReranker,
  builtInRerankerDir,
  embedTokensProblem,
  embedTokens,
  encoderChoice,
  isFileSystemError,
  replacingVectors,
  startEncoder,
  type AskedReranker,
} from './encoder';
import { answerQueries, parseQueries, sayNotes, type Query } from './queries';
import { parseCommandLine, usageError } from './args';
import type { Console } from './console';
import { LARGEST_TEXT_BYTES, readNamedTextFile } from '../core/app/text';
import { forTerminal, showProgress } from './terminal';
import { solrTarget } from './solr';

export const SEARCH_USAGE = `Usage: attest search (--store DIR | --solr URL [--collection NAME]) (--query TEXT | --queries FILE.jsonl) [--top K]
                     [--mode lexical|dense|hybrid] [--embed-model DIR [--embed-tokens N]]
                     [--rerank | --rerank-model DIR] [--format jsonl]

Searches the paper library in DIR (see attest index) for each query, as Find Evidence does. Query
lines: {"_id", "text"} (BEIR's queries.jsonl). Output: one line per query,
{"query_id", "results": [{"id", "score", "sentence"}]}, query_id null for --query; sentence is the
abstract's sentence that matches the query best, or null.
  --top K             results per query (default 10)
  --mode MODE         lexical (words), dense (meaning) or hybrid (both, fused by score); default
                      hybrid with an encoder, lexical without
  --embed-model DIR   an ONNX sentence encoder folder (or ATTEST_EMBED_MODEL); papers not yet
                      embedded with it are embedded first, and kept
  --embed-tokens N    the most tokens of each paper's title and abstract the encoder reads (default
                      128, the editor's attest.retrieval.encoder.inputTokens; at most the model's own)
  --rerank            reorder the top 20 of each ranking with Attest's built-in reranker, as Find
                      Evidence does; their scores are then the mix it was trained for
  --rerank-model DIR  the same with another reranker folder (training/attest_training/rerank.py)
  --solr URL          search Attest's collection on the SolrCloud at URL instead (see attest solr
                      init), with the encoder its vectors are of; ranked as the library ranks
  --collection NAME   the Solr collection (default papers)
Exit status: 0 searched, 2 usage or I/O failure.`;

const MODES: readonly SearchMode[] = ['lexical', 'dense', 'hybrid'];

/** Papers to embed before searching from which a search for one query starts its encoder again with its weights packed. */
const REPACK_FOR = 100;

type Started = { readonly encoder: Encoder; readonly ready: Promise<void> };

/** `attest search`. */
export async function searchCommand(args: readonly string[], io: Console): Promise<number> {
  const parsed = parseCommandLine(
    'search',
    {
      args: [...args],
      options: {
        store: { type: 'string' },
        solr: { type: 'string' },
        collection: { type: 'string' },
        query: { type: 'string' },
        queries: { type: 'string' },
        top: { type: 'string', default: '10' },
        mode: { type: 'string' },
        'embed-model': { type: 'string' },
        'embed-tokens': { type: 'string' },
        rerank: { type: 'boolean', default: false },
        'rerank-model': { type: 'string' },
        format: { type: 'string', default: 'jsonl' },
      },
    },
    SEARCH_USAGE,
    io,
  );
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  const top = Number(values.top);
  const mode = values.mode as SearchMode | undefined;
  if (values.store !== undefined && values.solr !== undefined) return usageError('search', 'give --store DIR or --solr URL, not both', io);
  if (!values.store && values.solr === undefined) return usageError('search', '--store DIR is required (or --solr URL)', io);
  if (values.collection !== undefined && values.solr === undefined) return usageError('search', '--collection needs --solr URL', io);
  if ((values.query === undefined) === (values.queries === undefined)) return usageError('search', 'give either --query TEXT or --queries FILE.jsonl', io);
  if (!Number.isInteger(top) || top < 1) return usageError('search', `--top must be a positive whole number, not '${values.top}'`, io);
  if (mode !== undefined && !MODES.includes(mode)) return usageError('search', `--mode must be lexical, dense or hybrid, not '${mode}'`, io);
  if (values.format !== 'jsonl') return usageError('search', `--format must be jsonl, not '${values.format}'`, io);
  if (values.rerank && values['rerank-model'] !== undefined) return usageError('search', 'give --rerank or --rerank-model DIR, not both', io);
  const inputTokens = embedTokens(values['embed-tokens']);
  if (inputTokens === undefined) return usageError('search', embedTokensProblem(values['embed-tokens']), io);
  const encoderFolder = encoderChoice(values['embed-model'], inputTokens, process.env);
  if (mode !== undefined && mode !== 'lexical' && encoderFolder === undefined) {
    const { ENCODER_SETTING } = await import('../core/app/library');
    io.err(`attest search: --mode ${mode} needs a sentence encoder: give --embed-model DIR or set ATTEST_EMBED_MODEL (in the editor, ${ENCODER_SETTING}).\n`);
    return 2;
  }

  let queries: Query[];
  try {
    queries = values.query !== undefined ? [{ id: null, text: values.query }] : parseQueries(await readNamedTextFile(values.queries as string, LARGEST_TEXT_BYTES));
    if (values.store !== undefined && !(await fs.stat(values.store).catch(() => undefined))?.isDirectory())
      throw new Error(`there is no paper library in ${values.store}; make one with attest index add`);
  } catch (error) {
    io.err(`attest search: ${(error as Error).message}\n`);
    return 2;
  }

  const rerankerDir = async (): Promise<string | undefined> => (values.rerank ? builtInRerankerDir() : values['rerank-model']);
  if (values.solr !== undefined) {
    const { searchSolr } = await import('./solrSearch');
    return searchSolr(solrTarget(values.solr, values.collection, process.env), queries, { top, mode, encoderFolder, rerankerDir }, io);
  }
  const store = values.store as string;
  let started: Started | undefined;
  let reranker: AskedReranker | undefined;
  try {
    // The encoder starts first, in a thread of its own: making its session is the longest part of a
    // cold search, and the library's modules load and its files are read meanwhile.
    // One query needs one inference, for which packing the weights costs more than it saves.
    const packed = queries.length > 1;
    started = await startEncoder(encoderFolder, { prepack: packed });
    // The library embeds through whichever encoder is started now (see below).
    const encoder: Encoder | undefined = started && {
      model: started.encoder.model,
      embedder: { embed: (texts, kind, signal) => (started as Started).encoder.embedder.embed(texts, kind, signal), dispose: async () => undefined },
    };
    const { PaperLibrary, NO_ENCODER_NOTE } = await import('../core/app/library');
    reranker = askedReranker(await rerankerDir());
    const { library, messages } = await PaperLibrary.open(store, { encoder, mode, reranker: reranker?.get });
    for (const message of messages) io.err(`attest search: ${message}\n`);
    // The vectors are read on Node's I/O threads while the rest gets ready; a failed read is the search's to report.
    if (encoder !== undefined && mode !== 'lexical') library.store.dense().catch(() => undefined);
    const replacing = replacingVectors('search', library.store.encoder?.model, encoder, library.store.size);
    if (replacing !== undefined) io.err(replacing);
    // Unpacked, fp32 bge-small embeds a paper about a tenth slower; starting it again, packed, costs about half a second.
    if (started !== undefined && !packed && library.store.countWithoutVectors(started.encoder.model) >= REPACK_FOR) {
      await started.encoder.embedder.dispose();
      started = await startEncoder(encoderFolder, { prepack: true });
    }
    const embedded = await library.embedMissing({ onProgress: process.stderr.isTTY ? (done, total) => showProgress('Embedding', done, total) : undefined });
    if (embedded > 0) io.err(`attest search: embedded ${counted(embedded, 'paper', 'papers')} of the library with ${forTerminal(modelName(encoder?.model ?? ''))}\n`);
    // A reranker asked for by flag that fails is this command's failure, not a note: the library would go on without it.
    const notes = await answerQueries(library, queries, top, () => reranker?.failure(), io);
    // An encoder no search needed must still load: a broken one is an error however the search went.
    await started?.ready;
    sayNotes(notes, NO_ENCODER_NOTE, io);
    return 0;
  } catch (error) {
    const { StoreError } = await import('../core/app/library');
    if (!(error instanceof ModelError) && !(error instanceof StoreError) && !isFileSystemError(error)) throw error;
    io.err(`attest search: ${(error as Error).message}\n`);
    return 2;
  } finally {
    await started?.encoder.embedder.dispose();
    await reranker?.dispose();
  }
}
