/**
 * Reads a model's draft into sentences and the numbered sources each cites. A draft is prose, never
 * markup: after `normalizeDraft`, the only structure read from it is its sentences and `[n]` markers
 * (`[1]`, `[1, 3]`, `[1-3]`, `[1][2]`) whose numbers are given sources. Everything else is text, which
 * the writer escapes for the manuscript. A sentence still pointing at a work in any other way — a
 * number beyond the sources, a bracket, a superscript, an author and year, a DOI, a URL, a key, TeX —
 * is dropped whole and reported with the reason (see `citationLike`).
 *
 *   parseDraft('Caching cuts latency [1]. It scales (Smith et al., 2020) [2].', 5, limits)
 *     → sentences: [{ text: 'Caching cuts latency.', sources: [1] }]
 *       removed:   [{ text: 'It scales (Smith et al., 2020).', reason: 'works named by "et al."' }]
 *
 * One pass over the text, with patterns that cannot backtrack: a draft is whatever a server sends.
 */
import { NON_FINAL_ABBREVIATIONS } from '../manuscript/sentences';
import { citationLike } from './citationLike';
import { DEFAULT_DRAFT_LIMITS, type DraftLimits } from './limits';
import { normalizeDraft, NOTE_MARK } from './normalize';
import { INSUFFICIENT } from './prompt';
import { cleanReply } from './reply';

export interface DraftSentence {
  /** Without its citation markers. */
  readonly text: string;
  /** The sources it cites, by number from 1, in the order cited; empty for an uncited sentence. */
  readonly sources: readonly number[];
}

/** Something taken out of the reply, and why. */
export interface Removal {
  readonly text: string;
  readonly reason: string;
}

export type ParsedDraft =
  | { readonly kind: 'draft'; readonly sentences: readonly DraftSentence[]; readonly removed: readonly Removal[] }
  /** The model found the sources insufficient; `query` is its search for what is missing. */
  | { readonly kind: 'insufficient'; readonly query?: string }
  | { readonly kind: 'empty' }
  | { readonly kind: 'malformed'; readonly reason: string };

/** A heading or lead-in that starts a list of works: everything from it on goes. */
const LIST_OF_WORKS =
  /^(?:references?|sources?|bibliography|works\s{1,3}cited|citations?|further\s{1,3}reading|reading\s{1,3}list|see\s{1,3}also|literature|notes?)[\s*_]{0,6}(?::|$)/iu;
/** What a list item or a heading starts with. */
const LIST_ITEM = /^(?:[-*•+]|\d{1,3}[.)])\s/u;
/** More than a draft of a few sentences could hold: past this many, the rest of a reply is not read. */
const MAX_REMOVALS = 50;
/** A marker listing more numbers than this is not one: no draft cites that many sources at once. */
const MAX_MARKER_ITEMS = 20;
/** No source list is longer; a range beyond it is not a citation of given sources. */
const MAX_MARKER_NUMBER = 999;

export function parseDraft(reply: string, sourceCount: number, limits: DraftLimits = DEFAULT_DRAFT_LIMITS): ParsedDraft {
  const text = cleanReply(normalizeDraft(reply));
  if (!text) return { kind: 'empty' };
  const lines = text.split('\n');
  for (const line of text.includes(INSUFFICIENT) ? lines : []) {
    const lead = stripLead(line);
    if (lead.startsWith(INSUFFICIENT) && !/[\p{L}\p{N}_]/u.test(lead.charAt(INSUFFICIENT.length))) {
      const query = lead
        .slice(INSUFFICIENT.length)
        .replace(/^[\s*_:]+/, '')
        .replace(/[*_"“”<>]/g, '')
        .trim();
      return { kind: 'insufficient', query: query || undefined };
    }
  }
  if (!/\p{L}{2}/u.test(text)) return { kind: 'malformed', reason: 'the reply holds no words' };
  if (isJson(text)) return { kind: 'malformed', reason: 'the reply is data (JSON), not sentences' };

  const removed: Removal[] = [];
  const kept: { text: string; sources: number[] }[] = [];
  let characters = 0;
  /** The sentence just read, if it was kept: markers standing on their own cite it. */
  let previous: { text: string; sources: number[] } | undefined;
  const sentences = sentencesOf(lines, removed);
  for (let next = sentences.next(); !next.done; next = sentences.next()) {
    const raw = next.value;
    if (removed.length >= MAX_REMOVALS) {
      removed.push(removal(raw, `not read, nor anything after it: more than ${MAX_REMOVALS} parts of the draft were taken out already`));
      break;
    }
    // Twice the limit, markers and all, cannot fit it: not worth reading.
    const read =
      raw.length > 2 * limits.maxCharacters
        ? removal(raw, `longer than the limit of ${limits.maxCharacters} characters (attest.suggest.maxCharacters)`)
        : readSentence(raw, sourceCount);
    if ('reason' in read) {
      removed.push(read);
      previous = undefined;
    } else if (/\p{L}/u.test(read.text)) {
      const beyond =
        kept.length >= limits.maxSentences
          ? `beyond the limit of ${limits.maxSentences} sentences (attest.suggest.maxSentences)`
          : characters + read.text.length > limits.maxCharacters
            ? `beyond the limit of ${limits.maxCharacters} characters (attest.suggest.maxCharacters)`
            : undefined;
      if (beyond) {
        // What follows would have to skip this sentence, which can change what the rest means.
        removed.push(removal(raw, sentences.next().done ? beyond : `${beyond}; the rest of the draft after it was not read`));
        break;
      }
      kept.push(read);
      characters += read.text.length + 1;
      previous = read;
    } else if (previous && read.sources.length > 0 && !/\p{N}/u.test(read.text)) {
      for (const source of read.sources) previous.sources.push(source);
    } else if (read.text !== '' || read.sources.length > 0) {
      removed.push(removal(raw, 'no words: markers, numbers or punctuation without a sentence to cite'));
    }
  }
  return { kind: 'draft', sentences: kept.map((s) => ({ text: s.text, sources: [...new Set(s.sources)] })), removed };
}

/** The line without the list marks, quote marks and emphasis a model may put before a word. */
function stripLead(line: string): string {
  let at = 0;
  while (at < line.length && ' \t*_>#-'.includes(line[at])) at++;
  return line.slice(at);
}

function isJson(text: string): boolean {
  if (!/^[{[]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The draft's sentences across its lines: a blank line, list item or heading always ends one; a
 * heading is the model's layout and goes; a list of works ends the draft.
 */
function* sentencesOf(lines: readonly string[], removed: Removal[]): Generator<string> {
  let paragraph: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') {
      if (paragraph.length > 0) yield* splitSentences(paragraph.join(' '));
      paragraph = [];
      continue;
    }
    const lead = stripLead(line);
    const listOfWorks = LIST_OF_WORKS.test(lead);
    const heading = line.startsWith('#');
    if (paragraph.length > 0 && (listOfWorks || heading || LIST_ITEM.test(line))) {
      yield* splitSentences(paragraph.join(' '));
      paragraph = [];
    }
    if (listOfWorks) {
      removed.push(
        removal(
          lines
            .slice(i, i + 20)
            .join('\n')
            .trim(),
          'a list of works: only the numbered sources may be cited',
        ),
      );
      return;
    }
    if (heading) removed.push(removal(line, 'a heading, which is layout rather than text'));
    else paragraph.push(line.replace(LIST_ITEM, '').split('**').join('').split('__').join(''));
  }
  yield* splitSentences(paragraph.join(' '));
}

/**
 * A paragraph's sentences: each ends at `.`, `!` or `?` (and closing quotes) before a space and a
 * capital, digit, quote or bracket, unless the word before is an abbreviation or an initial. Markers
 * after the full stop ("It helps. [1] It scales.") belong to the sentence before them.
 */
function* splitSentences(paragraph: string): Generator<string> {
  let start = 0;
  for (let i = 0; i < paragraph.length; i++) {
    const char = paragraph[i];
    if (char !== '.' && char !== '!' && char !== '?') continue;
    let end = i + 1;
    while (end < paragraph.length && `"'”’)`.includes(paragraph[end])) end++;
    if (char === '.' && isAbbreviation(paragraph, i)) continue;
    let next = end;
    while (next < paragraph.length && paragraph[next] === ' ') next++;
    for (let marker = markerAt(paragraph, next); marker; marker = markerAt(paragraph, next)) {
      end = marker.end;
      next = end;
      while (next < paragraph.length && paragraph[next] === ' ') next++;
    }
    if (next < paragraph.length && (next === end || !/[\p{Lu}\p{N}"'“‘([]/u.test(paragraph[next]))) continue;
    const sentence = paragraph.slice(start, end).trim();
    if (sentence) yield sentence;
    start = next;
    i = Math.max(i, next - 1);
  }
  const last = paragraph.slice(start).trim();
  if (last) yield last;
}

/** Whether the full stop at `dot` ends an abbreviation ("e.g.", "Fig.") or an initial ("J."). */
function isAbbreviation(text: string, dot: number): boolean {
  let start = dot;
  while (start > 0 && dot - start < 12 && /[\p{L}.]/u.test(text[start - 1])) start--;
  const word = text.slice(start, dot).toLowerCase();
  return NON_FINAL_ABBREVIATIONS.has(word) || /^\p{L}$/u.test(word);
}

/** A `[n]` marker starting at `at`: its numbers and where it ends; undefined when the bracket is anything else. */
function markerAt(text: string, at: number): { numbers: number[][]; end: number } | undefined {
  if (text[at] !== '[') return undefined;
  const numbers: number[][] = [];
  let i = at + 1;
  const spaces = (): void => {
    while (text[i] === ' ') i++;
  };
  const number = (): number | undefined => {
    const from = i;
    while (i < text.length && i - from < 4 && text[i] >= '0' && text[i] <= '9') i++;
    return i > from && i - from < 4 ? Number(text.slice(from, i)) : undefined;
  };
  for (;;) {
    spaces();
    const from = number();
    if (from === undefined) return undefined;
    spaces();
    let to = from;
    if ('-–—'.includes(text[i] ?? ',')) {
      i++;
      spaces();
      const end = number();
      if (end === undefined) return undefined;
      to = end;
      spaces();
    }
    numbers.push([from, to]);
    if (text[i] === ']') return { numbers, end: i + 1 };
    if (numbers.length >= MAX_MARKER_ITEMS) return undefined;
    if (text[i] !== ',' && text[i] !== ';') return undefined;
    i++;
  }
}

/** The sentence without its markers, with the sources they cite; or why it is dropped. */
function readSentence(raw: string, sourceCount: number): { text: string; sources: number[] } | Removal {
  let text = '';
  const sources: number[] = [];
  const beyond: string[] = [];
  let at = 0;
  for (let open = raw.indexOf('['); open >= 0; open = raw.indexOf('[', open + 1)) {
    const marker = markerAt(raw, open);
    if (!marker) continue;
    for (const [from, to] of marker.numbers) {
      const low = Math.min(from, to);
      const high = Math.max(from, to);
      if (low < 1 || high > Math.min(sourceCount, MAX_MARKER_NUMBER)) beyond.push(low === high ? String(low) : `${low}–${high}`);
      else for (let n = low; n <= high; n++) sources.push(n);
    }
    text += `${raw.slice(at, open)} `;
    at = marker.end;
    open = marker.end - 1;
  }
  text = tidy(text + raw.slice(at));
  for (const number of sourcesInWords(text)) if (number < 1 || number > sourceCount) beyond.push(String(number));
  if (beyond.length > 0) {
    const count = sourceCount === 1 ? 'there is 1 source' : `there are ${sourceCount} sources`;
    return removal(raw, `it cites source ${beyond.join(', ')}, but ${count}`);
  }
  const reason = citationLike(text);
  if (reason) return removal(raw, reason);
  return { text, sources: [...new Set(sources)] };
}

/** "source 7", "sources 3 and 9", "source no. 4": a source cited by its number in words. */
const SOURCES_IN_WORDS = /(?<![\p{L}\p{N}])sources?\s{0,3}(?:(?:no\.|nos\.|numbers?|#)\s{0,3})?(\d{1,6}(?:\s{0,3}(?:,|;|and|or|&|[-–—]|to)\s{0,3}\d{1,6}){0,20})(?!\p{N})/giu;

/** The numbers of the sources a sentence names in words; the manuscript has no numbered sources, so one beyond those given is another work. */
function sourcesInWords(text: string): number[] {
  return [...text.matchAll(SOURCES_IN_WORDS)].flatMap((match) => (match[1].match(/\d{1,6}/g) ?? []).map(Number));
}

/** The sentence as it reads once markers are gone: single spaces, no space before punctuation. */
function tidy(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?)])/g, '$1')
    .replace(/\( /g, '(')
    .replace(/\(\)/g, '')
    .replace(/[,;:]([.!?])/g, '$1')
    .trim();
}

/** Enough of what was taken out to recognise it; a server may send a megabyte in one "sentence". */
const SHOWN_CHARACTERS = 300;

export function removal(text: string, reason: string): Removal {
  const shown = text.split(NOTE_MARK).join('⁽…⁾');
  return { text: shown.length <= SHOWN_CHARACTERS ? shown : `${shown.slice(0, SHOWN_CHARACTERS)}…`, reason };
}
