/**
 * One cold Find Evidence as the editor makes it (src/extension/library.ts, `EvidenceLibrary.open`
 * then `finder`), in a process of its own, without VS Code: the library's thread opens the store
 * while the encoder loads in its worker, then the library is set up with the encoder (and the
 * built-in reranker, as `attest.retrieval.rerank` has it by default, its optimised copy kept in a
 * temporary folder for the editor's storage: written by the first run, so the runs after it measure
 * a first search as it is after the first ever, which writes the copy) and searched once. Then the
 * results are judged by the built-in NLI model as the panel's verdicts are (judgePapers), the model
 * already started, as the support check of the manuscript's own citations has it in the editor; the
 * panel lists the papers before their verdicts, so `verdictsMs` comes after `ms`. A generated
 * abstract is one run of 150 words, which is no abstract to the support check, so it is judged cut
 * into sentences of 15 words: longer than the model reads (128 tokens), as real abstracts are. Prints
 * `{"ms": N, "results": N, "verdictsMs": N}`; bench/libraryScale.bench.ts runs it.
 *
 *   node out/bench/support/firstFindEvidence.js STORE ENCODER_DIR MODEL_NAME [--rerank]
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LibraryThread } from '../../src/core/index/libraryThread';
import { analyze } from '../../src/core/index/analyzer';
import { builtInNliFolder, builtInRerankerFolder } from '../../src/core/models/builtIn';
import { WorkerEmbedder, WorkerNliModel } from '../../src/core/models/pool';
import { judgePapers } from '../../src/core/verify/claims';
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
    const ms = performance.now() - start;
    if (found.mode !== 'hybrid') throw new Error(`the search was ${found.mode}: ${found.notes.join(' ')}`);
    console.log(JSON.stringify({ ms, results: found.results.length, verdictsMs: await verdictsMs(found.results.map((r) => r.paper)) }));
  } finally {
    await thread.dispose();
    await embedder.dispose();
  }
}

/** How long the built-in NLI model, already started, takes to judge `papers` on the claim, as the panel's verdicts. */
async function verdictsMs(papers: Parameters<typeof judgePapers>[1]): Promise<number> {
  const dir = await builtInNliFolder();
  if (dir === undefined) throw new Error('this checkout has no built-in NLI model (models/attest-nli)');
  const model = await WorkerNliModel.start(dir, { threads: 2 });
  try {
    const start = performance.now();
    const verdicts = await judgePapers(CLAIM, papers.map((p) => ({ ...p, abstract: inSentences(p.abstract ?? '') })), { analyze, nli: { model, id: 'built-in' } });
    if (verdicts.some((v) => v === undefined)) throw new Error('a result was left without a verdict');
    return performance.now() - start;
  } finally {
    await model.dispose();
  }
}

/** `text`'s words as sentences of 15, each capitalised and ended by a full stop. */
function inSentences(text: string): string {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const sentences: string[] = [];
  for (let at = 0; at < words.length; at += 15) {
    const sentence = words.slice(at, at + 15).join(' ');
    sentences.push(`${sentence[0].toUpperCase()}${sentence.slice(1)}.`);
  }
  return sentences.join(' ');
}

const [dir, encoderDir, model, flag] = process.argv.slice(2);
firstFindEvidence(dir, encoderDir, model, flag === '--rerank').catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
