import * as http from 'node:http';
import MiniSearch from 'minisearch';
import type { SourceRecord } from '../../src/core/sources/types';
import { LoopbackServer } from './loopback';

export interface ServerOptions {
  /** Added to every answer, as a distant API would. */
  readonly latencyMs?: number;
  /** Requests per second before answering 429 with `Retry-After: 1`, as rate-limited APIs do. */
  readonly requestsPerSecond?: number;
}

/**
 * A local stand-in for Crossref and OpenAlex, speaking their wire formats (`/crossref/works/{doi}`,
 * `/crossref/works?query.bibliographic=`, `/crossref/journals?query=`, `/openalex/works/doi:{doi}`,
 * `/openalex/works?search=`, `/openalex/sources?search=` over the venues of the records)
 * over a fixed set of records, with relevance-ranked search as the real services have.
 */
export class BibliographicServer extends LoopbackServer {
  private readonly byDoi = new Map<string, SourceRecord>();
  private readonly index = new MiniSearch<{ id: number; title: string; authors: string }>({ fields: ['title', 'authors'], storeFields: [] });
  private readonly recent: number[] = [];
  private readonly venues = new Set<string>();
  requests = 0;

  constructor(
    private readonly records: readonly SourceRecord[],
    private readonly options: ServerOptions = {},
  ) {
    super();
    records.forEach((r, id) => {
      if (r.doi) this.byDoi.set(r.doi.toLowerCase(), r);
      if (r.venue) this.venues.add(r.venue);
      this.index.add({ id, title: r.title, authors: r.authors.map((a) => a.family ?? '').join(' ') });
    });
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    this.requests++;
    if (this.overLimit()) {
      res.writeHead(429, { 'Retry-After': '1' }).end();
      return;
    }
    if (this.options.latencyMs) await new Promise((r) => setTimeout(r, this.options.latencyMs));
    const url = new URL(req.url ?? '/', 'http://localhost');
    const answer = this.route(url);
    if (answer === undefined) res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Resource not found.');
    else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
  }

  private overLimit(): boolean {
    const limit = this.options.requestsPerSecond;
    if (!limit) return false;
    const now = Date.now();
    while (this.recent.length > 0 && now - this.recent[0] > 1000) this.recent.shift();
    if (this.recent.length >= limit) return true;
    this.recent.push(now);
    return false;
  }

  private route(url: URL): unknown {
    const path = decodeURIComponent(url.pathname);
    if (path.startsWith('/crossref/works/')) {
      const record = this.byDoi.get(path.slice('/crossref/works/'.length).toLowerCase());
      return record && { status: 'ok', 'message-type': 'work', message: crossrefWork(record) };
    }
    if (path === '/crossref/works') {
      const query = `${url.searchParams.get('query.bibliographic') ?? ''} ${url.searchParams.get('query.author') ?? ''}`;
      const items = this.search(query, Number(url.searchParams.get('rows') ?? 5)).map(crossrefWork);
      return { status: 'ok', 'message-type': 'work-list', message: { 'total-results': items.length, items } };
    }
    if (path.startsWith('/openalex/works/doi:')) {
      const record = this.byDoi.get(path.slice('/openalex/works/doi:'.length).toLowerCase());
      return record && openAlexWork(record, this.records.indexOf(record));
    }
    if (path === '/openalex/sources') return openAlexSources(searchVenues(this.venues, url.searchParams.get('search') ?? '', Number(url.searchParams.get('per-page') ?? 5)));
    if (path === '/crossref/journals') return crossrefJournals(searchVenues(this.venues, url.searchParams.get('query') ?? '', Number(url.searchParams.get('rows') ?? 5)));
    if (path === '/openalex/works') {
      const results = this.search(url.searchParams.get('search') ?? '', Number(url.searchParams.get('per-page') ?? 5));
      return { meta: { count: results.length, page: 1, per_page: results.length }, results: results.map((r) => openAlexWork(r, this.records.indexOf(r))) };
    }
    return undefined;
  }

  private search(query: string, limit: number): SourceRecord[] {
    return this.index
      .search(query, { fuzzy: 0.2, prefix: true, boost: { title: 2 } })
      .slice(0, limit)
      .map((hit) => this.records[hit.id as number]);
  }
}

/** The venues sharing the most words with the query: the real venues the records appeared in. */
export function searchVenues(venues: ReadonlySet<string>, query: string, limit: number): string[] {
  const wanted = new Set(venueSearchWords(query));
  return [...venues]
    .map((venue) => [venue, venueSearchWords(venue).filter((w) => wanted.has(w)).length] as const)
    .filter(([, shared]) => shared > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([venue]) => venue);
}

/** OpenAlex's `/sources` answer. */
export function openAlexSources(names: readonly string[]): Record<string, unknown> {
  return {
    meta: { count: names.length },
    results: names.map((name, i) => ({ id: `https://openalex.org/S${i}`, display_name: name, abbreviated_title: null, alternate_titles: [] })),
  };
}

/** Crossref's `/journals` answer. */
export function crossrefJournals(titles: readonly string[]): Record<string, unknown> {
  return { status: 'ok', 'message-type': 'journal-list', message: { 'total-results': titles.length, items: titles.map((title) => ({ title, publisher: 'Local', ISSN: [] })) } };
}

function venueSearchWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 2 && !['conference', 'international', 'proceedings', 'annual', 'the', 'and', 'workshop', 'symposium', 'journal'].includes(w));
}

export function crossrefWork(r: SourceRecord): Record<string, unknown> {
  return {
    DOI: r.doi ?? `10.5555/local.${r.id}`,
    URL: `https://doi.org/${r.doi ?? r.id}`,
    type: 'proceedings-article',
    title: [r.title],
    author: r.authors.map((a) => ({ given: a.given, family: a.family ?? a.literal, sequence: 'additional' })),
    issued: { 'date-parts': [[r.year ?? null]] },
    'container-title': r.venue ? [r.venue] : [],
    ...(r.abstract ? { abstract: `<jats:p>${r.abstract}</jats:p>` } : {}),
  };
}

export function openAlexWork(r: SourceRecord, index: number): Record<string, unknown> {
  return {
    id: `https://openalex.org/W${1000 + index}`,
    doi: r.doi ? `https://doi.org/${r.doi}` : null,
    title: r.title,
    display_name: r.title,
    publication_year: r.year ?? null,
    authorships: r.authors.map((a) => ({ author: { display_name: [a.given, a.family ?? a.literal].filter(Boolean).join(' ') } })),
    primary_location: r.venue ? { source: { display_name: r.venue } } : null,
  };
}
