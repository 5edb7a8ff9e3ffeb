/**
 * Open Library (https://openlibrary.org), for books: an edition by ISBN (`/isbn/{isbn}.json`, which
 * redirects to the edition's `/books/{id}.json`, its authors named by key and read from
 * `/authors/{id}.json`) and works by title and author (`/search.json`). It holds books only, so it is
 * asked about entries that are books (`booksOnly`).
 */
import type { Author } from '../bibliography/types';
import { normalizeIsbn } from '../identifiers';
import { isObject, text, type Json } from '../json';
import type { HttpClient } from './http';
import { httpClientFor, type SourceClientOptions } from './httpClientFor';
import { notAsked, splitPersonName } from './normalize';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from './types';
import { SourceError } from './types';

const DEFAULT_LIMIT = 5;
/** Only the fields Attest reads of a search's works. */
const SEARCH_FIELDS = ['key', 'title', 'subtitle', 'author_name', 'first_publish_year', 'publish_year', 'isbn'].join(',');
/** The authors of an edition read by their keys, one request each: enough to compare with an entry's. */
const MAX_AUTHORS = 10;
/** Records link to Open Library's own pages, whatever mirror answered. */
const SITE = 'https://openlibrary.org';
const AUTHOR_KEY = /^\/authors\/(OL\d{1,12}A)$/;
const EDITION_KEY = /^\/books\/(OL\d{1,12}M)$/;
const WORK_KEY = /^\/works\/(OL\d{1,12}W)$/;

export class OpenLibrarySource implements PaperSource {
  readonly id = 'openlibrary';
  readonly name = 'Open Library';
  readonly partialCoverage = true;
  readonly booksOnly = true;
  private readonly http: HttpClient;

  constructor(options: SourceClientOptions = {}) {
    this.http = httpClientFor('openlibrary', options, { maxConcurrent: 1 });
  }

  async byIsbn(isbn: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    const normalized = normalizeIsbn(isbn);
    if (normalized === undefined) throw notAsked(this.id, `"${isbn}" is not an ISBN`);
    const edition = await this.http.lookupJson(`/isbn/${normalized}.json`, {}, options, parseOpenLibraryEdition);
    if (edition === undefined) return undefined;
    const authors: Author[] = [];
    for (const id of edition.authorIds) {
      const author = await this.http.lookupJson(`/authors/${id}.json`, {}, options, parseOpenLibraryAuthor);
      if (author) authors.push(author);
    }
    return { ...edition.record, authors, isbn: edition.record.isbn ?? normalized };
  }

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    const title = query.title.replace(/\s+/g, ' ').trim();
    if (!/[\p{L}\p{N}]/u.test(title)) throw notAsked(this.id, 'the title has no word to search for');
    const params = { title, author: query.authors?.[0], fields: SEARCH_FIELDS, limit: query.limit ?? DEFAULT_LIMIT };
    return this.http.getJson('/search.json', params, options, (body) => parseOpenLibrarySearch(body, query.year));
  }
}

function malformed(what: string): SourceError {
  return new SourceError('malformed', `Open Library sent ${what}, not the book Attest expects.`, 'openlibrary');
}

/** An edition and the keys of its authors, whose names take a request each. */
export interface OpenLibraryEdition {
  readonly record: SourceRecord;
  readonly authorIds: readonly string[];
}

/**
 * `/books/{id}.json`: `{ key: "/books/OL…M", title, subtitle?, authors: [{ key: "/authors/OL…A" }],
 * publish_date: "October 1, 1988", isbn_13: […], isbn_10: […], publishers: […], works: [{ key }] }`.
 */
export function parseOpenLibraryEdition(body: unknown): OpenLibraryEdition {
  if (!isObject(body)) throw malformed('something other than an object');
  const id = EDITION_KEY.exec(text(body.key) ?? '')?.[1];
  if (!id) throw malformed('an edition without a "/books/…" key');
  const authorIds = (Array.isArray(body.authors) ? body.authors : [])
    .map((author: unknown) => (isObject(author) ? AUTHOR_KEY.exec(text(author.key) ?? '')?.[1] : undefined))
    .filter((author): author is string => author !== undefined)
    .slice(0, MAX_AUTHORS);
  const year = yearIn(text(body.publish_date));
  const isbn = firstIsbn(body.isbn_13) ?? firstIsbn(body.isbn_10);
  return {
    record: {
      source: 'openlibrary',
      id,
      url: `${SITE}/books/${id}`,
      title: titleOf(body),
      authors: [],
      ...(year !== undefined && { year }),
      ...(isbn !== undefined && { isbn }),
    },
    authorIds,
  };
}

/** `/authors/{id}.json`: `{ key, name, personal_name?, birth_date?, … }`. */
export function parseOpenLibraryAuthor(body: unknown): Author {
  const name = isObject(body) ? (text(body.name) ?? text(body.personal_name)) : undefined;
  if (name === undefined) throw malformed('an author without a name');
  return splitPersonName(name);
}

/**
 * `/search.json`: `{ numFound, start, docs: [{ key: "/works/OL…W", title, author_name: […],
 * first_publish_year, publish_year: […], isbn: […] }] }`. A work's year is the asked year where one of
 * its editions appeared then (an entry cites the edition it read), else its first publication's.
 */
export function parseOpenLibrarySearch(body: unknown, askedYear?: number): SourceRecord[] {
  if (!isObject(body) || !Array.isArray(body.docs)) throw malformed('a search answer without "docs"');
  return body.docs.map((doc: unknown) => {
    if (!isObject(doc)) throw malformed('a work that is not an object');
    const id = WORK_KEY.exec(text(doc.key) ?? '')?.[1];
    if (!id) throw malformed('a work without a "/works/…" key');
    const years = Array.isArray(doc.publish_year) ? doc.publish_year.filter((y: unknown): y is number => Number.isInteger(y)) : [];
    const first = Number.isInteger(doc.first_publish_year) ? (doc.first_publish_year as number) : undefined;
    const year = askedYear !== undefined && years.includes(askedYear) ? askedYear : first;
    const authors = Array.isArray(doc.author_name) ? doc.author_name.flatMap((n: unknown) => (text(n) === undefined ? [] : [splitPersonName(text(n) as string)])) : [];
    const isbn = firstIsbn(doc.isbn);
    return {
      source: 'openlibrary',
      id,
      url: `${SITE}/works/${id}`,
      title: titleOf(doc),
      authors,
      ...(year !== undefined && { year }),
      ...(isbn !== undefined && { isbn }),
    } satisfies SourceRecord;
  });
}

/** Open Library keeps a subtitle apart, as Crossref does; a .bib entry writes "Title: Subtitle". */
function titleOf(book: Json): string {
  const title = text(book.title) ?? '';
  const subtitle = text(book.subtitle);
  return subtitle && !title.toLowerCase().includes(subtitle.toLowerCase()) ? `${title}: ${subtitle}` : title;
}

/** The first valid ISBN of a list, as ISBN-13. */
function firstIsbn(list: unknown): string | undefined {
  if (!Array.isArray(list)) return undefined;
  for (const value of list) {
    const isbn = typeof value === 'string' ? normalizeIsbn(value) : undefined;
    if (isbn) return isbn;
  }
  return undefined;
}

/** "October 1, 1988", "1988", "1988-10-01", "c1988": the year, written by hand in every form. */
function yearIn(date: string | undefined): number | undefined {
  const year = date === undefined ? undefined : /(?:^|\D)((?:1[5-9]|20)\d{2})(?!\d)/.exec(date)?.[1];
  return year === undefined ? undefined : Number(year);
}
