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

interface Timing {
  readonly wallMs: number;
  /** The process's CPU time, collector threads included: on a loaded machine it moves far less than the wall clock. */
  readonly cpuMs: number;
  readonly chars: number;
}

/** The faster of `runs` parses of the input at `size`. */
function timed(input: HostileInput, size: number, runs = 1): Timing {
  const text = input.make(size);
  let best: Timing | undefined;
  for (let run = 0; run < runs; run++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    parseHostile(input, text);
    const wallMs = performance.now() - start;
    const used = process.cpuUsage(cpu);
    const timing = { wallMs, cpuMs: (used.user + used.system) / 1000, chars: text.length };
    if (!best || timing.cpuMs < best.cpuMs) best = timing;
  }
  return best as Timing;
}

/**
 * Each hostile input at 1/4 MB and 1 MB (best of two): wall-clock and CPU time per MB, growth, and
 * peak memory. ATTEST_HOSTILE_FILTER keeps only the inputs whose parser and name contain it
 * (`markdown footnote`), to measure one alone.
 */
export function benchHostile(): void {
  console.log('hostile inputs: ms per MB at 1 MB (wall clock, CPU), growth of CPU time from 1/4 MB to 1 MB (4 is linear), peak memory; target < 200 ms/MB');
  const filter = process.env.ATTEST_HOSTILE_FILTER ?? '';
  let worstWall = 0;
  let worstCpu = 0;
  for (const input of HOSTILE_INPUTS.filter((i) => `${i.parser} ${i.name}`.includes(filter))) {
    const memory = new PeakMemory();
    // Compiled code paths of its own, so the first timing is not the JIT's.
    timed(input, 10_000);
    const quarter = timed(input, MB / 4, 2);
    const whole = timed(input, MB, 2);
    const wall = whole.wallMs / (whole.chars / MB);
    const cpu = whole.cpuMs / (whole.chars / MB);
    const growth = whole.cpuMs / Math.max(quarter.cpuMs, 1);
    worstWall = Math.max(worstWall, wall);
    worstCpu = Math.max(worstCpu, cpu);
    const flag = growth > SUPERLINEAR_RATIO ? '  SUPERLINEAR' : '';
    console.log(`  ${input.parser.padEnd(8)} ${input.name.padEnd(48)} ${wall.toFixed(0).padStart(6)} ${cpu.toFixed(0).padStart(6)} ms/MB  x${growth.toFixed(1)}  ${memory.stop()}${flag}`);
  }
  console.log(`  slowest: ${worstWall.toFixed(0)} ms/MB wall clock, ${worstCpu.toFixed(0)} ms/MB CPU`);
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
