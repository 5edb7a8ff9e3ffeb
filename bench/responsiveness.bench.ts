import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkManuscript, CheckSession } from '../src/core/check';
import { PaperLibrary } from '../src/core/index/library';
import { LibraryThread } from '../src/core/index/libraryThread';
import { PaperStore } from '../src/core/index/store/store';
import type { Parsers } from '../src/core/parsing/parsers';
import { ParserThread } from '../src/core/parsing/thread';
import type { Workspace } from '../src/core/workspace';
import { ms } from './stats';
import { CLAIM, syntheticPaper } from './syntheticPapers';

/** A 10 MB manuscript and a 2 MB bibliography, as the editor would hand them over. */
function largeProject(): Workspace {
  const paragraph = 'Gaussian processes are widely used \\citep{a,b}. They scale as $O(N^3)$ \\citet{c}.\n\n';
  const entry = (i: number): string => `@article{k${i}, title={A study of {GP} number ${i}}, author={M\\"uller, J. and Doe, A.}, journal={Journal}, year=2020}\n`;
  const files = new Map([
    ['/p/big.tex', `${paragraph.repeat(Math.ceil(10_000_000 / paragraph.length))}\\bibliography{refs}`],
    ['/p/refs.bib', `@article{a, title={A}}\n@article{b, title={B}}\n@article{c, title={C}}\n${Array.from({ length: 20_000 }, (_, i) => entry(i)).join('')}`],
  ]);
  return { readText: async (file) => files.get(file) };
}

/** The longest time the thread that asked was kept from running anything else (1 ms timer ticks). */
async function longestStall(work: () => Promise<unknown>): Promise<{ total: number; stall: number }> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  const start = performance.now();
  await work();
  const total = performance.now() - start;
  clearInterval(timer);
  return { total, stall: Math.max(stall, performance.now() - last) };
}

/** What the extension host feels while a large manuscript is checked: parsing here, and in a worker thread. */
export async function benchParsingOffThread(): Promise<void> {
  const workspace = largeProject();
  const thread = new ParserThread();
  for (const [name, parsers] of [
    ['in this thread', undefined],
    ['in a worker thread', thread],
  ] as const) {
    const session = (): CheckSession => (parsers ? new CheckSession(parsers as Parsers) : new CheckSession());
    await checkManuscript('/p/big.tex', workspace, session());
    const { total, stall } = await longestStall(() => checkManuscript('/p/big.tex', workspace, session()));
    console.log(`  10 MB manuscript + 2 MB .bib, parsed ${name}: ${ms(total)} in all, longest stall of this thread ${ms(stall)}`);
  }
  await thread.dispose();
}

/**
 * What the extension host feels while 100,000 papers are imported into the library, then loaded and
 * searched: in this thread, as the CLI does, and in the library's worker thread, as the extension does.
 */
export async function benchLibraryStall(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-bench-library-'));
  const thread = new LibraryThread();
  try {
    const papers = Array.from({ length: 100_000 }, (_, i) => syntheticPaper(i));
    const { store } = await PaperStore.open(dir);
    const added = await longestStall(() => store.add(papers));
    console.log(`  100,000 papers added (indexed and saved) in this thread: ${ms(added.total)} in all, longest stall ${ms(added.stall)}`);
    const opened = await longestStall(() => PaperLibrary.open(dir));
    console.log(`  100,000 papers loaded in this thread: ${ms(opened.total)} in all, longest stall ${ms(opened.stall)}`);
    const { library } = await PaperLibrary.open(dir, { mode: 'lexical' });
    const searched = await longestStall(() => library.find({ text: CLAIM, limit: 20 }));
    console.log(`  a search of 100,000 papers in this thread: ${ms(searched.total)} in all, longest stall ${ms(searched.stall)}`);
    // What this thread is held when it does nothing at all: the floor the machine's load sets.
    const idle = await longestStall(() => new Promise((resolve) => setTimeout(resolve, 5000)));
    console.log(`  nothing, for 5 s: longest stall of this thread ${ms(idle.stall)}`);
    const loaded = await longestStall(() => thread.setUp({ dir, mode: 'lexical' }));
    console.log(`  100,000 papers loaded in the library's thread: ${ms(loaded.total)} in all, longest stall of this thread ${ms(loaded.stall)}`);
    const found = await longestStall(() => thread.find({ text: CLAIM, limit: 20 }));
    console.log(`  a search of 100,000 papers in the library's thread: ${ms(found.total)} in all, longest stall of this thread ${ms(found.stall)}`);
    const file = path.join(dir, 'import.jsonl');
    await fs.writeFile(file, papers.map((paper) => JSON.stringify({ ...paper, id: `q${paper.id}` })).join('\n'));
    const imported = await longestStall(() => thread.importFile(file, 'jsonl'));
    console.log(`  100,000 papers imported from JSONL in the library's thread: ${ms(imported.total)} in all, longest stall of this thread ${ms(imported.stall)}`);
  } finally {
    await thread.dispose();
    await fs.rm(dir, { recursive: true, force: true });
  }
}
