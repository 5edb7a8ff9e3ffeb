import { readFileSync } from 'node:fs';
import type { Paper } from '../src/core/papers/paper';

/**
 * Papers made of real abstracts' sentences, for measuring the library at scale with a real
 * vocabulary: paper `i` has the title of one BEIR SciFact abstract and seven sentences drawn from all
 * of them, each chosen by a generator seeded with `i`. Ten thousand of them hold about 35,000 terms,
 * where as many generated papers (syntheticPapers.ts) hold 10,000, so opening a segment and looking
 * its terms up cost what they cost with real papers.
 */
export function recombinedPapers(corpusFile: string): (i: number) => Paper {
  const titles: string[] = [];
  const sentences: string[] = [];
  for (const line of readFileSync(corpusFile, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const { title, text } = JSON.parse(line) as { title: string; text: string };
    titles.push(title);
    for (const sentence of text.split(/(?<=[.!?])\s+/)) if (sentence.length > 20) sentences.push(sentence);
  }
  return (i) => {
    let seed = i + 1;
    const pick = <T>(from: readonly T[]): T => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return from[seed % from.length];
    };
    const title = pick(titles);
    return { id: `r${i}`, title, authors: [{ family: 'Doe', given: 'J.' }], abstract: Array.from({ length: 7 }, () => pick(sentences)).join(' ') };
  };
}

/** A claim in the words of the papers' field. */
export const RECOMBINED_CLAIM = 'Statins reduce the risk of cardiovascular events in older adults';
