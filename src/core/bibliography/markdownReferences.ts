/**
 * A Markdown document's own reference list: the numbered or bulleted items under a heading such as
 * "References" or "Bibliography", each read into a .bib entry's fields by `referenceText.ts`. Read
 * only when the document names no bibliography file: then the list is the bibliography.
 */
import { LineIndex } from '../text/positions';
import { MAX_REFERENCE_CHARACTERS, parseReferenceText } from './referenceText';
import type { BibEntry } from './types';

const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const REFERENCE_HEADING = /^(?:\d+\.?\s+)?(?:references?|bibliography|works cited|literature(?: cited)?|sources|citations)$/i;
/** `1. `, `1) `, `[1] `, `- `, `* `, `+ `, or `- [1] `. */
const ITEM = /^(\s{0,3})(?:(\d{1,4})[.)]|\[(\d{1,4})\]|[-*+](?:\s+\[(\d{1,4})\])?)\s+(\S.*)$/;

/** The entries of the reference lists of a Markdown text, keyed by their numbers (`1`) or, unnumbered, `ref-1`. */
export function markdownReferenceEntries(text: string, file: string): BibEntry[] {
  const lines = text.split(/\r\n|\r|\n/);
  const index = new LineIndex(text);
  const entries: BibEntry[] = [];
  let inList = false;
  let fence = false;
  let current: { key: string; line: number; keyStart: number; keyLength: number; text: string[]; lastLine: number } | undefined;
  const finish = (): void => {
    if (current) entries.push(entryOf(current, file, index, lines));
    current = undefined;
  };
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    if (/^\s{0,3}(?:```|~~~)/.test(line)) fence = !fence;
    if (fence) continue;
    const heading = HEADING.exec(line);
    if (heading) {
      finish();
      inList = REFERENCE_HEADING.test(heading[1].replace(/[*_]/g, ''));
      continue;
    }
    if (!inList) continue;
    const item = ITEM.exec(line);
    if (item) {
      finish();
      const number = item[2] ?? item[3] ?? item[4];
      const key = number ?? `ref-${entries.length + 1}`;
      const marker = item[1].length;
      current = { key, line: n, keyStart: marker, keyLength: line.length - marker - item[5].length, text: [item[5]], lastLine: n };
    } else if (current && /^\s+\S/.test(line)) {
      current.text.push(line.trim());
      current.lastLine = n;
    } else if (line.trim() !== '') finish();
  }
  finish();
  return entries;
}

function entryOf(
  item: { key: string; line: number; keyStart: number; keyLength: number; text: string[]; lastLine: number },
  file: string,
  index: LineIndex,
  lines: readonly string[],
): BibEntry {
  const text = plainText(item.text.join(' ').slice(0, MAX_REFERENCE_CHARACTERS));
  const start = index.offsetAt({ line: item.line, character: 0 });
  const end = index.offsetAt({ line: item.lastLine, character: lines[item.lastLine].length });
  return {
    key: item.key,
    file,
    range: index.rangeOf(start + item.keyStart, end),
    keyRange: index.rangeOf(start + item.keyStart, start + item.keyStart + item.keyLength),
    ...parseReferenceText([text]),
    reference: text,
  };
}

/** The item's Markdown as text: a link as its text and address, emphasis and code marks dropped. */
function plainText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\(([^)\s]*)[^)]*\)/g, '$1 $2')
    .replace(/<(https?:\/\/[^>\s]+)>/g, '$1')
    .replace(/(\*\*|__|\*|_|`)(\S(?:.*?\S)?)\1/g, '$2')
    .replace(/\\([\\`*_{}[\]()#+\-.!])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}
