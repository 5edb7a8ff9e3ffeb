import * as http from 'node:http';
import type { SourceRecord } from '../../src/core/sources/types';
import type { SourceId } from '../../src/core/sources/ids';
import { LoopbackServer } from './loopback';
import { crossrefJournals, crossrefWork, openAlexSources, openAlexWork, searchVenues } from './bibliographicServer';

/** What one simulated service allows, as its documentation states it. */
export interface ServiceLimit {
  /** Requests per second before answering 429 with `Retry-After: 1`. */
  readonly requestsPerSecond: number;
}

export type SimulatedSource = Extract<SourceId, 'crossref' | 'openalex' | 'semanticscholar' | 'europepmc'>;

/**
 * Crossref, OpenAlex, Semantic Scholar and Europe PMC over one set of records, each under its own
 * path prefix (`/crossref`, …) with its own rate limit and a fixed latency, speaking each service's
 * wire format for lookups by DOI, title searches and venue searches. Searches rank by shared title
 * words through an inverted index, so the server answers in microseconds and the bench measures
 * Attest, not the stand-in (the detection bench's fuzzy MiniSearch takes ~65 ms a query on this machine).
 */
export class SimulatedServices extends LoopbackServer {
  private readonly byDoi = new Map<string, SourceRecord>();
  private readonly postings = new Map<string, number[]>();
  private readonly recent = new Map<string, number[]>();
  private readonly venues = new Set<string>();
  readonly requests = new Map<string, number>();
  /** Requests answered 429, by source. */
  readonly rejected = new Map<string, number>();

  constructor(
    private readonly records: readonly SourceRecord[],
    private readonly limits: Readonly<Record<SimulatedSource, ServiceLimit>>,
    private readonly latencyMs: number,
  ) {
    super();
    records.forEach((r, id) => {
      if (r.doi) this.byDoi.set(r.doi.toLowerCase(), r);
      if (r.venue) this.venues.add(r.venue);
      for (const word of new Set(words(r.title))) {
        const list = this.postings.get(word) ?? [];
        list.push(id);
        this.postings.set(word, list);
      }
    });
  }

  protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const source = url.pathname.split('/')[1] as SimulatedSource;
    this.requests.set(source, (this.requests.get(source) ?? 0) + 1);
    if (this.overLimit(source)) {
      this.rejected.set(source, (this.rejected.get(source) ?? 0) + 1);
      res.writeHead(429, { 'Retry-After': '1' }).end();
      return;
    }
    const body = req.method === 'POST' ? await readBody(req) : '';
    await new Promise((r) => setTimeout(r, this.latencyMs));
    const answer = this.route(source, decodeURIComponent(url.pathname.slice(source.length + 1)), url.searchParams, body);
    if (answer === undefined) res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"not found"}');
    else res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer));
  }

  private overLimit(source: SimulatedSource): boolean {
    const limit = this.limits[source]?.requestsPerSecond;
    if (!limit) return false;
    const now = Date.now();
    const recent = this.recent.get(source) ?? [];
    this.recent.set(source, recent);
    while (recent.length > 0 && now - recent[0] > 1000) recent.shift();
    if (recent.length >= Math.max(1, limit)) return true;
    recent.push(now);
    return false;
  }

  private route(source: SimulatedSource, path: string, params: URLSearchParams, body: string): unknown {
    switch (source) {
      case 'crossref': {
        if (path.startsWith('/works/')) {
          const record = this.byDoi.get(path.slice('/works/'.length).toLowerCase());
          return record && { status: 'ok', 'message-type': 'work', message: crossrefWork(record) };
        }
        if (path === '/journals') return crossrefJournals(searchVenues(this.venues, params.get('query') ?? '', Number(params.get('rows') ?? 5)));
        const items = this.search(params.get('query.bibliographic') ?? '', Number(params.get('rows') ?? 5)).map(crossrefWork);
        return { status: 'ok', 'message-type': 'work-list', message: { 'total-results': items.length, items } };
      }
      case 'openalex': {
        if (path.startsWith('/works/doi:')) {
          const record = this.byDoi.get(path.slice('/works/doi:'.length).toLowerCase());
          return record && this.openAlexWork(record);
        }
        if (path === '/sources') return openAlexSources(searchVenues(this.venues, params.get('search') ?? '', Number(params.get('per-page') ?? 5)));
        const results = this.search(params.get('search') ?? '', Number(params.get('per-page') ?? 5));
        return { meta: { count: results.length }, results: results.map((r) => this.openAlexWork(r)) };
      }
      case 'semanticscholar': {
        if (path === '/graph/v1/paper/batch') {
          const ids = (JSON.parse(body) as { ids: string[] }).ids;
          return ids.map((id) => {
            const record = id.startsWith('DOI:') ? this.byDoi.get(id.slice(4).toLowerCase()) : undefined;
            return record ? paper(record, this.records.indexOf(record)) : null;
          });
        }
        if (path.startsWith('/graph/v1/paper/DOI:')) {
          const record = this.byDoi.get(path.slice('/graph/v1/paper/DOI:'.length).toLowerCase());
          return record && paper(record, this.records.indexOf(record));
        }
        if (path === '/graph/v1/paper/search') {
          const data = this.search(params.get('query') ?? '', Number(params.get('limit') ?? 5)).map((r) => paper(r, this.records.indexOf(r)));
          return { total: data.length, offset: 0, data };
        }
        return undefined;
      }
      case 'europepmc': {
        const query = params.get('query') ?? '';
        const doi = /^DOI:"(.*)"$/.exec(query);
        const title = /TITLE:"([^"]*)"/.exec(query);
        const found = doi ? [this.byDoi.get(doi[1].toLowerCase())].filter((r): r is SourceRecord => r !== undefined) : this.search(title?.[1] ?? '', 5);
        return { hitCount: found.length, resultList: { result: found.map((r) => europePmcResult(r, this.records.indexOf(r))) } };
      }
    }
    return undefined;
  }

  /** OpenAlex holds an abstract for most works; without one, every found work would send Attest hunting for it elsewhere. */
  private openAlexWork(record: SourceRecord): Record<string, unknown> {
    const abstract = `We present ${record.title}. Our results improve on earlier work.`.split(' ');
    return { ...openAlexWork(record, this.records.indexOf(record)), abstract_inverted_index: Object.fromEntries(invert(abstract)) };
  }

  /** Records sharing the most title words with the query, as long as they share most of their own. */
  private search(query: string, limit: number): SourceRecord[] {
    const scores = new Map<number, number>();
    for (const word of new Set(words(query))) {
      for (const id of this.postings.get(word) ?? []) scores.set(id, (scores.get(id) ?? 0) + 1);
    }
    return [...scores]
      .filter(([id, score]) => score >= 0.6 * new Set(words(this.records[id].title)).size)
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([id]) => this.records[id]);
  }
}

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 2);
}

function invert(words: readonly string[]): Map<string, number[]> {
  const index = new Map<string, number[]>();
  words.forEach((word, i) => index.set(word, [...(index.get(word) ?? []), i]));
  return index;
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => resolve(body));
  });
}

function paper(r: SourceRecord, index: number): Record<string, unknown> {
  return {
    paperId: `p${index}`,
    title: r.title,
    year: r.year ?? null,
    venue: r.venue ?? '',
    authors: r.authors.map((a) => ({ name: [a.given, a.family ?? a.literal].filter(Boolean).join(' ') })),
    externalIds: r.doi ? { DOI: r.doi } : {},
  };
}

function europePmcResult(r: SourceRecord, index: number): Record<string, unknown> {
  return {
    id: String(index),
    source: 'MED',
    title: r.title,
    pubYear: r.year === undefined ? undefined : String(r.year),
    doi: r.doi,
    authorList: { author: r.authors.map((a) => ({ lastName: a.family ?? a.literal, firstName: a.given })) },
    ...(r.venue ? { journalInfo: { journal: { title: r.venue } } } : {}),
  };
}
