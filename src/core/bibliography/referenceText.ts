/**
 * A reference written as text ("K. He, X. Zhang, … Deep residual learning for image recognition. In
 * CVPR, 2016.") read into the fields a .bib entry has.
 *
 * Hand-written: no npm package parses reference strings (the field's parsers, AnyStyle and GROBID,
 * are a Ruby gem and a Java service), and citation-js has no plug-in for free text. What BibTeX styles
 * print is regular: blocks separated by `\newblock` (authors, title, venue), which the callers keep;
 * for text without them the common hand-written shapes are read: a quoted title (IEEE), a year in
 * parentheses after the authors (APA, Harvard), family names followed by initials (Vancouver), and
 * sentences otherwise. `bench/referenceText.bench.ts` measures each field on real entries.
 */
import { splitPersonName } from '../sources/normalize';
import { identifiersIn, type ReferenceIdentifiers } from './referenceIdentifiers';
import type { Author } from './types';

export interface ReferenceFields extends ReferenceIdentifiers {
  readonly authors: readonly Author[];
  /** The list ended in "et al." or "and others". */
  readonly authorsTruncated?: boolean;
  /** Undefined when the text could not be read as authors, title and venue. */
  readonly title?: string;
  readonly venue?: string;
  readonly year?: number;
  /**
   * The entry type the text shows: a book, thesis or report, which the sources index incompletely,
   * so that a search that finds none is no sign of fabrication; `misc` otherwise, which the existence
   * check judges as a paper when it has authors, a title and a year (`indexable.ts`).
   */
  readonly type: string;
}

/** A reference shorter than this many letters and digits is not read for a title: too little to look up. */
const MIN_REFERENCE_LETTERS = 15;
/** The longest reference read: longer text is not one reference, and each pattern below stays bounded. */
export const MAX_REFERENCE_CHARACTERS = 4000;

interface Parts {
  readonly authors: string;
  readonly title?: string;
  readonly rest: string;
}

/**
 * Reads a reference given as its plain-text blocks: several when its source separated them (a
 * `\newblock`), else one.
 */
export function parseReferenceText(blocks: readonly string[]): ReferenceFields {
  const cleaned = blocks.map((b) => b.replace(/\s+/g, ' ').trim()).filter((b) => b !== '');
  const whole = cleaned.join(' ').slice(0, MAX_REFERENCE_CHARACTERS);
  const identifiers = identifiersIn(whole);
  if ((whole.match(/[\p{L}\p{N}]/gu)?.length ?? 0) < MIN_REFERENCE_LETTERS) return { ...identifiers, authors: [], type: 'misc' };
  const withoutIdentifiers = withoutIdentifierText(whole);
  const parts = cleaned.length >= 2 ? { authors: cleaned[0], title: cleaned[1], rest: cleaned.slice(2).join(' ') } : splitFreeText(withoutIdentifiers);
  const { authors, truncated } = authorList(parts.authors);
  const title = parts.title === undefined ? undefined : cleanTitle(parts.title);
  const venue = venueOf(withoutIdentifierText(parts.rest));
  const year = yearIn(withoutIdentifiers);
  return {
    ...identifiers,
    type: typeOf(parts.rest),
    authors,
    ...(truncated && { authorsTruncated: true }),
    ...(title !== undefined && { title }),
    ...(venue !== undefined && { venue }),
    ...(year !== undefined && { year }),
  };
}

/** The text without its DOI, URL, arXiv id and ISBN, whose digits are no year and whose dots end no sentence. */
function withoutIdentifierText(text: string): string {
  return text
    .replace(
      /\b(?:doi\s*:\s*|https?:\/\/\S+|10\.\d{4,9}\/\S+|arxiv\s*:\s*\S+|PMID\s*:?\s*\d+|ISBN(?:-1[03])?\s*:?\s*(?:\d[\s-]?){9,12}[\dXx]|(?:Available|Retrieved)\s+(?:from|at)\s*:?|URL\s*:?)/gi,
      ' ',
    )
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A title in quotes, as IEEE prints it: the quotes open a field (after the authors' comma or full
 * stop) and close one (before a comma, a full stop or a space), so a phrase quoted inside a title
 * ("“Why should I trust you?”: Explaining …") is part of it, not the title. Bounded, so each scan stays linear.
 */
const QUOTED_TITLE = /(?<=(?:^|[,.;:)])\s{0,3})(?:[“"«](.{3,300}?)[”"»]|``(.{3,300}?)''|‘‘(.{3,300}?)’’)(?=[\s,.;]|$)/;
const APA_YEAR = /\(\s*(?:(?:1[5-9]|20)\d{2}[a-z]?|n\.\s?d\.|in press)(?:,[^)]{0,40})?\s*\)\s*[.,:]?\s*/i;
/** "van der Schaar M": family name (its particles lower-case), then up to three initials without points. */
const VANCOUVER_NAME_PATTERN = "(?:\\p{Ll}+ ){0,3}\\p{Lu}[\\p{L}'’-]+(?: [\\p{L}'’-]+){0,3} \\p{Lu}{1,3}";
const VANCOUVER_AUTHORS = new RegExp(`^(?:${VANCOUVER_NAME_PATTERN}, )*${VANCOUVER_NAME_PATTERN}(?:, et al)?\\. `, 'u');

/** Authors, title and the rest of one text, by the first shape it has. */
function splitFreeText(text: string): Parts {
  const quoted = QUOTED_TITLE.exec(text);
  if (quoted) {
    const title = quoted[1] ?? quoted[2] ?? quoted[3];
    return { authors: text.slice(0, quoted.index), title, rest: text.slice(quoted.index + quoted[0].length).replace(/^[\s,.]*(?:in\b:?)?/i, '') };
  }
  const apa = APA_YEAR.exec(text);
  if (apa && apa.index > 0) return { authors: text.slice(0, apa.index), ...titleAndRest(sentences(text.slice(apa.index + apa[0].length))) };
  const vancouver = VANCOUVER_AUTHORS.exec(text);
  if (vancouver) return { authors: vancouver[0], ...titleAndRest(sentences(text.slice(vancouver[0].length))) };
  const [authors, ...rest] = sentences(text);
  return { authors, ...titleAndRest(rest) };
}

const YEAR_FIRST = /^(?:1[5-9]|20)\d{2}\b/;

/**
 * The title and the rest from the sentences after the authors. A title that asks or exclaims
 * ("How faithful is your synthetic data? Sample-level metrics for …") runs on into its subtitle when
 * a venue still follows the subtitle: a sentence that names something besides a year (Vancouver's
 * "2023;36:1-10" follows the venue). "Is it fair? Nature, 12(3)" is a title and its venue, and so is
 * a question followed by "In Proceedings of …".
 */
function titleAndRest([title, ...rest]: string[]): Pick<Parts, 'title' | 'rest'> {
  const named = (sentence: string): boolean => !YEAR_FIRST.test(sentence) && /\p{L}{2}/u.test(sentence);
  if (title !== undefined && /[?!]$/.test(title) && rest.length >= 2 && !/^in\b/i.test(rest[0]) && rest.slice(1).some(named)) {
    return { title: `${title} ${rest[0]}`, rest: rest.slice(1).join(' ') };
  }
  return { title, rest: rest.join(' ') };
}

/**
 * The text cut at each ". " (or "? ", "! ") that ends a sentence: not after an initial ("K. He"), unless
 * the initials follow a comma and the next word starts a phrase ("He, K. Deep residual …").
 */
function sentences(text: string): string[] {
  const parts: string[] = [];
  let start = 0;
  const boundary = /[.?!]\s+/g;
  for (let m = boundary.exec(text); m; m = boundary.exec(text)) {
    const end = m.index + 1;
    const before = text.slice(Math.max(start, m.index - 40), end);
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 60);
    if (text[m.index] === '.' && !endsSentence(before, after)) continue;
    parts.push(text.slice(start, end));
    start = m.index + m[0].length;
  }
  if (start < text.length) parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

const INITIAL_AT_END = /(?:^|[\s.(-])\p{Lu}\.$/u;
const INITIALS_AFTER_COMMA = /,\s*(?:\p{Lu}\.\s?-?)+$/u;
const ABBREVIATION_AT_END = /\b(?:al|vs|eds?|pp|vol|no|proc|conf|int|trans|jr|sr|dr|st|e\.g|i\.e|cf|fig)\.$/i;
/** A name's next word in an author list is followed by a comma, a full stop, "and" or "&". */
const NEXT_IS_NAME = /^[\p{Lu}][\p{L}'’-]*(?:[,.]|\s+(?:and|&)\s)/u;

function endsSentence(before: string, after: string): boolean {
  if (/\bet al\.$/i.test(before)) return true;
  if (/^et\.?\s*al\b/i.test(after)) return false;
  if (ABBREVIATION_AT_END.test(before)) return false;
  if (!INITIAL_AT_END.test(before)) return true;
  return INITIALS_AFTER_COMMA.test(before) && !NEXT_IS_NAME.test(after);
}

const TRUNCATION = /(?:,?\s*(?:et\.?\s*al\.?|and others|others)\s*\.?)$/i;

/** The people of an author block: "K. He, X. Zhang, and J. Sun", "He, K., Zhang, X., & Sun, J.", "He K, Zhang X". */
function authorList(block: string): { authors: Author[]; truncated: boolean } {
  let text = block
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.,;:]+$/, '');
  const truncated = TRUNCATION.test(text);
  if (truncated) text = text.replace(TRUNCATION, '').trim();
  if (text === '') return { authors: [], truncated };
  const names = splitNames(text);
  return { authors: names.map(nameOf).filter((a): a is Author => a !== undefined), truncated };
}

const INITIALS = /^(?:\p{Lu}\.?\s?-?\s?)+$/u;

function splitNames(text: string): string[] {
  // Names separated by semicolons or "and" each keep their inner comma ("He, Kaiming; Sun, Jian").
  const bySemicolon = text.split(/\s*;\s*/);
  if (bySemicolon.length > 1) return bySemicolon.flatMap((part) => part.split(/\s+(?:and|&)\s+/));
  const pieces = text.split(/\s*,\s*(?:(?:and|&)\s+)?|\s+(?:and|&)\s+/).filter((p) => p !== '');
  // "He, K., Zhang, X." alternates family names and initials: pair them.
  const alternates = pieces.length >= 2 && pieces.length % 2 === 0 && pieces.every((p, i) => (i % 2 === 1) === INITIALS.test(p));
  if (alternates) return pieces.flatMap((p, i) => (i % 2 === 0 ? [`${p}, ${pieces[i + 1]}`] : []));
  // "He, Kaiming and Sun, Jian": a comma in each "and"-separated name.
  const byAnd = text.split(/\s+(?:and|&)\s+/);
  if (byAnd.length > 1 && byAnd.every((n) => (n.match(/,/g)?.length ?? 0) === 1)) return byAnd;
  return pieces;
}

const VANCOUVER_NAME = /^(.+?) (\p{Lu}{1,3})$/u;

function nameOf(name: string): Author | undefined {
  const clean = name.replace(/^(?:and|&)\s+/i, '').trim();
  if (!/\p{L}/u.test(clean)) return undefined;
  const vancouver = clean.includes(',') || clean.includes('.') ? undefined : VANCOUVER_NAME.exec(clean);
  if (vancouver && !/^\p{Lu}+$/u.test(vancouver[1])) return { family: vancouver[1], given: [...vancouver[2]].join('. ') + '.' };
  return splitPersonName(clean);
}

function cleanTitle(text: string): string | undefined {
  const title = text
    .replace(/^[\s"“«‘]+|[\s"”»’]+$/g, '')
    .replace(/\s*\[[A-Z]\]\s*$/, '')
    .replace(/[.,;:]+$/, '')
    .trim();
  // One word is not enough to look a work up by: "Nature." is a venue, "Preprint" a note.
  return (title.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) >= 2 ? title : undefined;
}

const THESIS = /\b(?:ph\.?\s?d\.?|doctoral|master'?s?|m\.?sc\.?)?\s*(?:thesis|dissertation)\b/i;
const REPORT = /\b(?:technical report|tech\.\s*rep\.?|report no\.?|working paper|white paper)\b/i;
const PUBLISHER =
  /\b(?:press|publishers?|publishing|verlag|edition|ed\.|isbn|springer|wiley|elsevier|cambridge|oxford|mcgraw|prentice|addison|routledge|o'reilly|mit press|crc)\b/i;

/** A book, thesis or report by what follows its title; a chapter or paper "In" a book stays a paper. */
function typeOf(rest: string): string {
  if (THESIS.test(rest)) return 'phdthesis';
  if (REPORT.test(rest)) return 'techreport';
  const paper = /^\s*in\b/i.test(rest) || /\b(?:journal|proceedings|conference|transactions|vol\.|volume|pp\.|pages)\b|\d+\s*\(\d+\)|\d+\s*:\s*\d+/i.test(rest);
  if (!paper && PUBLISHER.test(rest)) return 'book';
  return 'misc';
}

/** The venue's name: what precedes its volume, pages, publisher's place or year. */
function venueOf(rest: string): string | undefined {
  const name = rest
    .replace(/^in\s*:?\s+/i, '')
    .split(/,\s|\(|;|:\s/)[0]
    .replace(/\.?\s+(?:1[5-9]|20)\d{2}[a-z]?\.?$/, '')
    .replace(/\s+\d+(?:\s*\(\d+\))?\s*$/, '')
    .replace(/[.,;:\s]+$/, '')
    .trim();
  return /\p{L}{2}/u.test(name) ? name : undefined;
}

/** The year: in parentheses when there is one, else the last year-like number that is no page range's end. */
function yearIn(text: string): number | undefined {
  const parenthesised = /\(\s*((?:1[5-9]|20)\d{2})[a-z]?\s*[),]/.exec(text);
  if (parenthesised) return Number(parenthesised[1]);
  let year: number | undefined;
  for (const m of text.matchAll(/(^|[^\d–-])((?:1[5-9]|20)\d{2})[a-z]?(?![\d–-])/g)) year = Number(m[2]);
  return year;
}
