import { parseDraft } from '../src/core/suggest/parse';
import { unlistedPerson } from '../src/core/suggest/people';
import { ms } from './stats';

/**
 * Reading a model's draft, and looking in it for people named as authors, on 1 MB and 2 MB drafts of shapes that make backtracking patterns take
 * minutes (runs of capitals, unclosed brackets, nested parentheses, unclosed <think> tags) and of
 * plain prose. Printed: time per MB, and the 2 MB/1 MB ratio, which stays near 2 for a linear reader.
 */
const SHAPES: readonly [string, (bytes: number) => string][] = [
  ['plain prose with markers', (n) => fill('Caching cuts the median latency of web servers by forty percent [1]. ', n)],
  ['a run of capitals', (n) => `A${'B'.repeat(n - 2)}.`],
  ['capitalised words without a stop', (n) => fill('Smith Jones Lee ', n)],
  ['". [1" without "]"', (n) => fill('. [1', n)],
  ['an unclosed marker list', (n) => `Caching [${fill('1,', n - 10)}`],
  ['nested parentheses', (n) => `${'('.repeat(n / 2)}${')'.repeat(n / 2)}`],
  ['unclosed parentheses with numbers', (n) => fill('(7 ', n)],
  ['unclosed <think> tags', (n) => fill('<think>', n)],
  ['dots in one word', (n) => `a${'.'.repeat(n - 1)}`],
  ['possessives before a year', (n) => fill("Smith's Lee's ", n)],
  ['blank lines', (n) => `Caching helps [1].${'\n'.repeat(n - 20)}It scales [1].`],
  ['superscripts and circled numbers', (n) => fill('Caching¹²³ helps ⑦ [1]. ', n)],
  ['names joined by "and", no verb', (n) => fill('Smith and Jones and ', n)],
  ['names after "according to"', (n) => fill('according to Smith Jones, Lee ', n)],
  ['an article before names', (n) => fill('the Smith Jones Lee ', n)],
  ['names with apostrophes, hyphens', (n) => fill("O'Brien-Smith McDonald-Lee ", n)],
];

const MB = 1_000_000;

export async function benchDraftParse(): Promise<void> {
  console.log('draft reading: time per MB of draft, and the 2 MB / 1 MB ratio (linear: about 2)');
  let worst = 0;
  for (const [name, make] of SHAPES) {
    const one = timed(make(MB));
    const two = timed(make(2 * MB));
    worst = Math.max(worst, one);
    console.log(`  ${name.padEnd(36)}${ms(one).padStart(10)} per MB   2 MB ${ms(two).padStart(10)}   ratio ${(two / one).toFixed(2)}`);
  }
  console.log(`  slowest shape: ${ms(worst)} per MB`);
}

function fill(unit: string, bytes: number): string {
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes);
}

/** The best of three runs, in ms: what the reader costs, not what the collector happened to do. */
function timed(draft: string): number {
  let best = Infinity;
  for (let run = 0; run < 3; run++) {
    const start = performance.now();
    parseDraft(draft, 6);
    unlistedPerson(draft, [], new Set());
    best = Math.min(best, performance.now() - start);
  }
  return best;
}
