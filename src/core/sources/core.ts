/**
 * CORE's API v3 (https://api.core.ac.uk/v3/search/works/): works by DOI (`q=doi:"…"`), by arXiv id
 * (`q=arxivId:"…"`) and by title (`q=title:"…"`). CORE refuses requests without an API key, so
 * without one this source refuses every lookup before sending anything.
 */
import type { Author } from '../bibliography/types';
import { normalizeArxivId, normalizeDoi } from '../identifiers';
import { isObject, text, type Json } from '../json';
import { MAX_CONCURRENT } from './config';
import type { SourceGates } from './gates';
import type { HttpClient } from './http';
import { httpClientFor, type SourceClientOptions } from './httpClientFor';
import { arxivIdToAsk, doiToAsk, notAsked, splitPersonName, stripMarkup } from './normalize';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from './types';
import { SourceError } from './types';

export interface CoreOptions extends SourceClientOptions {
  /** Sent as `Authorization: Bearer …`; free at https://core.ac.uk/services/api. */
  readonly apiKey?: string;
  /** The run's gates, shared with the full texts read from the service. */
  readonly gates?: SourceGates;
}

const CREDENTIALS_SETTING = 'the CORE key of "Attest: Set Source API Key" (ATTEST_CORE_API_KEY for the CLI)';
/** With the slash: without it CORE answers with a redirect to it. */
const SEARCH_PATH = '/v3/search/works/';
const DEFAULT_LIMIT = 5;
/** A few, in case a work that merely mentions the identifier ranks first. */
const ID_PAGE = 3;

export class CoreSource implements PaperSource {
  readonly id = 'core';
  readonly name = 'CORE';
  private readonly http: HttpClient;
  private readonly hasKey: boolean;

  constructor(options: CoreOptions = {}) {
    this.hasKey = Boolean(options.apiKey);
    this.http = httpClientFor('core', options, {
      privateHeaders: options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {},
      credentialsSetting: CREDENTIALS_SETTING,
      maxConcurrent: MAX_CONCURRENT.core,
      gates: options.gates,
    });
  }

  async byDoi(doi: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    const normalized = doiToAsk(this.id, doi);
    const records = await this.query(`doi:"${normalized}"`, ID_PAGE, options);
    // The query is a search; only a work with exactly this DOI answers it.
    return records.find((record) => record.doi === normalized);
  }

  async byArxivId(arxivId: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    const normalized = arxivIdToAsk(this.id, arxivId);
    const records = await this.query(`arxivId:"${normalized}"`, ID_PAGE, options);
    return records.find((record) => record.arxivId === normalized);
  }

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    const title = query.title
      .replace(/["(){}[\]\\]/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    if (title === '') throw notAsked(this.id, 'the title has no word to search for');
    return this.query(`title:"${title}"`, query.limit ?? DEFAULT_LIMIT, options);
  }

  private async query(q: string, limit: number, options: RequestOptions): Promise<SourceRecord[]> {
    if (!this.hasKey) {
      throw new SourceError('unauthorized', `CORE answers only requests with an API key; set ${CREDENTIALS_SETTING} (free at https://core.ac.uk/services/api).`, 'core');
    }
    // Without `exclude`, every work comes with its whole extracted text, up to megabytes each.
    return this.http.getJson(SEARCH_PATH, { q, limit, exclude: 'fullText' }, options, parseCoreSearch);
  }
}

function malformed(what: string): SourceError {
  return new SourceError('malformed', `CORE sent ${what}, not the works Attest expects.`, 'core');
}

/** `/v3/search/works/`: `{ totalHits, limit, offset, results: [work, …] }`. */
export function parseCoreSearch(body: unknown): SourceRecord[] {
  if (!isObject(body) || !Array.isArray(body.results)) throw malformed('an answer without "results"');
  return body.results.map(parseCoreWork);
}

/**
 * One work. It must be an object with a numeric `id`; fields it lacks or holds in another shape are
 * left out of the record rather than failing it.
 */
export function parseCoreWork(work: unknown): SourceRecord {
  if (!isObject(work)) throw malformed('a work that is not an object');
  if (typeof work.id !== 'number' || !Number.isInteger(work.id)) throw malformed('a work without a numeric "id"');
  const id = String(work.id);
  const doi = text(work.doi);
  const arxivId = text(work.arxivId);
  const abstract = text(work.abstract);
  return {
    source: 'core',
    id,
    url: linkOf(work.links, 'display') ?? `https://core.ac.uk/works/${id}`,
    title: text(work.title) ?? '',
    authors: authorsOf(work.authors),
    year: typeof work.yearPublished === 'number' && Number.isInteger(work.yearPublished) ? work.yearPublished : undefined,
    venue: venueOf(work),
    doi: doi === undefined ? undefined : normalizeDoi(doi),
    arxivId: arxivId === undefined ? undefined : normalizeArxivId(arxivId),
    abstract: abstract === undefined ? undefined : stripMarkup(abstract) || undefined,
    openAccessUrl: text(work.downloadUrl) ?? linkOf(work.links, 'download'),
  };
}

/** `links` is a list of `{ type, url }`: "download", "reader", "display", thumbnails. */
function linkOf(links: unknown, type: string): string | undefined {
  if (!Array.isArray(links)) return undefined;
  const link: unknown = links.find((l: unknown) => isObject(l) && l.type === type);
  return isObject(link) ? text(link.url) : undefined;
}

/** Names come as repositories write them: "Vaswani, Ashish" as often as "Ashish Vaswani". */
function authorsOf(authors: unknown): Author[] {
  if (!Array.isArray(authors)) return [];
  const result: Author[] = [];
  for (const author of authors) {
    const name = isObject(author) ? text(author.name) : undefined;
    if (name) result.push(splitPersonName(name));
  }
  return result;
}

/** The journal's title, else the publisher, which repositories often send wrapped in quotes ("'Elsevier BV'"). */
function venueOf(work: Json): string | undefined {
  const journal: unknown = Array.isArray(work.journals) ? work.journals.find((j: unknown) => isObject(j) && text(j.title)) : undefined;
  if (isObject(journal)) return text(journal.title);
  const publisher = text(work.publisher);
  return publisher === undefined ? undefined : text(publisher.replace(/^'(.*)'$/, '$1'));
}
