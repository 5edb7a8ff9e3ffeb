import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { packLatex } from '../src/core/manuscript/latex';
import { packMarkdown } from '../src/core/manuscript/markdown';
import { transferablesOf, unpackSource, type PackedSource } from '../src/core/manuscript/packed';
import { ms } from './stats';

const MANUSCRIPTS = path.resolve(__dirname, '../../test/fixtures/manuscripts');
const MB = 1_000_000;

/** A real manuscript's body repeated to `size` characters: ordinary prose, citations, math and floats. */
function ordinary(file: string, size: number): string {
  const text = readFileSync(path.join(MANUSCRIPTS, file), 'utf8');
  // Markdown keeps one front matter; LaTeX repeats its preamble, which is read (and muted) like any other.
  const front = /^---\n[\s\S]*?\n---\n/.exec(text)?.[0] ?? '';
  const body = text.slice(front.length);
  return front + body.repeat(Math.ceil(size / body.length)).slice(0, size - front.length);
}

const ORDINARY: readonly [string, (text: string) => PackedSource, string][] = [
  ['LaTeX (astro_celerite)', (text) => packLatex(text, '/p/ms.tex'), 'astro_celerite/paper/ms.tex'],
  ['Markdown (md_joss_gmr)', (text) => packMarkdown(text, '/p/paper.md'), 'md_joss_gmr/paper/paper.md'],
];

/** The best of `runs`, in ms: what parsing costs, not what the collector or a busy machine happened to add. */
function best(runs: number, work: () => void): number {
  let fastest = Infinity;
  for (let run = 0; run < runs; run++) {
    const start = performance.now();
    work();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

/**
 * Ordinary manuscripts at 1 MB and 10 MB: parsing time per MB (target < 200 ms), and what the thread
 * that asked pays for a 10 MB result parsed in the parser thread: receiving it (the arrays transferred)
 * and unpacking it into claims and citations.
 */
export function benchManuscriptParse(): void {
  console.log('manuscript parsing: ordinary manuscripts, ms per MB (best of 3), and receiving a 10 MB result from the parser thread');
  for (const [name, pack, file] of ORDINARY) {
    pack(ordinary(file, MB / 10));
    for (const size of [MB, 10 * MB]) {
      const text = ordinary(file, size);
      const perMb = best(3, () => pack(text)) / (text.length / MB);
      console.log(`  ${name.padEnd(24)} ${String(size / MB).padStart(3)} MB  ${perMb.toFixed(0).padStart(5)} ms/MB`);
    }
    const packed = pack(ordinary(file, 10 * MB));
    // Both sides of the message in this thread: the receiving side alone pays less.
    let start = performance.now();
    const received = structuredClone(packed, { transfer: transferablesOf(packed) });
    const sent = performance.now() - start;
    start = performance.now();
    const { citations, claims } = unpackSource(received);
    const unpacked = performance.now() - start;
    console.log(`  ${name.padEnd(24)}  10 MB result (${claims.length} sentences, ${citations.length} citations): sent and received ${ms(sent)}, unpacked ${ms(unpacked)}`);
  }
}

if (require.main === module) benchManuscriptParse();
