import { abstractSentences } from '../index/passages';
import type { Passage } from './types';

/**
 * About a paragraph of a results section, and well within what an NLI model reads at once (512
 * tokens with the claim): a longer paragraph is judged in pieces of whole sentences.
 */
const MAX_WORDS = 90;

/** Paragraph text made into passages of whole sentences, each at most about `MAX_WORDS` words. */
export function chunkParagraph(text: string, place: Omit<Passage, 'text'>): Passage[] {
  const clean = text
    .replace(/\s+/g, ' ')
    // What a dropped citation or formula leaves behind: "shown ( ) before ." reads "shown before."
    .replace(/[([]\s*[,;\u2013-]?\s*[)\]]/g, '')
    .replace(/\s+([.,;:])/g, '$1')
    .replace(/[,;]+(?=[.,;])/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return [];
  if (wordCount(clean) <= MAX_WORDS) return [{ ...place, text: clean }];
  const passages: Passage[] = [];
  let current: string[] = [];
  let words = 0;
  for (const { start, end } of abstractSentences(clean)) {
    const sentence = clean.slice(start, end);
    const count = wordCount(sentence);
    if (current.length > 0 && words + count > MAX_WORDS) {
      passages.push({ ...place, text: current.join(' ') });
      current = [];
      words = 0;
    }
    current.push(sentence);
    words += count;
  }
  if (current.length > 0) passages.push({ ...place, text: current.join(' ') });
  return passages;
}

function wordCount(text: string): number {
  return text.split(' ').filter((w) => w !== '').length;
}
