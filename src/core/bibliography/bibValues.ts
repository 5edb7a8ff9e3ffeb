/** A .bib entry's field values as text: LaTeX read into Unicode, author lists into names. */
import { Ch } from './charCodes';
import { nameChunks } from './nameList';
import type { Author } from './types';
import type * as ConstantsModule from '@citation-js/plugin-bibtex/lib/input/constants.js';
import { citationJs } from './loadCitationJs';
import { type RawEntry, type RawField, type SpanProblem, isSpace } from './bibStructure';

/** A parsed author list; kept as one value so that crossref can inherit it whole. */
interface AuthorList {
  readonly authors: readonly Author[];
  readonly truncated: boolean;
}

type FieldValue = string | AuthorList;

export interface Properties {
  crossref?: FieldValue;
  [field: string]: FieldValue | undefined;
}

/** Fields that say what kind of work an entry is, beyond its type: software, a data set, a web page. */
export const DESCRIBING_FIELDS = ['howpublished', 'note', 'publisher', 'organization', 'institution', 'version', 'type'];

/** Fields that need LaTeX turned into text. */
const TEXT_FIELDS = new Set(['title', 'subtitle', 'journal', 'journaltitle', 'booktitle', 'abstract', ...DESCRIBING_FIELDS]);

/** Fields used as written: identifiers and dates, where LaTeX conversion would only harm. */
// `attest-ignore` is Attest's own directive (`acceptance.ts`), read as written.
const VERBATIM_FIELDS = new Set(['year', 'date', 'doi', 'url', 'urldate', 'eprint', 'eprinttype', 'archiveprefix', 'crossref', 'file', 'pmid', 'pmcid', 'attest-ignore', 'isbn']);

export function readProperties(raw: RawEntry, problems: SpanProblem[]): Properties {
  const properties: Properties = {};
  for (const [name, field] of raw.fields) {
    if (VERBATIM_FIELDS.has(name)) {
      properties[name] = field.value.trim();
    } else if (name === 'author' || TEXT_FIELDS.has(name)) {
      const conversion = convert(name, field.value);
      if (conversion.failed)
        problems.push(conversion.reason ? { message: `Field '${name}' of entry '${raw.key}' ${conversion.reason}`, span: field.span } : latexProblem(name, field, raw.key));
      properties[name] = conversion.value;
    }
  }
  return properties;
}

interface Conversion {
  readonly value: FieldValue;
  /** citation-js could not read the LaTeX, or was not given it; `value` is a best-effort plain text. */
  readonly failed: boolean;
  /** Why, when it is not the LaTeX. */
  readonly reason?: string;
}

/**
 * Conversions by field and text. An editor re-reads a .bib file on every change, and
 * nearly all of its values are the same as last time; citation-js's name grammar is the
 * most expensive part of reading a file.
 */
const conversions = new Map<string, Conversion>();
let conversionChars = 0;
const MAX_CONVERSION_CHARS = 4_000_000;

function convert(name: string, value: string): Conversion {
  if (name !== 'author' && !LATEX_MARKUP.test(value)) return { value: collapseSpace(value), failed: false };
  const cacheKey = `${name}\u0000${value}`;
  const cached = conversions.get(cacheKey);
  if (cached) return cached;
  const conversion = name === 'author' ? convertAuthors(value) : convertText(name, value);
  if (conversionChars + cacheKey.length > MAX_CONVERSION_CHARS) {
    conversions.clear();
    conversionChars = 0;
  }
  conversions.set(cacheKey, conversion);
  conversionChars += cacheKey.length;
  return conversion;
}

/** What citation-js would change; text without any of it comes back the same, only faster. */
const LATEX_MARKUP = /[\\{}$~]|--|``|''/;

function convertText(name: string, value: string): Conversion {
  const library = citationJs();
  const read = readsAsOneString(name, value, library.constants.fieldTypes) ? library.latexText.read(value) : undefined;
  if (read !== undefined) return { value: cleanText(read), failed: false };
  try {
    const text = library.value.parse(value, name);
    return { value: typeof text === 'string' ? cleanText(text) : stripLatex(value), failed: false };
  } catch {
    return { value: stripLatex(value), failed: true };
  }
}

/**
 * Whether citation-js reads the field with its `String` rule, which LatexTextReader follows: a
 * literal or title `field` (sentence casing being off), one it has no type for, or a literal `list`
 * such as `publisher` with no ` and ` to split it at, which reads the same.
 */
function readsAsOneString(name: string, value: string, fieldTypes: typeof ConstantsModule.fieldTypes): boolean {
  const type = Object.hasOwn(fieldTypes, name) ? fieldTypes[name] : undefined;
  if (type === undefined) return true;
  if (type[1] !== 'literal' && type[1] !== 'title') return false;
  return type[0] === 'field' || (type[0] === 'list' && !LIST_SEPARATOR.test(value));
}

/** citation-js's `and` token of list fields. */
const LIST_SEPARATOR = /\sand\s/;

/**
 * citation-js reads one name in time that grows with the square of its words (a 125 KB name took
 * 7.5 s); the longest real names, collaborations spelled out, are a few hundred characters.
 */
const LONGEST_NAME = 1000;

function convertAuthors(value: string): Conversion {
  // Only a field this long can hold such a name: the others are not split for the test.
  const long = value.length > LONGEST_NAME ? splitNames(value) : undefined;
  if (long?.some((name) => name.length > LONGEST_NAME)) {
    return {
      value: { authors: long.map(plainAuthor), truncated: false },
      failed: true,
      reason: `has a name over ${LONGEST_NAME} characters, which is not a name; it was read as plain text`,
    };
  }
  const written = (): string[] => long ?? splitNames(value);
  let names: unknown;
  try {
    names = parseNamesOneByOne(value) ?? citationJs().value.parse(value, 'author');
  } catch {
    return { value: { authors: written().map(plainAuthor), truncated: false }, failed: true };
  }
  if (!Array.isArray(names)) return { value: { authors: [], truncated: false }, failed: false };
  const list: readonly unknown[] = names;
  // Without braces no name is one brace group, and the names as written are not needed.
  const parts = value.includes('{') ? written() : [];
  const authors: Author[] = [];
  let truncated = false;
  list.forEach((name, i) => {
    // BibTeX's way of saying "et al.": the list goes on, but not here.
    if (isOthers(name)) truncated = true;
    else pushAuthor(authors, name, parts.length === list.length ? parts[i] : undefined);
  });
  // Shared by every entry and every parse that has the same author field.
  return { value: Object.freeze({ authors: Object.freeze(authors.map((a) => Object.freeze(a))), truncated }), failed: false };
}

/**
 * The names of a list each parsed alone and remembered (see nameChunks), or undefined for a list
 * left to citation-js whole: one it cannot be cut, or one with a piece that is not one name.
 */
function parseNamesOneByOne(value: string): unknown[] | undefined {
  const chunks = nameChunks(value);
  if (chunks === undefined) return undefined;
  const names: unknown[] = [];
  for (const chunk of chunks) {
    const name = parsePlainName(chunk);
    if (name === undefined) return undefined;
    names.push(name);
  }
  return names;
}

/** citation-js's reading of one name, which it never changes once made. */
const plainNames = new Map<string, unknown>();
let plainNameChars = 0;

function parsePlainName(text: string): unknown {
  const cached = plainNames.get(text);
  if (cached !== undefined) return cached;
  let list: unknown;
  try {
    list = citationJs().value.parse(text, 'author');
  } catch {
    return undefined;
  }
  if (!Array.isArray(list) || list.length !== 1) return undefined;
  if (plainNameChars + text.length > MAX_CONVERSION_CHARS) {
    plainNames.clear();
    plainNameChars = 0;
  }
  plainNames.set(text, list[0]);
  plainNameChars += text.length;
  return list[0];
}

/** A rough "Family, Given" or "Given Family" reading for names citation-js could not parse. */
function plainAuthor(name: string): Author {
  const text = stripLatex(name);
  const comma = text.indexOf(',');
  if (comma >= 0) return { family: text.slice(0, comma).trim(), given: text.slice(comma + 1).trim() };
  const space = text.lastIndexOf(' ');
  return space < 0 ? { family: text } : { family: text.slice(space + 1), given: text.slice(0, space) };
}

function isOthers(name: unknown): boolean {
  if (typeof name !== 'object' || name === null) return false;
  const parts = name as Readonly<Record<string, unknown>>;
  return parts.family === 'others' && parts.given === undefined && parts.prefix === undefined;
}

/**
 * Particles go into the family name ("van der Berg", given "Jan"), because that is how
 * publishers' metadata spells it and what a reader looks up; suffixes like "Jr." are dropped.
 */
function pushAuthor(authors: Author[], name: unknown, rawPart: string | undefined): void {
  if (typeof name !== 'object' || name === null) return;
  if (rawPart !== undefined && isBraceGroup(rawPart)) {
    const family = familyOf(name);
    if (family) {
      authors.push({ literal: family });
      return;
    }
  }
  let person = persons.get(name);
  if (person === undefined) {
    person = personOf(name);
    persons.set(name, person);
  }
  if (person !== null) authors.push(person);
}

/** By citation-js's name, which parsePlainName shares between the lists that have it. */
const persons = new WeakMap<object, Author | null>();

function personOf(name: object): Author | null {
  const family = familyOf(name);
  const given = 'given' in name && typeof name.given === 'string' ? cleanText(name.given) : '';
  if (family && given) return Object.freeze({ family, given });
  if (family || given) return Object.freeze({ family: family || given });
  return null;
}

function familyOf(name: object): string {
  const parts = name as Readonly<Record<string, unknown>>;
  return joinDefined([parts.prefix, parts.family]);
}

function joinDefined(values: readonly unknown[]): string {
  const strings = values.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  return cleanText(strings.join(' '));
}

/** The names of an author field as written, split on ` and ` outside braces like BibTeX does. */
function splitNames(value: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === Ch.LeftBrace) depth++;
    else if (c === Ch.RightBrace) depth--;
    // Only at the start of a run of spaces: a separator found later in the run is found from its start too, and trying each space of a long run would cost its square.
    else if (depth === 0 && isSpace(c) && !(i > 0 && isSpace(value.charCodeAt(i - 1)))) {
      NAME_SEPARATOR.lastIndex = i;
      const m = NAME_SEPARATOR.exec(value);
      if (m && i > start) {
        names.push(value.slice(start, i).trim());
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  const last = value.slice(start).trim();
  if (last !== '') names.push(last);
  return names;
}

const NAME_SEPARATOR = /\s+and\s+/iy;

/** `{World Health Organization}`: one brace group around the whole name. */
function isBraceGroup(name: string): boolean {
  if (name.charCodeAt(0) !== Ch.LeftBrace || name.charCodeAt(name.length - 1) !== Ch.RightBrace) return false;
  let depth = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === Ch.LeftBrace) depth++;
    else if (c === Ch.RightBrace && --depth === 0) return i === name.length - 1;
  }
  return false;
}

function latexProblem(name: string, field: RawField, key: string): SpanProblem {
  return { message: `Field '${name}' of entry '${key}' ${diagnoseLatex(field.value)}`, span: field.span };
}

function diagnoseLatex(value: string): string {
  const dollars = value.replace(/\\\$/g, '').split('$').length - 1;
  if (dollars % 2 === 1) return "has an unclosed '$'";
  const begins = value.split('\\begin').length;
  if (begins !== value.split('\\end').length) return "has a '\\begin' without its '\\end'";
  return 'has LaTeX that could not be turned into text';
}

/** A readable stand-in for a value whose LaTeX citation-js could not read. */
function stripLatex(value: string): string {
  return collapseSpace(value.replace(/\\[a-zA-Z]+\s*|\\.|[{}$]/g, ''));
}

const FORMATTING_TAGS = /<\/?(?:i|b|sup|sub)>|<span (?:class="nocase"|style="font-variant:small-caps;")>|<\/span>/g;

/** citation-js output as plain text: no HTML formatting, and accents composed. */
function cleanText(text: string): string {
  let clean = text.includes('<') ? text.replace(FORMATTING_TAGS, '') : text;
  if (NON_ASCII.test(clean)) {
    // `{\'\i}` gives a dotless i plus an accent, which NFC cannot compose.
    clean = clean.replace(/[\u0131\u0237](?=[\u0300-\u036f])/g, (c) => (c === '\u0131' ? 'i' : 'j')).normalize('NFC');
  }
  return collapseSpace(clean);
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Names and titles are checked one by one, so skipping the common no-op pays, and so does only
 * trimming text whose one untidy space is at an end: the replacement visits every space.
 */
function collapseSpace(text: string): string {
  if (!UNTIDY_SPACE.test(text)) return text;
  return (UNTIDY_INNER_SPACE.test(text) ? text.replace(/\s+/g, ' ') : text).trim();
}

const UNTIDY_SPACE = /^\s|\s$|[^\S ]|  /;
const UNTIDY_INNER_SPACE = /[^\S ]|  /;

/**
 * LaTeX text outside a .bib (a `\bibitem`'s block, a .bbl's field) as plain text, read as a .bib
 * text field is: the same tables and cache, and a best-effort text where citation-js cannot read it.
 */
export function latexFieldText(value: string): string {
  const converted = convert('note', value).value;
  return typeof converted === 'string' ? converted : stripLatex(value);
}
