import { arxivIdOf, normalizeDoi } from '../identifiers';
import type { SourceRecord } from '../sources/types';
import { normalizeText, venueWords } from '../verify/normalize';
import { authorName } from './describe';
import { braceNameSeparators, escapeLatexSpecials, oneLine } from './escape';
import { parseBibliography } from './parse';
import type * as CitationJsModule from './citationJs';
import type { Author, BibEntry } from './types';
import { bibtexDoi, bibtexUrl } from './verbatim';

/*
 * A record found by "Find evidence" becomes a .bib entry in three steps: the record is written as
 * CSL-JSON, citation-js turns that into BibTeX fields (LaTeX escapes, name lists, brace-protected
 * capitals), and the few things citation-js does not do for a found paper are adjusted on its
 * field object before citation-js serialises it.
 */

/** A BibTeX entry for `record` under `key`, ending without a line break. */
export function bibtexFor(record: SourceRecord, key: string): string {
  // These would end the key in the .bib file or break the `\cite` that uses it.
  if (!/^[^\s\p{Cc},{}"#%=\\~]+$/u.test(key)) throw new Error(`'${key}' cannot be a BibTeX key`);
  // ASCII escapes are what every BibTeX and bst file reads, but citation-js silently drops any
  // character it has no escape for (Cyrillic, CJK, most symbols); such an entry is written in UTF-8.
  const ascii = render(record, key, 'ascii');
  return readsBackAs(ascii, record) ? ascii : render(record, key, 'utf8');
}

// ---------------------------------------------------------------------------------------
// Citation keys

/** Function words that never make a title recognisable in a key. */
const KEY_STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'on',
  'in',
  'for',
  'to',
  'and',
  'or',
  'with',
  'by',
  'from',
  'at',
  'as',
  'is',
  'are',
  'via',
  'into',
  'toward',
  'towards',
  'about',
  'over',
  'under',
  'between',
  'through',
  'its',
  'their',
  'our',
]);

/**
 * `smith2020deep`: the first author's family name, the year and the first significant title word,
 * lower-case ASCII. A key that `taken` already has (in any case, as BibTeX compares keys) gets a
 * letter: `smith2020deepb`, `smith2020deepc`, …
 */
export function citationKeyFor(record: SourceRecord, taken: ReadonlySet<string>): string {
  const author = record.authors.length > 0 ? authorKeyPart(record.authors[0]) : '';
  const year = record.year === undefined ? '' : String(record.year);
  const word = titleKeyPart(record.title);
  const base = author === '' ? (word || 'ref') + year : author + year + word;
  const lowerTaken = new Set([...taken].map((k) => k.toLowerCase()));
  if (!lowerTaken.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = base + letters(n);
    if (!lowerTaken.has(candidate)) return candidate;
  }
}

/**
 * A person's whole family name, particles included ("van der Berg" → `vanderberg`): that is how the
 * name is written when cited, and which words are particles ("De Silva", "Le") is a guess. An
 * organisation is long, so it gives its first word ("The LIGO Collaboration" → `ligo`).
 */
function authorKeyPart(author: Author): string {
  if (author.family === undefined && author.literal !== undefined) {
    return keyWords(author.literal).find((w) => w !== 'the') ?? '';
  }
  return keyWords(author.family ?? author.given ?? '').join('');
}

function titleKeyPart(title: string): string {
  return keyWords(title).find((w) => !KEY_STOPWORDS.has(w)) ?? '';
}

/** Lower-case ASCII words; hyphens join ("Pre-training" → `pretraining`), letters without an ASCII form go. */
function keyWords(text: string): string[] {
  return normalizeText(text.replace(/[-‐‑–]/g, ''))
    .split(' ')
    .map((w) => w.replace(/[^a-z0-9]/g, ''))
    .filter((w) => w !== '');
}

/** 2 → `b`, 26 → `z`, 27 → `aa`: spreadsheet-column letters. */
function letters(n: number): string {
  let result = '';
  for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    result = String.fromCharCode(97 + ((rest - 1) % 26)) + result;
  }
  return result;
}

// ---------------------------------------------------------------------------------------
// De-duplication

/**
 * The entry of the manuscript's bibliographies that already stands for `record`: same DOI or arXiv
 * id, else same title with a year at most one apart (a preprint and its publication). Two different
 * DOIs of publishers, or two different arXiv ids, are two works whatever their titles ("Editorial").
 */
export function findExisting(record: SourceRecord, entries: readonly BibEntry[]): BibEntry | undefined {
  const ids = identifiersOf(record);
  const byIdentifier = entries.find((e) => {
    const other = identifiersOf(e);
    return (ids.doi !== undefined && other.doi === ids.doi) || (ids.arxiv !== undefined && other.arxiv === ids.arxiv);
  });
  if (byIdentifier) return byIdentifier;
  const title = normalizeText(record.title);
  if (title === '') return undefined;
  return entries.find(
    (e) =>
      e.title !== undefined &&
      normalizeText(e.title) === title &&
      (record.year === undefined || e.year === undefined || Math.abs(record.year - e.year) <= 1) &&
      !differentWorks(ids, identifiersOf(e)),
  );
}

interface Identifiers {
  readonly doi?: string;
  readonly arxiv?: string;
  /** A DOI that is not arXiv's: arXiv registers one for every preprint, beside the publisher's. */
  readonly publisherDoi?: string;
}

/** A work's DOI and arXiv id as Add to bibliography compares them. */
export function identifiersOf(work: { readonly doi?: string; readonly arxivId?: string }): Identifiers {
  const doi = normalizeDoi(work.doi);
  const arxiv = arxivIdOf(work.arxivId, work.doi);
  return { doi, arxiv, publisherDoi: doi !== undefined && arxivIdOf(undefined, doi) === undefined ? doi : undefined };
}

function differentWorks(a: Identifiers, b: Identifiers): boolean {
  const differ = (x: string | undefined, y: string | undefined) => x !== undefined && y !== undefined && x !== y;
  return differ(a.publisherDoi, b.publisherDoi) || differ(a.arxiv, b.arxiv);
}

// ---------------------------------------------------------------------------------------
// CSL-JSON

interface CslName {
  readonly family?: string;
  readonly given?: string;
  readonly literal?: string;
}

interface CslItem {
  readonly id: string;
  readonly type: 'article-journal' | 'paper-conference' | 'document';
  readonly title: string;
  readonly author: readonly CslName[];
  readonly issued?: { readonly 'date-parts': readonly (readonly number[])[] };
  readonly 'container-title'?: string;
  readonly DOI?: string;
  readonly URL?: string;
}

type Encoding = 'ascii' | 'utf8';

function cslItemOf(record: SourceRecord, key: string, encoding: Encoding): CslItem {
  // citation-js escapes LaTeX's special characters only while writing ASCII.
  const text = encoding === 'ascii' ? oneLine : escapeLatexSpecials;
  const arxiv = arxivIdOf(record.arxivId, record.doi);
  const type = cslTypeOf(record.venue, arxiv !== undefined);
  const doi = record.doi === undefined ? undefined : bibtexDoi(record.doi);
  return {
    id: key,
    type,
    title: protectLeadingAcronyms(text(record.title)),
    author: record.authors.map((a) => cslName(a, encoding)),
    ...(record.year === undefined ? {} : { issued: { 'date-parts': [[record.year]] } }),
    ...(type === 'document' || record.venue === undefined ? {} : { 'container-title': text(record.venue) }),
    ...(doi === undefined ? {} : { DOI: doi }),
    ...urlOf(record, arxiv, doi),
  };
}

/**
 * citation-js braces capitalised words so that styles keep their case, except the first word of the
 * title and of a subtitle, which styles capitalise anyway; but an acronym there would still become
 * "Bert: pre-training…". CSL's no-case span makes citation-js brace it.
 */
function protectLeadingAcronyms(title: string): string {
  return title.replace(/(^|:\s*)([^\s:]+)/gu, (whole, lead: string, word: string) =>
    (word.match(/\p{Lu}/gu)?.length ?? 0) >= 2 ? `${lead}<span class="nocase">${word}</span>` : whole,
  );
}

/**
 * citation-js writes a one-part name (an organisation, a mononym) braced and as it is, in either
 * encoding. In ASCII it escapes a person's name but braces none of its parts, so a part with a comma
 * or a word "and" reads back otherwise and the entry is written in UTF-8, where the parts are braced.
 */
function cslName(author: Author, encoding: Encoding): CslName {
  const part = encoding === 'ascii' ? oneLine : (value: string) => braceNameSeparators(escapeLatexSpecials(value));
  if (author.family !== undefined && author.given !== undefined) return { family: part(author.family), given: part(author.given) };
  return { literal: escapeLatexSpecials(author.family ?? author.literal ?? author.given ?? '') };
}

/**
 * A link for readers when no identifier leads to the paper: the arXiv abstract page, else (without
 * a DOI to write) the open-access copy or the source's page for the record.
 */
function urlOf(record: SourceRecord, arxiv: string | undefined, doi: string | undefined): { URL?: string } {
  if (arxiv !== undefined) return { URL: `https://arxiv.org/abs/${arxiv}` };
  if (doi !== undefined) return {};
  const url = [record.openAccessUrl, record.url].map((u) => (u === undefined ? undefined : bibtexUrl(u))).find((u) => u !== undefined);
  return url === undefined ? {} : { URL: url };
}

/** Conference venues by name; journals often start with "Proceedings of" too (PNAS, Proc. IEEE). */
const CONFERENCE =
  /\b(?:conference|conf|symposium|workshop|congress|colloquium|neural information processing systems|machine learning research|neurips|nips|icml|iclr|cvpr|iccv|eccv|acl|emnlp|naacl|coling|aaai|ijcai|kdd|sigir|chi|uai|aistats|colt|interspeech|icassp)\b/;
const JOURNAL = /\b(?:journal|transactions|letters|review|reviews|magazine)\b/;

function cslTypeOf(venue: string | undefined, onArxiv: boolean): CslItem['type'] {
  if (venue === undefined) return 'document';
  if (onArxiv && venueWords(venue).preprint) return 'document';
  const words = normalizeText(venue);
  return CONFERENCE.test(words) && !JOURNAL.test(words) ? 'paper-conference' : 'article-journal';
}

// ---------------------------------------------------------------------------------------
// citation-js, loaded on first use like the reader in parse.ts

interface BibtexFields {
  type: string;
  label: string;
  properties: Record<string, string>;
}

interface OutputDictionary {
  readonly entry: readonly string[];
}

interface CitationJsCore {
  readonly plugins: {
    readonly output: { format(name: 'bibtex', items: readonly CslItem[], options: { format: 'object' }): BibtexFields[] };
    readonly dict: { get(name: 'text'): OutputDictionary };
    readonly config: { get(name: '@bibtex'): { format: { asciiOnly: boolean } } };
  };
}

interface BibtexSerializer {
  format(entries: readonly BibtexFields[], dictionary: OutputDictionary): string;
}

let loaded: { readonly core: CitationJsCore; readonly serializer: BibtexSerializer } | undefined;

function citationJs(): { readonly core: CitationJsCore; readonly serializer: BibtexSerializer } {
  if (!loaded) {
    const library = require('./citationJs') as typeof CitationJsModule;
    loaded = { core: library.core as CitationJsCore, serializer: library.bibtexOutput as BibtexSerializer };
  }
  return loaded;
}

/** Conventional field order, so that a generated entry reads like a hand-written one. */
const FIELD_ORDER = ['author', 'title', 'journal', 'booktitle', 'year', 'doi', 'eprint', 'archiveprefix', 'url'];

function fieldRank(field: string): number {
  const rank = FIELD_ORDER.indexOf(field);
  return rank < 0 ? FIELD_ORDER.length : rank;
}

function render(record: SourceRecord, key: string, encoding: Encoding): string {
  const { core, serializer } = citationJs();
  const config = core.plugins.config.get('@bibtex');
  const saved = config.format.asciiOnly;
  config.format.asciiOnly = encoding === 'ascii';
  let entry: BibtexFields;
  try {
    [entry] = core.plugins.output.format('bibtex', [cslItemOf(record, key, encoding)], { format: 'object' });
  } finally {
    config.format.asciiOnly = saved;
  }
  // citation-js replaces a key it deems unsafe (one with `:` or `-`) with one of its own.
  entry.label = key;
  const arxiv = arxivIdOf(record.arxivId, record.doi);
  const fields: Record<string, string> = { ...entry.properties };
  // Without a publisher, citation-js repeats the URL as `howpublished`, which styles print twice.
  delete fields.howpublished;
  // A no-case span gets citation-js's own braces as well: `{{BERT}}`.
  if (fields.title !== undefined) fields.title = fields.title.replace(/\{\{([^{}]*)\}\}/g, '{$1}');
  if (arxiv !== undefined) {
    fields.eprint = arxiv;
    fields.archiveprefix = 'arXiv';
  }
  entry.properties = Object.fromEntries(Object.entries(fields).sort(([a], [b]) => fieldRank(a) - fieldRank(b)));
  return serializer.format([entry], core.plugins.dict.get('text')).trimEnd();
}

/** Whether our own reader gets the record's title, authors and venue back from `bibtex`. */
function readsBackAs(bibtex: string, record: SourceRecord): boolean {
  const [entry] = parseBibliography(bibtex, '').entries;
  if (!entry) return false;
  const same = (a: string | undefined, b: string): boolean => tidy(a ?? '') === tidy(b);
  return (
    same(entry.title, record.title) &&
    // A @misc is written without the venue (`cslTypeOf`).
    (entry.type === 'misc' || same(entry.venue, record.venue ?? '')) &&
    entry.authors.length === record.authors.length &&
    entry.authors.every((a, i) => same(authorName(a), authorName(record.authors[i])))
  );
}

/**
 * Compatibility forms fold what ASCII escapes write differently: `²` is `2`, `ﬁ` is `fi`, `…` is `...`;
 * a line break or control character is written as a space (`oneLine`).
 */
function tidy(text: string): string {
  return oneLine(text).normalize('NFKC').replace(/\s+/g, ' ').trim();
}
