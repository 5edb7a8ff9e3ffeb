/**
 * Crossref (https://api.crossref.org): works by DOI (`/works/{doi}`) and by reference
 * (`/works?query.bibliographic=…`). Crossref limits single-record and list requests separately, so
 * each kind has its own client and limits.
 */
import type { Author } from '../bibliography/types';
import { normalizeDoi } from '../identifiers';
import { isObject, text, type Json } from '../json';
import { DEFAULT_SOURCES } from './config';
import { SourceHealth } from './health';
import type { HttpClient } from './http';
import { httpClientFor, type OwnClientOptions, type SourceClientOptions } from './httpClientFor';
import { doiPath, doiToAsk, notAsked, stripMarkup } from './normalize';
import { crossrefUpdates } from './notices';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from './types';
import { SourceError } from './types';

export interface CrossrefOptions extends SourceClientOptions {
  /** For single records; list requests keep to Crossref's lower limit for lists. Defaults to the pool's limit. */
  readonly requestsPerSecond?: number;
  /** Puts requests in Crossref's "polite pool", which allows more of them. */
  readonly email?: string;
  /** A Metadata Plus token, for subscribers. */
  readonly plusToken?: string;
}

/** Only the fields Attest reads; Crossref's full records carry every reference of the work. */
const FIELDS = [
  'DOI',
  'URL',
  'type',
  'title',
  'subtitle',
  'author',
  'issued',
  'published-print',
  'published-online',
  'container-title',
  'abstract',
  'relation',
  'updated-by',
  'update-to',
].join(',');
const DEFAULT_LIMIT = 5;

export class CrossrefSource implements PaperSource {
  readonly id = 'crossref';
  readonly name = 'Crossref';
  readonly venuesJournalsOnly = true;
  readonly reportsUpdates = true;
  private readonly records: HttpClient;
  private readonly lists: HttpClient;

  constructor(options: CrossrefOptions = {}) {
    // Crossref's limits since December 2025: polite pool 10/s single records and 3/s lists, 3 at once;
    // public pool 5/s and 1/s, one at a time.
    const polite = options.email !== undefined || options.plusToken !== undefined;
    const records = options.requestsPerSecond ?? (polite ? 10 : DEFAULT_SOURCES.crossref.requestsPerSecond);
    const own: OwnClientOptions = {
      privateParams: options.email ? { mailto: options.email } : {},
      privateHeaders: options.plusToken ? { 'Crossref-Plus-API-Token': `Bearer ${options.plusToken}` } : {},
      credentialsSetting: 'the Crossref Plus token of "Attest: Set Source API Key" (ATTEST_CROSSREF_PLUS_TOKEN for the CLI)',
      health: new SourceHealth(),
      maxConcurrent: polite ? 3 : 1,
    };
    this.records = httpClientFor('crossref', { ...options, requestsPerSecond: records }, own);
    this.lists = httpClientFor('crossref', { ...options, requestsPerSecond: Math.min(records, polite ? 3 : 1) }, own);
  }

  async byDoi(doi: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    const normalized = doiToAsk(this.id, doi);
    return this.records.lookupJson(`/works/${doiPath(normalized)}`, {}, options, parseCrossrefWorkResponse);
  }

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    const title = query.title.trim();
    // An empty query lists every work Crossref has.
    if (title === '') throw notAsked(this.id, 'the title has no word to search for');
    const params = {
      // The year only weighs the ranking, so a wrong year in the .bib entry cannot hide the work.
      'query.bibliographic': query.citation ?? (query.year === undefined ? title : `${title} ${query.year}`),
      'query.author': query.authors?.length ? query.authors.join(' ') : undefined,
      rows: query.limit ?? DEFAULT_LIMIT,
      select: FIELDS,
    };
    return this.lists.getJson('/works', params, options, parseCrossrefListResponse);
  }

  /** `/journals?query=…`: the journals Crossref holds DOIs for (not conferences), by their titles. */
  async searchVenues(name: string, options: RequestOptions = {}): Promise<string[]> {
    const query = name.trim();
    if (query === '') return [];
    return this.lists.getJson('/journals', { query, rows: DEFAULT_LIMIT }, options, parseCrossrefJournals);
  }
}

/** `/journals?…`: `{ status: "ok", message-type: "journal-list", message: { items: [{ title, … }, …] } }`. */
export function parseCrossrefJournals(body: unknown): string[] {
  if (!isObject(body) || body['message-type'] !== 'journal-list' || !isObject(body.message) || !Array.isArray(body.message.items)) {
    throw malformed('an answer without a list of journals');
  }
  return body.message.items.flatMap((journal: unknown) => {
    const title = isObject(journal) ? text(journal.title) : undefined;
    return title ? [title] : [];
  });
}

function malformed(what: string): SourceError {
  return new SourceError('malformed', `Crossref sent ${what}, not the work Attest expects.`, 'crossref');
}

/** The first string of a list, as Crossref gives titles and container titles. */
function first(value: unknown): string | undefined {
  return Array.isArray(value) ? text(value[0]) : undefined;
}

/** `/works/{doi}`: `{ status: "ok", message-type: "work", message: work }`. */
export function parseCrossrefWorkResponse(body: unknown): SourceRecord {
  if (!isObject(body) || body['message-type'] !== 'work' || !isObject(body.message)) throw malformed('an answer without a work');
  return parseCrossrefWork(body.message);
}

/** `/works?…`: `{ status: "ok", message-type: "work-list", message: { items: [work, …] } }`. */
export function parseCrossrefListResponse(body: unknown): SourceRecord[] {
  if (!isObject(body) || body['message-type'] !== 'work-list' || !isObject(body.message) || !Array.isArray(body.message.items)) {
    throw malformed('an answer without a list of works');
  }
  return body.message.items.map(parseCrossrefWork);
}

/**
 * One work. It must have a DOI, Crossref's identifier; fields it lacks or holds in another shape are
 * left out of the record rather than failing it.
 */
export function parseCrossrefWork(work: unknown): SourceRecord {
  if (!isObject(work)) throw malformed('something other than an object');
  const rawDoi = text(work.DOI);
  const doi = rawDoi && normalizeDoi(rawDoi);
  if (!doi) throw malformed('a work without a DOI');
  return {
    source: 'crossref',
    id: doi,
    url: text(work.URL) ?? `https://doi.org/${doi}`,
    title: titleOf(work),
    authors: authorsOf(work.author),
    year: yearOf(work),
    venue: maybeStripped(first(work['container-title'])),
    doi,
    abstract: maybeStripped(text(work.abstract)),
    ...(work.type === 'posted-content' ? { preprint: true, publishedDoi: publishedDoiOf(work.relation) } : {}),
    updates: crossrefUpdates(work, doi),
  };
}

/** `relation: { "is-preprint-of": [{ "id-type": "doi", "id": "10.…", "asserted-by": "subject" }] }`. */
function publishedDoiOf(relation: unknown): string | undefined {
  const versions = isObject(relation) && Array.isArray(relation['is-preprint-of']) ? relation['is-preprint-of'] : [];
  for (const version of versions) {
    const doi = isObject(version) && version['id-type'] === 'doi' ? text(version.id) : undefined;
    const normalized = doi && normalizeDoi(doi);
    if (normalized) return normalized;
  }
  return undefined;
}

function maybeStripped(value: string | undefined): string | undefined {
  return value === undefined ? undefined : stripMarkup(value) || undefined;
}

/** Crossref keeps a subtitle apart from the title; a .bib entry usually writes "Title: Subtitle". */
function titleOf(work: Json): string {
  const title = maybeStripped(first(work.title)) ?? '';
  const subtitle = maybeStripped(first(work.subtitle));
  if (!subtitle || title.toLowerCase().includes(subtitle.toLowerCase())) return title;
  return title ? `${title}: ${subtitle}` : subtitle;
}

function authorsOf(authors: unknown): Author[] {
  if (!Array.isArray(authors)) return [];
  const result: Author[] = [];
  for (const author of authors) {
    if (!isObject(author)) continue;
    const family = text(author.family);
    const given = text(author.given);
    const name = text(author.name);
    if (family) result.push(given ? { family, given } : { family });
    // Organisations come as `name` alone.
    else if (name) result.push({ literal: name });
  }
  return result;
}

/** `issued` is the earliest of print and online; a work can still lack it (`"date-parts": [[null]]`). */
function yearOf(work: Json): number | undefined {
  for (const field of ['issued', 'published-print', 'published-online']) {
    const date = work[field];
    const parts = isObject(date) && Array.isArray(date['date-parts']) ? date['date-parts'][0] : undefined;
    const year: unknown = Array.isArray(parts) ? parts[0] : undefined;
    if (typeof year === 'number' && Number.isInteger(year)) return year;
  }
  return undefined;
}
