/**
 * One cold Find Evidence as the editor makes it (src/extension/library/library.ts, `EvidenceLibrary.open`
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
 * With `--live-source`, as `attest.retrieval.liveSearch` has it by default, a source answering after
 * a second with ten new papers is searched too, and the first list, from the library alone, is asked
 * for: its time is printed as `firstListMs`, and `ms` is the final list's. The source's papers join
 * the library, so the search is made in a copy of STORE, of hard links: the store never rewrites a
 * file, it writes new ones and renames its manifest over the old.
 *
 * The claim is the generated papers' (syntheticPapers.ts) unless `--claim` gives another.
 *
 *   node out/bench/support/firstFindEvidence.js STORE ENCODER_DIR MODEL_NAME [--rerank] [--live-source] [--claim TEXT]
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LibraryThread } from '../../src/core/index/libraryThread';
import { analyze } from '../../src/core/index/analyzer';
import { builtInNliFolder, builtInRerankerFolder } from '../../src/core/models/builtIn';
import { WorkerEmbedder, WorkerNliModel } from '../../src/core/models/pool';
import { judgePapers } from '../../src/core/verify/claims';
import { CLAIM } from '../syntheticPapers';
import { simulatedSource } from './simulatedSource';

const LIVE_SOURCE_ANSWERS_AFTER_MS = 1_000;

async function firstFindEvidence(dir: string, encoderDir: string, model: string, { rerank, live, claim }: { rerank: boolean; live: boolean; claim: string }): Promise<void> {
  const start = performance.now();
  const thread = new LibraryThread();
  const liveSources = live ? [simulatedSource('a live source', LIVE_SOURCE_ANSWERS_AFTER_MS, { next: 10_000_000 })] : [];
  const opening = thread.setUp({ dir, liveSources });
  // The editor's default threads for the encoder and the reranker (attest.retrieval.encoder.threads).
  const embedder = await WorkerEmbedder.start(encoderDir, { threads: 2 });
  try {
    await opening;
    const rerankerDir = rerank ? await builtInRerankerFolder() : undefined;
    if (rerank && rerankerDir === undefined) throw new Error('this checkout has no built-in reranker (models/attest-rerank)');
    // Where the editor keeps the reranker's optimised copy is its storage; here the system's temporary folder.
    const reranker =
      rerankerDir === undefined
        ? undefined
        : { dir: rerankerDir, threads: 2, optimizedCopies: path.join(os.tmpdir(), 'attest-bench-storage', 'optimized', path.basename(rerankerDir)) };
    await thread.setUp({ dir, encoder: { model, embedder }, reranker, liveSources });
    let firstListMs: number | undefined;
    const found = await thread.find({ text: claim, limit: 10, ...(live && { onLibraryResults: () => (firstListMs = performance.now() - start) }) });
    const ms = performance.now() - start;
    if (found.mode !== 'hybrid') throw new Error(`the search was ${found.mode}: ${found.notes.join(' ')}`);
    if (live && firstListMs === undefined) throw new Error('no first list came while the source was searched');
    console.log(
      JSON.stringify({
        ms,
        ...(live && { firstListMs }),
        results: found.results.length,
        verdictsMs: await verdictsMs(
          claim,
          found.results.map((r) => r.paper),
        ),
      }),
    );
  } finally {
    await thread.dispose();
    await embedder.dispose();
  }
}

/** How long the built-in NLI model, already started, takes to judge `papers` on the claim, as the panel's verdicts. */
async function verdictsMs(claim: string, papers: Parameters<typeof judgePapers>[1]): Promise<number> {
  const dir = await builtInNliFolder();
  if (dir === undefined) throw new Error('this checkout has no built-in NLI model (models/attest-nli)');
  const model = await WorkerNliModel.start(dir, { threads: 2 });
  try {
    const start = performance.now();
    const verdicts = await judgePapers(
      claim,
      papers.map((p) => ({ ...p, abstract: inSentences(p.abstract ?? '') })),
      { analyze, nli: { model, id: 'built-in' } },
    );
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

/** A copy of the store folder `dir` whose files are hard links to its own, in a temporary folder. */
async function linkedCopy(dir: string): Promise<string> {
  const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-first-find-'));
  for (const name of await fs.readdir(dir)) await fs.link(path.join(dir, name), path.join(copy, name));
  return copy;
}

async function main(): Promise<void> {
  const [dir, encoderDir, model, ...flags] = process.argv.slice(2);
  const live = flags.includes('--live-source');
  const claimAt = flags.indexOf('--claim');
  const claim = claimAt === -1 ? CLAIM : flags[claimAt + 1];
  const store = live ? await linkedCopy(dir) : dir;
  try {
    await firstFindEvidence(store, encoderDir, model, { rerank: flags.includes('--rerank'), live, claim });
  } finally {
    if (live) await fs.rm(store, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
