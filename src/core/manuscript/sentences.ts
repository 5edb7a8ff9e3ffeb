import { doubled } from '../text/doubled';
import type { PlainText } from './plainText';

export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * Abbreviations after which a period does not end a sentence even before a capital letter
 * ("Fig. 2", "et al. (2019)", "e.g. Gaussian"). Compared lower-cased, without the final period.
 * The one list: a suggestion's reply is split into sentences by it too (`suggest/parse.ts`).
 */
export const NON_FINAL_ABBREVIATIONS: ReadonlySet<string> = new Set([
  'al',
  'e.g',
  'i.e',
  'cf',
  'vs',
  'viz',
  'fig',
  'figs',
  'eq',
  'eqs',
  'eqn',
  'eqns',
  'sec',
  'secs',
  'sect',
  'ref',
  'refs',
  'tab',
  'tabs',
  'ch',
  'chap',
  'app',
  'no',
  'nos',
  'vol',
  'vols',
  'p',
  'pp',
  'dr',
  'mr',
  'mrs',
  'ms',
  'prof',
  'st',
  'jr',
  'sr',
  'approx',
  'resp',
  'a.k.a',
  'w.r.t',
  'e.t.c',
  'ca',
  'thm',
  'lem',
  'def',
  'prop',
  'cor',
  'alg',
  'ed',
  'eds',
  'inc',
  'ltd',
  'co',
  'corp',
  'u.s',
  'dept',
  'univ',
  'est',
  'min',
  'max',
]);

/**
 * Words that open sentences and are not names, so that a single letter before them ends a sentence
 * rather than being an initial. Compared lower-cased.
 */
const SENTENCE_OPENERS = new Set([
  'a',
  'all',
  'also',
  'although',
  'an',
  'as',
  'at',
  'because',
  'both',
  'but',
  'by',
  'each',
  'finally',
  'for',
  'from',
  'further',
  'furthermore',
  'here',
  'how',
  'however',
  'if',
  'in',
  'it',
  'its',
  'many',
  'moreover',
  'most',
  'no',
  'not',
  'on',
  'one',
  'only',
  'other',
  'our',
  'since',
  'so',
  'some',
  'such',
  'that',
  'the',
  'their',
  'then',
  'there',
  'these',
  'they',
  'this',
  'those',
  'thus',
  'to',
  'two',
  'we',
  'what',
  'when',
  'where',
  'which',
  'while',
  'with',
  'yet',
  'using',
  'unlike',
  'therefore',
  'hence',
  'instead',
  'indeed',
  'overall',
  'consequently',
]);

const CLOSERS = new Set(['"', "'", ')', ']', '\u201d', '\u2019']);
/** Module constants: a regular expression literal in a function is a new object each call, over every sentence end. */
const SENTENCE_START = /[\p{Lu}\p{N}"'(\[\u201c\u2018]/u;
const WORD_OR_PERIOD = /[\p{L}.]/u;

/** Splits plain text into sentences. Hard breaks (paragraphs, headings, items) always end one. */
export function splitSentences(plain: PlainText): Span[] {
  const spans = sentenceSpans(plain);
  const split: Span[] = [];
  for (let i = 0; i < spans.length; i += 2) split.push({ start: spans[i], end: spans[i + 1] });
  return split;
}

/**
 * `splitSentences` packed: the start and end of the `i`th sentence at `2i` and `2i + 1`. A megabyte of
 * short footnotes is a third of a million sentences, which as objects kept the collector busy.
 */
export function sentenceSpans(plain: PlainText): Uint32Array {
  const { text, hardBreaks } = plain;
  const spans = new SpanList();
  let segmentStart = 0;
  for (const end of hardBreaks) {
    splitSegment(text, segmentStart, end, spans);
    segmentStart = end;
  }
  splitSegment(text, segmentStart, text.length, spans);
  return spans.packed();
}

/** Spans appended as pairs of numbers to a typed array grown by doubling. */
class SpanList {
  private items: Uint32Array = new Uint32Array(64);
  private size = 0;

  push(start: number, end: number): void {
    if (this.size === this.items.length) this.items = doubled(this.items);
    this.items[this.size++] = start;
    this.items[this.size++] = end;
  }

  /** The spans in an array of their own, to hand to another thread. */
  packed(): Uint32Array {
    return this.items.slice(0, this.size);
  }
}

function splitSegment(text: string, from: number, to: number, out: SpanList): void {
  let start = from;
  for (let i = from; i < to; i++) {
    const unit = text.charCodeAt(i);
    // `.`, `!`, `?`: compared as units, since this runs over every character of the manuscript.
    if (unit !== 0x2e && unit !== 0x21 && unit !== 0x3f) continue;
    const ch = text[i];
    let end = i + 1;
    while (end < to && CLOSERS.has(text[end])) end++;
    if (end >= to || text[end] !== ' ') continue;
    const next = text[end + 1];
    if (next === undefined || !startsSentence(next)) continue;
    if (ch === '.' && isAbbreviationBefore(text, i, end + 1)) continue;
    pushTrimmed(text, start, end, out);
    start = end;
  }
  pushTrimmed(text, start, to, out);
}

function startsSentence(ch: string): boolean {
  return SENTENCE_START.test(ch);
}

function isAbbreviationBefore(text: string, periodIndex: number, nextStart: number): boolean {
  let wordStart = periodIndex;
  while (wordStart > 0 && WORD_OR_PERIOD.test(text[wordStart - 1])) wordStart--;
  const word = text.slice(wordStart, periodIndex);
  if (word.length === 0) return false;
  // A single letter is an initial ("J. Smith"), unless a word that opens sentences, not names, follows:
  // "written in R. All tests", "vitamin C. Our results".
  if (word.length === 1) return !opensSentence(text.slice(nextStart, nextStart + 20));
  return NON_FINAL_ABBREVIATIONS.has(word.toLowerCase());
}

/** Whether text starts with a sentence opener, and not with another initial ("P. A. M. Dirac"). */
function opensSentence(text: string): boolean {
  const word = /^(\p{L}+)(\.?)/u.exec(text);
  if (!word || (word[1].length === 1 && word[2] === '.')) return false;
  return SENTENCE_OPENERS.has(word[1].toLowerCase());
}

function pushTrimmed(text: string, start: number, end: number, out: SpanList): void {
  while (start < end && text.charCodeAt(start) === 0x20) start++;
  while (end > start && text.charCodeAt(end - 1) === 0x20) end--;
  if (end > start) out.push(start, end);
}

/**
 * The sentence a citation at plain-text position `anchor` belongs to: the one containing it, else the
 * one it directly follows ("… is known.\cite{x}" cites the sentence it ends). `spans` as `sentenceSpans` packs them.
 */
export function sentenceIndexAt(spans: Uint32Array, anchor: number): number | undefined {
  const count = spans.length / 2;
  if (count === 0) return undefined;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (spans[2 * mid] <= anchor) lo = mid;
    else hi = mid - 1;
  }
  const start = spans[2 * lo];
  if (start > anchor) return lo;
  if (anchor <= spans[2 * lo + 1]) return lo > 0 && spans[2 * lo - 1] === anchor && start === anchor ? lo - 1 : lo;
  return lo;
}
