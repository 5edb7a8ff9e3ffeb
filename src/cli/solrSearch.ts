import type { SearchMode } from '../core/app/evidence';
import { NO_ENCODER_NOTE } from '../core/app/library';
import { SolrError, SolrLibrary, type SolrTarget } from '../core/app/solr';
import { ModelError } from '../core/app/models';
import { askedReranker, type EncoderChoice, startEncoder, type AskedReranker } from './encoder';
import type { Console } from './console';
import { answerQueries, sayNotes, type Query } from './queries';

export interface SolrSearchOptions {
  readonly top: number;
  readonly mode?: SearchMode;
  readonly encoderFolder?: EncoderChoice;
  readonly rerankerDir: () => Promise<string | undefined>;
}

/** `attest search --solr URL`: each query searched in Attest's collection on a SolrCloud, one JSON line each. */
export async function searchSolr(target: SolrTarget, queries: readonly Query[], options: SolrSearchOptions, io: Console): Promise<number> {
  // The encoder starts in a thread of its own while the collection is asked what it holds.
  let started: Awaited<ReturnType<typeof startEncoder>>;
  let reranker: AskedReranker | undefined;
  try {
    started = await startEncoder(options.encoderFolder, { prepack: queries.length > 1 });
    reranker = askedReranker(await options.rerankerDir());
    const library = await SolrLibrary.open(target, { encoder: started?.encoder, mode: options.mode, reranker: reranker?.get });
    const notes = await answerQueries(library, queries, options.top, () => reranker?.failure(), io);
    await started?.ready;
    sayNotes(notes, NO_ENCODER_NOTE, io);
    return 0;
  } catch (error) {
    return failed(io, error);
  } finally {
    await started?.encoder.embedder.dispose();
    await reranker?.dispose();
  }
}

function failed(io: Console, error: unknown): number {
  if (!(error instanceof SolrError) && !(error instanceof ModelError)) throw error;
  io.err(`attest search: ${error.message}\n`);
  return 2;
}
