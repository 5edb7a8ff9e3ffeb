/**
 * Find Evidence with live sources, through the library's thread as the editor searches: a library of
 * generated papers, the built-in reranker (on by default), and three sources that answer after
 * 0.3, 1 and 2 s with ten new papers each, as the open sources answer over the network. Prints when
 * the first list, from the library alone, is handed over, and when the final list is; the same search
 * without asking for a first list is timed beside it, by turns.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LibraryThread } from '../src/core/index/libraryThread';
import { PaperLibrary } from '../src/core/index/library';
import { builtInRerankerFolder } from '../src/core/models/builtIn';
import { median, ms } from './stats';
import { simulatedSource } from './support/simulatedSource';
import { CLAIM, syntheticPaper } from './syntheticPapers';

const LIBRARY_PAPERS = 5_000;
const ANSWERS_AFTER_MS = [300, 1_000, 2_000];
const RUNS = 3;

export async function benchLiveSearch(): Promise<void> {
  const rerankerDir = await builtInRerankerFolder();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-live-'));
  try {
    const { library } = await PaperLibrary.open(dir);
    await library.add(Array.from({ length: LIBRARY_PAPERS }, (_, i) => syntheticPaper(i)));
    const thread = new LibraryThread();
    const run = { next: 10_000_000 };
    const first: number[] = [];
    const final: number[] = [];
    const without: number[] = [];
    try {
      for (let i = 0; i < RUNS; i++) {
        for (const asksFirst of [true, false]) {
          const liveSources = ANSWERS_AFTER_MS.map((delay, at) => simulatedSource(`source ${at + 1}`, delay, run));
          await thread.setUp({ dir, liveSources, ...(rerankerDir && { reranker: { dir: rerankerDir, threads: 2 } }) });
          const start = performance.now();
          let firstAt: number | undefined;
          await thread.find({ text: CLAIM, limit: 10, ...(asksFirst && { onLibraryResults: () => (firstAt = performance.now() - start) }) });
          const took = performance.now() - start;
          if (asksFirst) {
            first.push(firstAt ?? Number.NaN);
            final.push(took);
          } else without.push(took);
        }
      }
    } finally {
      await thread.dispose();
    }
    console.log(
      `live search (${LIBRARY_PAPERS.toLocaleString('en')} papers, sources answering after ${ANSWERS_AFTER_MS.map((t) => t / 1000).join(', ')} s, ` +
        `${rerankerDir ? 'built-in reranker' : 'no reranker in this checkout'}), p50 of ${RUNS}: first list ${ms(median(first))}, final list ${ms(median(final))}; ` +
        `without a first list ${ms(median(without))}`,
    );
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchLiveSearch().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
