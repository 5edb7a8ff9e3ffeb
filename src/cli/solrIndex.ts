import { type Encoder, IMPORT_BATCH, importFileInBatches, type PaperFormat } from '../core/app/library';
import { type AddProgress, addToCollection, collectionInfo, SolrClient, SolrError, type SolrTarget } from '../core/app/solr';
import { ModelError, modelName } from '../core/app/models';
import { UnreadableFileError } from '../core/app/text';
import { type EncoderChoice, isFileSystemError, loadEncoder } from './encoder';
import { ProblemReport } from './importProblems';
import type { Console } from './console';
import { forTerminal, showProgress } from './terminal';

/** `attest index add FILE... --solr URL`: the papers of `files` added to Attest's collection on a SolrCloud. */
export async function addToSolr(
  files: readonly string[],
  formats: readonly PaperFormat[],
  target: SolrTarget,
  encoderFolder: EncoderChoice | undefined,
  io: Console,
): Promise<number> {
  let encoder: Encoder | undefined;
  try {
    const solr = new SolrClient(target);
    const info = await collectionInfo(solr);
    if (info === undefined) throw new SolrError('refused', `The Solr collection '${target.collection}' was not made by attest solr init: make it first.`);
    encoder = await loadEncoder(encoderFolder);
    let sent = 0;
    let unchanged = 0;
    let read = 0;
    for (const [at, file] of files.entries()) {
      const problems = new ProblemReport(file, io);
      for await (const batch of importFileInBatches(file, formats[at], IMPORT_BATCH)) {
        problems.add(batch);
        const before: AddProgress = { done: read, total: read + batch.papers.length, unchanged };
        const added = await addToCollection(solr, info, encoder, batch.papers, { before, onProgress: progress(encoder) });
        read += batch.papers.length;
        sent += added.sent;
        unchanged += added.unchanged;
      }
      problems.finish();
    }
    const { numFound } = await solr.select({ q: 'kind:paper', rows: '0' });
    const also = unchanged > 0 ? `; ${unchanged} it held already with the same text were left as they were` : '';
    io.out(
      `${forTerminal(`Added ${sent} papers to the collection '${target.collection}'${also}; it holds ${numFound} papers${info.encoder ? ` (vectors: ${modelName(info.encoder)})` : ''}.`)}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof SolrError) && !(error instanceof ModelError) && !(error instanceof UnreadableFileError) && !isFileSystemError(error)) throw error;
    io.err(`attest index: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  } finally {
    await encoder?.embedder.dispose();
  }
}

/** Progress on standard error while papers are sent, when a person is watching. */
function progress(encoder: Encoder | undefined): ((progress: AddProgress) => void) | undefined {
  if (!process.stderr.isTTY) return undefined;
  return ({ done, total }) => showProgress(encoder ? 'Embedding and indexing' : 'Indexing', done, total);
}
