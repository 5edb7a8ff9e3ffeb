import { parseBibliography } from '../src/core/bibliography/parse';
import { parseLatex } from '../src/core/manuscript/latex';
import { parseMarkdown } from '../src/core/manuscript/markdown';
import { importPapers } from '../src/core/papers/import';
import { readTextFile } from '../src/core/text/readFile';
import { HOSTILE_INPUTS, type HostileInput } from './hostile';
import { ms, PeakMemory } from './stats';

const MB = 1_000_000;
/** A scan linear in its input takes about four times as long for four times the input; a quadratic one sixteen. */
const SUPERLINEAR_RATIO = 8;

export function parseHostile(input: HostileInput, text: string): void {
  if (input.parser === 'latex') parseLatex(text, '/hostile.tex');
  else if (input.parser === 'markdown') parseMarkdown(text, '/hostile.md');
  else if (input.parser === 'bibtex') parseBibliography(text, '/hostile.bib');
  else importPapers(text, 'ris', '/hostile.ris');
}

function timed(input: HostileInput, size: number): { ms: number; chars: number } {
  const text = input.make(size);
  const start = performance.now();
  parseHostile(input, text);
  return { ms: performance.now() - start, chars: text.length };
}

/**
 * Each hostile input at 1/4 MB and 1 MB: time per MB, growth, and peak memory. ATTEST_HOSTILE_FILTER
 * keeps only the inputs whose parser and name contain it (`markdown footnote`), to measure one alone.
 */
export function benchHostile(): void {
  console.log('hostile inputs: ms per MB at 1 MB, growth from 1/4 MB to 1 MB (4 is linear), peak memory');
  const filter = process.env.ATTEST_HOSTILE_FILTER ?? '';
  let worst = 0;
  for (const input of HOSTILE_INPUTS.filter((i) => `${i.parser} ${i.name}`.includes(filter))) {
    const memory = new PeakMemory();
    // Compiled code paths of its own, so the first timing is not the JIT's.
    timed(input, 10_000);
    const quarter = timed(input, MB / 4);
    const whole = timed(input, MB);
    const perMb = whole.ms / (whole.chars / MB);
    const growth = whole.ms / Math.max(quarter.ms, 1);
    worst = Math.max(worst, perMb);
    const flag = growth > SUPERLINEAR_RATIO ? '  SUPERLINEAR' : '';
    console.log(`  ${input.parser.padEnd(8)} ${input.name.padEnd(44)} ${perMb.toFixed(0).padStart(6)} ms/MB  x${growth.toFixed(1)}  ${memory.stop()}${flag}`);
  }
  console.log(`  slowest: ${worst.toFixed(0)} ms/MB`);
}

/** A file that never ends (/proc/self/pagemap reports size 0): refused at the limit, in bounded time and memory. */
export async function benchEndlessFile(): Promise<void> {
  if (process.platform !== 'linux') return;
  const memory = new PeakMemory();
  const start = performance.now();
  const outcome = await readTextFile('/proc/self/pagemap', 20 * 1024 * 1024).then(
    () => 'read',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  console.log(`  /proc/self/pagemap with the default 20 MB limit: ${ms(performance.now() - start)}, peak ${memory.stop()}: ${outcome}`);
}
