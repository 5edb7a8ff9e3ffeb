import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseBibliography } from '../src/core/bibliography/parse';
import { passagesFromJats } from '../src/core/fulltext/jats';
import { passagesFromLatexml } from '../src/core/fulltext/latexml';
import { DEFAULT_PDF_LIMITS, readPdf } from '../src/core/fulltext/pdf';
import { passagesFromPlainText } from '../src/core/fulltext/prose';
import { parseLatex } from '../src/core/manuscript/latex';
import { parseMarkdown } from '../src/core/manuscript/markdown';
import { importPapers } from '../src/core/papers/import';
import { readTextFile } from '../src/core/text/readFile';
import { HOSTILE_FULL_TEXTS, HOSTILE_INPUTS, makeFlateBomb, type HostileFullText, type HostileInput } from './hostile';
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

/** Full texts as the reader's worker reads them, here on this thread to time the reading alone. */
function readHostile(input: HostileFullText, text: string): void {
  if (input.format === 'jats') passagesFromJats(text);
  else if (input.format === 'latexml') passagesFromLatexml(text);
  else passagesFromPlainText(text);
}

/** An input to time: made at a size, then read. */
interface Timed {
  readonly make: (size: number) => string;
  readonly read: (text: string) => void;
}

/** The faster of `runs` reads of the input at `size`. */
function timed(input: Timed, size: number, runs = 1): Timing {
  const text = input.make(size);
  let best: Timing | undefined;
  for (let run = 0; run < runs; run++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    input.read(text);
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
  const inputs = HOSTILE_INPUTS.map((input) => ({ kind: input.parser, name: input.name, make: input.make, read: (text: string) => parseHostile(input, text) }));
  benchTimed(inputs);
}

/**
 * The readers of full texts on hostile input (deep nesting, one paragraph of many short lines), as
 * benchHostile times the parsers: the JATS and arXiv HTML readers stop at their nesting limit.
 */
export function benchHostileFullTexts(): void {
  console.log('hostile full texts: ms per MB at 1 MB (wall clock, CPU), growth from 1/4 MB to 1 MB (4 is linear), peak memory');
  benchTimed(HOSTILE_FULL_TEXTS.map((input) => ({ kind: input.format, name: input.name, make: input.make, read: (text: string) => readHostile(input, text) })));
}

function benchTimed(inputs: readonly (Timed & { readonly kind: string; readonly name: string })[]): void {
  const filter = process.env.ATTEST_HOSTILE_FILTER ?? '';
  let worstWall = 0;
  let worstCpu = 0;
  for (const input of inputs.filter((i) => `${i.kind} ${i.name}`.includes(filter))) {
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
    console.log(
      `  ${input.kind.padEnd(8)} ${input.name.padEnd(48)} ${wall.toFixed(0).padStart(6)} ${cpu.toFixed(0).padStart(6)} ms/MB  x${growth.toFixed(1)}  ${memory.stop()}${flag}`,
    );
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

/**
 * A 3 MB PDF whose page inflates to 3 GB, read alone and four times at once (four citations of it in
 * one check) with the default limits: the reader is ended at its memory limit, the readers take turns,
 * and the process grows by about the limit, however many there are.
 */
export async function benchPdfBombs(): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-bomb-'));
  try {
    const bomb = await makeFlateBomb(3 * 1024 * 1024 * 1024);
    const files = ['a', 'b', 'c', 'd'].map((name) => path.join(dir, `${name}.pdf`));
    for (const file of files) await fs.writeFile(file, bomb);
    console.log(
      `PDF Flate bomb (${(bomb.length / 1024 / 1024).toFixed(1)} MB inflating to 3 GB), reader's limit ${DEFAULT_PDF_LIMITS.memoryMb} MB: time, the process's growth at its peak, why it stopped`,
    );
    for (const together of [1, 4]) {
      const before = process.memoryUsage.rss();
      let peak = 0;
      const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss() - before)), 5);
      const start = performance.now();
      const results = await Promise.all(files.slice(0, together).map((file) => readPdf(file)));
      clearInterval(watch);
      const why = results.map((r) => ('reason' in r ? (/\(([a-z]+):/.exec(r.reason)?.[1] ?? r.reason) : 'read')).join(', ');
      console.log(`  ${together} at once: ${(performance.now() - start).toFixed(0)} ms, +${(peak / 1024 / 1024).toFixed(0)} MB; ${why}`);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}
