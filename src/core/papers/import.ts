/**
 * Papers from the files people keep them in, for the library Find Evidence searches:
 *
 *   importPapers(text, formatOf('corpus.jsonl'), 'corpus.jsonl')   // { papers, problems, leftOut }
 *   papersFromBibliography(parseBibliography(text, file))          // a workspace's .bib abstracts
 *
 * JSON Lines: one object a line with `id` or `_id`, `title`, `abstract` or `text` (BEIR's
 * corpus.jsonl), and optionally `authors`, `year`, `doi`, `arxivId`, `venue`, `openAccessUrl`.
 * BibTeX through Attest's own reader; RIS through citation-js's RIS mapping, one record at a time.
 * A line or entry that cannot be read is reported with its line number and the rest imported.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type * as CitationJsModule from '../bibliography/citationJs';
import { parseBibliography } from '../bibliography/parse';
import type { Author, BibEntry, Bibliography } from '../bibliography/types';
import { normalizeArxivId, normalizeDoi } from '../identifiers';
import { LARGEST_TEXT_BYTES, readNamedTextFile, readNamedTextLines } from '../text/readFile';
import type { Paper } from './paper';

export type PaperFormat = 'jsonl' | 'bibtex' | 'ris';

export interface ImportProblem {
  /** 1-based. */
  readonly line: number;
  readonly message: string;
}

export interface ImportResult {
  readonly papers: Paper[];
  readonly problems: ImportProblem[];
  /**
   * BibTeX entries and RIS records without an abstract, which are not imported: a reference list
   * holds many, and they have no sentence to offer as evidence.
   */
  readonly leftOut: number;
}

const EXTENSIONS: Readonly<Record<string, PaperFormat>> = { '.jsonl': 'jsonl', '.ndjson': 'jsonl', '.bib': 'bibtex', '.ris': 'ris' };

/** The format a file's extension names, if Attest reads it. */
export function formatOf(file: string): PaperFormat | undefined {
  return EXTENSIONS[path.extname(file).toLowerCase()];
}

export function importPapers(text: string, format: PaperFormat, file: string): ImportResult {
  switch (format) {
    case 'jsonl':
      return papersFromJsonLines(text);
    case 'bibtex':
      return papersFromBibliography(parseBibliography(text, file));
    case 'ris':
      return papersFromRis(text);
  }
}

// ---------------------------------------------------------------------------------------
// JSON Lines

export function papersFromJsonLines(text: string): ImportResult {
  const result: ImportResult = { papers: [], problems: [], leftOut: 0 };
  text.split('\n').forEach((line, at) => readJsonLine(line, at + 1, result));
  return result;
}

/**
 * JSON Lines as they are read, `batch` papers at a time (the last batch may be smaller), each with
 * the problems of its lines: an import of any size holds one batch in memory.
 */
export async function* papersFromJsonLineStream(lines: AsyncIterable<string>, batch: number): AsyncIterableIterator<ImportResult> {
  let result: ImportResult = { papers: [], problems: [], leftOut: 0 };
  let number = 0;
  for await (const line of lines) {
    readJsonLine(line, ++number, result);
    if (result.papers.length < batch) continue;
    yield result;
    result = { papers: [], problems: [], leftOut: 0 };
  }
  if (result.papers.length > 0 || result.problems.length > 0) yield result;
}

/**
 * A file's papers a batch at a time, for a caller that saves each batch before the next is read:
 * JSON Lines stream, so an import of any size holds one batch; BibTeX and RIS, which reference
 * managers keep in files of thousands of entries, are read whole, as one batch.
 */
export async function* importFileInBatches(file: string, format: PaperFormat, batch: number): AsyncIterableIterator<ImportResult> {
  if (format === 'jsonl') yield* papersFromJsonLineStream(readNamedTextLines(file, LARGEST_TEXT_BYTES), batch);
  else yield importPapers(await readNamedTextFile(file, LARGEST_TEXT_BYTES), format, path.resolve(file));
}

/** Adds the line's paper to `result`, or its problem; a blank line is neither. */
function readJsonLine(line: string, number: number, result: ImportResult): void {
  if (line.trim() === '') return;
  try {
    result.papers.push(paperFromJson(JSON.parse(line) as unknown));
  } catch (error) {
    result.problems.push({ line: number, message: error instanceof SyntaxError ? 'not JSON' : (error as Error).message });
  }
}

/** Throws a message for the line when a field is missing or of the wrong type. */
function paperFromJson(json: unknown): Paper {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('not a JSON object');
  const row = json as Record<string, unknown>;
  const text = (...names: string[]): string | undefined => {
    for (const name of names) {
      const value = row[name];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') throw new Error(`"${name}" must be a string`);
      if (value.trim() !== '') return value.trim();
    }
    return undefined;
  };
  const title = text('title') ?? '';
  const abstract = text('abstract', 'text');
  if (title === '' && abstract === undefined) throw new Error('has neither "title" nor "abstract" (or "text")');
  const doi = normalizeDoi(text('doi'));
  const arxivId = normalizeArxivId(text('arxivId'));
  const given = row.id ?? row._id;
  if (given !== undefined && typeof given !== 'string' && typeof given !== 'number') throw new Error('"id" must be a string or a number');
  const id = given === undefined || given === '' ? identifierId(doi, arxivId) : String(given);
  if (id === undefined) throw new Error('has no "id" or "_id", nor a DOI or arXiv id to name it by');
  return finishPaper({ id, title, abstract, authors: authorsOf(row.authors), year: yearOf(row.year), venue: text('venue'), doi, arxivId, openAccessUrl: text('openAccessUrl') });
}

const AUTHORS_MESSAGE = '"authors" must be a list of names, as strings or {family, given} objects';

function authorsOf(value: unknown): Author[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string')
    return value
      .split(';')
      .filter((name) => name.trim() !== '')
      .map(nameOf);
  if (!Array.isArray(value)) throw new Error(AUTHORS_MESSAGE);
  return value.map((author: unknown): Author => {
    if (typeof author === 'string') return nameOf(author);
    if (typeof author === 'object' && author !== null) {
      const { family, given, literal, name } = author as Record<string, unknown>;
      if (typeof family === 'string') return { family, ...(typeof given === 'string' && { given }) };
      if (typeof literal === 'string') return { literal };
      if (typeof name === 'string') return nameOf(name);
    }
    throw new Error(AUTHORS_MESSAGE);
  });
}

/** "Family, Given", else "Given Family". */
function nameOf(text: string): Author {
  const name = text.trim();
  const comma = name.indexOf(',');
  if (comma >= 0) return { family: name.slice(0, comma).trim(), given: name.slice(comma + 1).trim() };
  const space = name.lastIndexOf(' ');
  return space < 0 ? { family: name } : { family: name.slice(space + 1), given: name.slice(0, space) };
}

function yearOf(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const year = typeof value === 'number' ? value : typeof value === 'string' && /^\d{4}$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(year)) throw new Error('"year" must be a year, such as 2019');
  return year;
}

// ---------------------------------------------------------------------------------------
// BibTeX

/** The entries that have an abstract, as papers; problems are the bibliography's own. */
export function papersFromBibliography(bibliography: Bibliography): ImportResult {
  const withAbstract = bibliography.entries.filter((entry) => entry.abstract !== undefined);
  return {
    papers: withAbstract.map(paperFromBibEntry),
    problems: bibliography.problems.map((p) => ({ line: p.range.start.line + 1, message: p.message })),
    leftOut: bibliography.entries.length - withAbstract.length,
  };
}

/** An entry as a paper, named by its DOI or arXiv id when it has one, so a paper a source found too is kept once. */
export function paperFromBibEntry(entry: BibEntry): Paper {
  const doi = normalizeDoi(entry.doi);
  const arxivId = normalizeArxivId(entry.arxivId);
  return finishPaper({
    id: identifierId(doi, arxivId) ?? `bib:${entry.key}`,
    title: entry.title ?? '',
    abstract: entry.abstract,
    authors: entry.authors,
    year: entry.year,
    venue: entry.venue,
    doi,
    arxivId,
  });
}

// ---------------------------------------------------------------------------------------
// RIS

/** `TY  - JOUR`: two capitals or a capital and a digit, two spaces, a hyphen (exporters vary the spacing). */
const RIS_TAG = /^([A-Z][A-Z0-9])\s{1,2}-(?: (.*))?$/;

interface RisRecord {
  readonly line: number;
  readonly fields: Record<string, string | string[]>;
}

/** A citation-js CSL item, as far as it is read here. */
interface CslItem {
  readonly title?: string;
  readonly author?: readonly { readonly family?: string; readonly given?: string; readonly literal?: string }[];
  readonly issued?: { readonly 'date-parts'?: readonly (readonly number[])[] };
  readonly 'container-title'?: string;
  readonly abstract?: string;
}

interface RisModule {
  /** RIS tags of one record (a list for a repeated tag) to CSL, for the 2011 tags and the older ones alike. */
  parseMixed(record: Record<string, string | string[]>): CslItem;
}

let ris: RisModule | undefined;

/** Loaded on first use: it pulls in @citation-js/core. */
function risModule(): RisModule {
  ris ??= (require('../bibliography/citationJs') as typeof CitationJsModule).ris as RisModule;
  return ris;
}

/**
 * citation-js reads a whole RIS file without a word about lines it skips, so records are found here,
 * with their line numbers, and each is handed to its mapping alone.
 */
function papersFromRis(text: string): ImportResult {
  const { records, problems } = readRisRecords(text);
  const papers: Paper[] = [];
  let leftOut = 0;
  for (const record of records) {
    try {
      const paper = paperFromRis(record);
      if (paper.abstract === undefined) leftOut++;
      else papers.push(paper);
    } catch (error) {
      problems.push({ line: record.line, message: (error as Error).message });
    }
  }
  return { papers, problems: problems.sort((a, b) => a.line - b.line), leftOut };
}

function readRisRecords(text: string): { records: RisRecord[]; problems: ImportProblem[] } {
  const records: RisRecord[] = [];
  const problems: ImportProblem[] = [];
  let open: RisRecord | undefined;
  let lastTag: string | undefined;
  text
    .replace(/^\uFEFF/, '')
    .split(/\r?\n/)
    .forEach((raw, at) => {
      const line = raw.trimEnd();
      if (line.trim() === '') return;
      const tag = RIS_TAG.exec(line);
      if (tag === null) {
        // Some exporters wrap long abstracts onto lines of their own.
        if (open !== undefined && lastTag !== undefined) appendToLast(open.fields, lastTag, line.trim());
        else problems.push({ line: at + 1, message: 'not part of a record (TY … ER)' });
        return;
      }
      const [, name, value = ''] = tag;
      if (name === 'TY') {
        if (open !== undefined) problems.push({ line: open.line, message: 'the record has no ER line; it ends where the next one starts' });
        open = { line: at + 1, fields: { TY: value.trim() } };
        records.push(open);
      } else if (open === undefined) {
        problems.push({ line: at + 1, message: `${name} outside a record (TY … ER)` });
      } else if (name === 'ER') {
        open = undefined;
      } else if (value.trim() !== '') {
        // Pushed, not copied: a record repeating a tag thousands of times must not cost its square.
        const existing = open.fields[name];
        if (existing === undefined) open.fields[name] = value.trim();
        else if (typeof existing === 'string') open.fields[name] = [existing, value.trim()];
        else existing.push(value.trim());
      }
      lastTag = name;
    });
  if (open !== undefined) problems.push({ line: open.line, message: 'the record has no ER line' });
  return { records, problems };
}

function appendToLast(fields: Record<string, string | string[]>, tag: string, text: string): void {
  const value = fields[tag];
  if (typeof value === 'string') fields[tag] = `${value} ${text}`;
  else if (Array.isArray(value)) value[value.length - 1] += ` ${text}`;
}

function paperFromRis(record: RisRecord): Paper {
  const csl = risModule().parseMixed(record.fields);
  const title = csl.title?.trim();
  if (!title) throw new Error('the record has no title (TI or T1)');
  // citation-js drops a DO it does not recognise, such as one written as a URL.
  const doi = normalizeDoi(first(record.fields.DO));
  return finishPaper({
    id: identifierId(doi, undefined) ?? `ris:${first(record.fields.ID) ?? hashOf(title, csl.issued)}`,
    title,
    abstract: csl.abstract?.trim() || undefined,
    authors: (csl.author ?? []).map((a) => (a.family !== undefined ? { family: a.family, ...(a.given && { given: a.given }) } : { literal: a.literal ?? '' })),
    year: csl.issued?.['date-parts']?.[0]?.[0] ?? risYear(record.fields),
    venue: csl['container-title'],
    doi,
  });
}

/** citation-js leaves dates such as `2019/05/01/` unread. */
function risYear(fields: RisRecord['fields']): number | undefined {
  const date = first(fields.PY) ?? first(fields.Y1) ?? first(fields.DA);
  const match = date === undefined ? null : /(?<!\d)\d{4}(?!\d)/.exec(date);
  return match ? Number(match[0]) : undefined;
}

/** A record with neither DOI nor ID is named by its title and date, so importing it again replaces it. */
function hashOf(title: string, issued: CslItem['issued']): string {
  return createHash('sha1')
    .update(`${title.toLowerCase()}|${JSON.stringify(issued ?? {})}`)
    .digest('hex')
    .slice(0, 16);
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

// ---------------------------------------------------------------------------------------

/** As `paperId` names papers of the sources, so that one work imported and found is one paper. */
function identifierId(doi: string | undefined, arxivId: string | undefined): string | undefined {
  if (doi) return `doi:${doi}`;
  if (arxivId) return `arxiv:${arxivId}`;
  return undefined;
}

/**
 * The paper without fields it lacks, so it reads back from the store as it was written; an arXiv
 * paper is open access by definition.
 */
function finishPaper(paper: Paper): Paper {
  const openAccessUrl = paper.openAccessUrl ?? (paper.arxivId === undefined ? undefined : `https://arxiv.org/abs/${paper.arxivId}`);
  return Object.fromEntries(Object.entries({ ...paper, openAccessUrl }).filter(([, value]) => value !== undefined)) as unknown as Paper;
}
