/**
 * Semantic Scholar's Academic Graph API (https://api.semanticscholar.org/graph/v1): papers by DOI or
 * arXiv id (`/paper/DOI:…`, `/paper/ARXIV:…`) and by title (`/paper/search?query=…`). Without an API
 * key requests share a pool with every anonymous client and are often refused with 429.
 */
import type { Author } from '../bibliography/types';
import { normalizeArxivId, normalizeDoi } from '../identifiers';
import { isObject, text } from '../json';
import type { HttpClient } from './http';
import { httpClientFor, type SourceClientOptions } from './httpClientFor';
import { arxivIdToAsk, doiPath, doiToAsk, notAsked, splitPersonName } from './normalize';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from './types';
import { SourceError } from './types';

/** Requests default to one a second, the rate a new API key is granted. */
export interface SemanticScholarOptions extends SourceClientOptions {
  /** Sent as `x-api-key`; a key has its own rate limit instead of the shared anonymous one. */
  readonly apiKey?: string;
}

/** Only the fields Attest reads; without `fields` the API sends the title alone. */
const FIELDS = ['paperId', 'title', 'abstract', 'year', 'venue', 'publicationVenue', 'journal', 'authors', 'externalIds', 'url', 'openAccessPdf'].join(',');
const DEFAULT_LIMIT = 5;
const BATCH_LIMIT = 500;

export class SemanticScholarSource implements PaperSource {
  readonly id = 'semanticscholar';
  readonly name = 'Semantic Scholar';
  private readonly http: HttpClient;
  /** Answers of batch lookups by id (`DOI:…`, `ARXIV:…`); undefined where Semantic Scholar has no such paper. */
  private readonly prefetched = new Map<string, SourceRecord | undefined>();

  constructor(options: SemanticScholarOptions = {}) {
    this.http = httpClientFor('semanticscholar', options, {
      privateHeaders: options.apiKey ? { 'x-api-key': options.apiKey } : {},
      credentialsSetting: 'the Semantic Scholar key of "Attest: Set Source API Key" (ATTEST_SEMANTICSCHOLAR_API_KEY for the CLI)',
      maxConcurrent: 1,
    });
  }

  async byDoi(doi: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    return this.paper(`DOI:${doiToAsk(this.id, doi)}`, options);
  }

  async byArxivId(arxivId: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    return this.paper(`ARXIV:${arxivIdToAsk(this.id, arxivId)}`, options);
  }

  /**
   * `POST /paper/batch`, up to 500 ids a request: at one request a second, a bibliography of 200 DOIs
   * takes one request instead of three minutes.
   */
  async prefetch(ids: { readonly dois: readonly string[]; readonly arxivIds: readonly string[] }, options: RequestOptions = {}): Promise<void> {
    const wanted = [
      ...ids.dois.map((d) => normalizeDoi(d)).flatMap((d) => (d ? [`DOI:${d}`] : [])),
      ...ids.arxivIds.map((a) => normalizeArxivId(a)).flatMap((a) => (a ? [`ARXIV:${a}`] : [])),
    ].filter((id) => !this.prefetched.has(id));
    for (let start = 0; start < wanted.length; start += BATCH_LIMIT) {
      const chunk = [...new Set(wanted.slice(start, start + BATCH_LIMIT))];
      const papers = await this.http.postJson('/graph/v1/paper/batch', { fields: FIELDS }, { ids: chunk }, options, parseSemanticScholarBatch);
      if (papers.length !== chunk.length) throw malformed(`a batch answer of ${papers.length} papers for ${chunk.length} ids`);
      chunk.forEach((id, i) => this.prefetched.set(id, papers[i]));
    }
  }

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    // Plain words only: the relevance search has no query syntax, and punctuation only adds noise.
    const words = query.title.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    if (words === '') throw notAsked(this.id, 'the title has no word to search for');
    const params = { query: words, fields: FIELDS, limit: query.limit ?? DEFAULT_LIMIT };
    return this.http.getJson('/graph/v1/paper/search', params, options, parseSemanticScholarSearch);
  }

  private async paper(id: string, options: RequestOptions): Promise<SourceRecord | undefined> {
    if (this.prefetched.has(id)) return this.prefetched.get(id);
    // A paper Semantic Scholar does not know is a 404, which the HTTP client turns into undefined.
    const path = id.startsWith('DOI:') ? `DOI:${doiPath(id.slice(4))}` : id;
    return this.http.lookupJson(`/graph/v1/paper/${path}`, { fields: FIELDS }, options, parseSemanticScholarPaper);
  }
}

function malformed(what: string): SourceError {
  return new SourceError('malformed', `Semantic Scholar sent ${what}, not the paper Attest expects.`, 'semanticscholar');
}

/** `/paper/search`: `{ total, offset, next?, data: [paper, …] }`; with no match, `data` is left out. */
export function parseSemanticScholarSearch(body: unknown): SourceRecord[] {
  if (!isObject(body)) throw malformed('something other than an object');
  if (body.data === undefined && body.total === 0) return [];
  if (!Array.isArray(body.data)) throw malformed('a search answer without "data"');
  return body.data.map(parseSemanticScholarPaper);
}

/** `/paper/batch`: one entry per id asked for, in the same order, null where the id is unknown. */
export function parseSemanticScholarBatch(body: unknown): Array<SourceRecord | undefined> {
  if (!Array.isArray(body)) throw malformed('a batch answer that is not a list');
  return body.map((paper: unknown) => (paper === null ? undefined : parseSemanticScholarPaper(paper)));
}

/**
 * One paper. It must be an object with a `paperId`; fields it lacks or holds in another shape are left
 * out of the record rather than failing it, since the paper's existence is already answered.
 */
export function parseSemanticScholarPaper(paper: unknown): SourceRecord {
  if (!isObject(paper)) throw malformed('something other than an object');
  const paperId = text(paper.paperId);
  if (!paperId) throw malformed('a paper without a "paperId"');
  const ids = isObject(paper.externalIds) ? paper.externalIds : {};
  const doi = text(ids.DOI);
  const arxivId = text(ids.ArXiv);
  const venue = isObject(paper.publicationVenue) ? text(paper.publicationVenue.name) : undefined;
  const journal = isObject(paper.journal) ? text(paper.journal.name) : undefined;
  // A paper without open access still has `openAccessPdf`, with an empty `url`.
  const pdf = isObject(paper.openAccessPdf) ? text(paper.openAccessPdf.url) : undefined;
  return {
    source: 'semanticscholar',
    id: paperId,
    url: text(paper.url) ?? `https://www.semanticscholar.org/paper/${paperId}`,
    title: text(paper.title) ?? '',
    authors: authorsOf(paper.authors),
    year: typeof paper.year === 'number' && Number.isInteger(paper.year) ? paper.year : undefined,
    venue: venue ?? text(paper.venue) ?? journal,
    doi: doi === undefined ? undefined : normalizeDoi(doi),
    arxivId: arxivId === undefined ? undefined : normalizeArxivId(arxivId),
    abstract: text(paper.abstract),
    openAccessUrl: pdf,
  };
}

function authorsOf(authors: unknown): Author[] {
  if (!Array.isArray(authors)) return [];
  const result: Author[] = [];
  for (const author of authors) {
    const name = isObject(author) ? text(author.name) : undefined;
    if (name) result.push(splitPersonName(name));
  }
  return result;
}
