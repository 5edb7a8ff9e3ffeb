/**
 * One cold Find Evidence as the editor makes it (src/extension/library.ts, `EvidenceLibrary.open`
 * then `finder`), in a process of its own, without VS Code: the library's thread opens the store
 * while the encoder loads in its worker, then the library is set up with the encoder (and the
 * built-in reranker, as `attest.retrieval.rerank` has it by default, its optimised copy kept in a
 * temporary folder for the editor's storage: written by the first run, so the runs after it measure
 * a first search as it is after the first ever, which writes the copy) and searched once. Prints
 * `{"ms": N, "results": N}`; bench/libraryScale.bench.ts runs it.
 *
 *   node out/bench/support/firstFindEvidence.js STORE ENCODER_DIR MODEL_NAME [--rerank]
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LibraryThread } from '../../src/core/index/libraryThread';
import { builtInRerankerFolder } from '../../src/core/models/builtIn';
import { WorkerEmbedder } from '../../src/core/models/pool';
import { CLAIM } from '../syntheticPapers';

async function firstFindEvidence(dir: string, encoderDir: string, model: string, rerank: boolean): Promise<void> {
  const start = performance.now();
  const thread = new LibraryThread();
  const opening = thread.setUp({ dir, liveSources: [] });
  // The editor's default threads for the encoder and the reranker (attest.retrieval.encoder.threads).
  const embedder = await WorkerEmbedder.start(encoderDir, { threads: 2 });
  try {
    await opening;
    const rerankerDir = rerank ? await builtInRerankerFolder() : undefined;
    if (rerank && rerankerDir === undefined) throw new Error('this checkout has no built-in reranker (models/attest-rerank)');
    // Where the editor keeps the reranker's optimised copy is its storage; here the system's temporary folder.
    const reranker = rerankerDir === undefined ? undefined : { dir: rerankerDir, threads: 2, optimizedCopies: path.join(os.tmpdir(), 'attest-bench-storage', 'optimized', path.basename(rerankerDir)) };
    await thread.setUp({ dir, encoder: { model, embedder }, reranker, liveSources: [] });
    const found = await thread.find({ text: CLAIM, limit: 10 });
    if (found.mode !== 'hybrid') throw new Error(`the search was ${found.mode}: ${found.notes.join(' ')}`);
    console.log(JSON.stringify({ ms: performance.now() - start, results: found.results.length }));
  } finally {
    await thread.dispose();
    await embedder.dispose();
  }
}

const [dir, encoderDir, model, flag] = process.argv.slice(2);
firstFindEvidence(dir, encoderDir, model, flag === '--rerank').catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
