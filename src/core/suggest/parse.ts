/**
 * Reads a model's draft into sentences and the numbered sources each cites. Citations of the given
 * sources are `[1]`, `[1, 3]`, `[1-3]`, `[1][2]` (or `[Source 1]`). Everything else that cites — a
 * number beyond the sources, an author–year reference, a DOI, a URL, a citation key, a LaTeX
 * `\cite`, a reference list, a sentence that credits a named work — is taken out and reported: the
 * model may only cite what it was given.
 *
 *   parseDraft('Caching cuts latency [1] (Smith et al., 2020). It scales [2][7].', 5)
 *     → sentences: [{ text: 'Caching cuts latency.', sources: [1] }, { text: 'It scales.', sources: [2] }]
 *       removed:   [{ text: '(Smith et al., 2020)', … }, { text: '[7]', reason: 'cites source 7, but there are 5 sources' }]
 */
import { splitSentences } from '../manuscript/sentences';
import { INSUFFICIENT } from './prompt';
import { cleanReply } from './reply';

export interface DraftSentence {
  /** Without its citation markers. */
  readonly text: string;
  /** The sources it cites, by number from 1, in the order cited. */
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

const ONLY_NUMBERED = 'only the numbered sources may be cited';

/** `[3]`, `[1, 3]`, `[1-3]`, `[2; 4–6]`, `[Source 2]`. */
const MARKER = /\[\s*(?:sources?\s*)?(\d+(?:\s*[-–—]\s*\d+)?(?:\s*[,;]\s*(?:sources?\s*)?\d+(?:\s*[-–—]\s*\d+)?)*)\s*\]/gi;

const NAME = String.raw`\p{Lu}[\p{L}'’\-]+`;
/** Months and seasons name dates, not authors: "(March 2020)". */
const NOT_A_DATE = String.raw`(?!(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec|Spring|Summer|Autumn|Fall|Winter)\b)`;
const AUTHORS = String.raw`${NOT_A_DATE}${NAME}(?:\s+et\s+al\.?|\s+(?:and|&)\s+${NAME})?`;
const YEAR = String.raw`(?:19|20)\d{2}[a-z]?\b`;

/** Patterns removed wherever they stand, in this order (a DOI inside a URL goes with the URL). */
const FOREIGN: readonly { readonly pattern: RegExp; readonly reason: string }[] = [
  { pattern: /\b(?:https?:\/\/|www\.)[^\s<>()[\]]*[^\s<>()[\].,;:!?'"]/gi, reason: `a URL: ${ONLY_NUMBERED}` },
  { pattern: /\b(?:doi:\s*)?10\.\d{4,9}\/[^\s<>()[\]]*[^\s<>()[\].,;:!?'"]/gi, reason: `a DOI: ${ONLY_NUMBERED}` },
  { pattern: /\barXiv:\s*\d{4}\.\d{4,5}(?:v\d+)?|\bPMID:?\s*\d+|\bPMC\d{5,}/gi, reason: `an identifier of a paper: ${ONLY_NUMBERED}` },
  { pattern: /\\[A-Za-z]*cite[A-Za-z]*\*?(?:\[[^\]]*\]){0,2}\{[^}]*\}/g, reason: `a LaTeX citation: ${ONLY_NUMBERED}` },
  { pattern: /\[[^[\]]*@[^[\]]*\]|(?<![\w.@])@[A-Za-z][\w:.-]*\d[\w:.-]*/g, reason: `a citation key: ${ONLY_NUMBERED}` },
  // A parenthesis holding an author and a year, among other text or not: "(e.g. Lee 2019; Smith et al., 2020)".
  { pattern: new RegExp(String.raw`\((?=[^()]*${AUTHORS},?\s+${YEAR})[^()]*\)`, 'gu'), reason: `an author–year citation: ${ONLY_NUMBERED}` },
];

/**
 * A bracket that is not a marker but cites: a key ("[Smith2020]"), an author and year ("[Lee et al.,
 * 2019]"), or a number in another form ("[^2]", "[#3]"). "[sic]" and "[95% CI 1.2–3.4]" stay.
 */
const BRACKETED = /\[[^[\]]{1,100}\]/g;
const OTHER_CITATION = new RegExp(String.raw`^\s*\p{L}[\p{L}\p{N}_:-]*\d{2,4}[a-z]?\s*$|${YEAR}|\bet\s+al\b|^[\s^#*]*\d+[a-z]?\s*$`, 'u');

/** A work named in the running text: "Smith et al. (2020) found", "Lee and Park (2019)", "Smith et al. showed". */
const NARRATIVE = new RegExp(String.raw`${AUTHORS}\s*\(${YEAR}\)|${NAME}\s+et\s+al\.?(?![\p{L}])`, 'u');

const REFERENCE_HEADING = /^\s*(?:#+\s*)?[*_]*(?:references|sources|bibliography|works cited|citations)[*_]*\s*:?\s*$/i;
/** A reference-list entry without a heading: "[1] Smith J. (2020). Title. Journal." */
const REFERENCE_ENTRY = new RegExp(String.raw`^\s*\[\d+\]\s.*(?:\(${YEAR}\)|,\s*${YEAR}|doi|https?:)`, 'iu');

export function parseDraft(reply: string, sourceCount: number): ParsedDraft {
  const text = cleanReply(reply);
  if (!text) return { kind: 'empty' };
  const insufficient = new RegExp(String.raw`^[\s*_>#-]*${INSUFFICIENT}\b[*_\s]*:?(.*)$`, 'm').exec(text);
  if (insufficient) {
    const query = insufficient[1].replace(/[*_"“”<>]/g, '').trim();
    return { kind: 'insufficient', query: query || undefined };
  }
  if (!/\p{L}{2}/u.test(text)) return { kind: 'malformed', reason: 'the reply holds no words' };
  if (isJson(text)) return { kind: 'malformed', reason: 'the reply is data (JSON), not sentences' };

  const removed: Removal[] = [];
  const sentences: { text: string; sources: number[] }[] = [];
  for (const raw of splitIntoSentences(withoutReferenceList(text, removed))) {
    const sentence = readSentence(raw, sourceCount, removed);
    if (!sentence) continue;
    const previous = sentences[sentences.length - 1];
    if (/\p{L}/u.test(sentence.text)) sentences.push(sentence);
    else previous?.sources.push(...sentence.sources);
  }
  return { kind: 'draft', sentences: sentences.map(({ text, sources }) => ({ text, sources: [...new Set(sources)] })), removed };
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

/** The text before a reference list the model appended; the list is reported. */
function withoutReferenceList(text: string, removed: Removal[]): string {
  const lines = text.split('\n');
  const heading = lines.findIndex((line) => REFERENCE_HEADING.test(line));
  const cut = heading >= 0 ? heading : lines.findIndex((line) => REFERENCE_ENTRY.test(line));
  if (cut < 0) return text;
  removed.push({ text: lines.slice(cut).join('\n').trim(), reason: `a list of references: ${ONLY_NUMBERED}` });
  return lines.slice(0, cut).join('\n');
}

/** Sentences across the reply's lines; a blank line, list item or heading always ends one. */
function splitIntoSentences(text: string): string[] {
  const parts: string[] = [];
  let paragraph: string[] = [];
  const flush = (): void => {
    if (paragraph.length > 0) parts.push(paragraph.join(' '));
    paragraph = [];
  };
  for (const line of markersBeforePunctuation(text).split('\n')) {
    const item = /^\s*(?:[-*•+]|\d+[.)])\s+/.test(line);
    if (!line.trim() || item || /^\s*#/.test(line)) flush();
    // A heading is the model's layout, not part of the text.
    if (/^\s*#/.test(line) || !line.trim()) continue;
    paragraph.push(line.replace(/^\s*(?:[-*•+]|\d+[.)])\s+/, '').replace(/\*\*|__/g, '').trim());
  }
  flush();
  return parts.flatMap((part) => splitSentences({ text: part, offsets: [], hardBreaks: [] }).map((span) => part.slice(span.start, span.end)));
}

/** "It helps.[1] It scales. [2]" → "It helps [1]. It scales [2].": a marker after the full stop cites the sentence before it. */
function markersBeforePunctuation(text: string): string {
  return text.replace(/([.!?])((?:[ \t]*\[\s*(?:sources?\s*)?\d[^\]\n]*\])+)/gi, (_, stop: string, markers: string) => `${markers}${stop}`);
}

/** One sentence with its citations read and everything else that cites taken out; undefined when the sentence itself must go. */
function readSentence(raw: string, sourceCount: number, removed: Removal[]): { text: string; sources: number[] } | undefined {
  let text = raw;
  for (const { pattern, reason } of FOREIGN) text = take(text, pattern, reason, removed);
  const sources: number[] = [];
  text = text.replace(MARKER, (marker: string, list: string) => {
    const { valid, invalid } = citedNumbers(list, sourceCount);
    sources.push(...valid);
    if (invalid.length > 0) {
      const count = sourceCount === 1 ? 'there is 1 source' : `there are ${sourceCount} sources`;
      removed.push({ text: marker, reason: `cites source ${invalid.join(', ')}, but ${count}` });
    }
    return ' ';
  });
  text = take(text, BRACKETED, `a citation key, or a citation in another form: ${ONLY_NUMBERED}`, removed, (bracket) => OTHER_CITATION.test(bracket.slice(1, -1)));
  const narrative = NARRATIVE.exec(text);
  if (narrative) {
    removed.push({ text: tidy(text), reason: `it credits ${narrative[0].trim()} by name: ${ONLY_NUMBERED}` });
    return undefined;
  }
  return { text: tidy(text), sources };
}

/** The numbers a marker lists that name a given source, and those that do not ("7", "6–9"). */
function citedNumbers(list: string, sourceCount: number): { valid: number[]; invalid: string[] } {
  const valid: number[] = [];
  const invalid: string[] = [];
  for (const item of list.replace(/sources?/gi, '').split(/[,;]/)) {
    const [from, to = from] = item.split(/[-–—]/).map((n) => Number(n.trim()));
    const low = Math.min(from, to);
    const high = Math.max(from, to);
    for (let n = Math.max(low, 1); n <= Math.min(high, sourceCount); n++) valid.push(n);
    if (low < 1 || high > sourceCount) invalid.push(low === high ? String(low) : `${low}–${high}`);
  }
  return { valid, invalid };
}

function take(text: string, pattern: RegExp, reason: string, removed: Removal[], when: (match: string) => boolean = () => true): string {
  return text.replace(pattern, (match: string) => {
    if (!when(match)) return match;
    removed.push({ text: match, reason });
    return ' ';
  });
}

/** The sentence as it reads once markers are gone: no space before punctuation, no empty brackets. */
function tidy(text: string): string {
  return text
    .replace(/\(\s*[,;]?\s*\)|\[\s*\]/g, ' ')
    .replace(/\s+/g, ' ')
    .replace(/\s+([.,;:!?)])/g, '$1')
    .replace(/([(])\s+/g, '$1')
    .replace(/[,;:]+([.!?])/g, '$1')
    .replace(/([.!?])\1+/g, '$1')
    .trim();
}
