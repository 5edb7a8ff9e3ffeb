/**
 * DBLP (https://dblp.org), computer science's bibliography: publications by title through its search
 * API (`/search/publ/api?q=…&format=json`). It indexes one field, so its finding nothing says little
 * about a work from elsewhere (`partialCoverage`).
 */
import { normalizeArxivId, normalizeDoi } from '../identifiers';
import { isObject, text, type Json } from '../json';
import type { HttpClient } from './http';
import { httpClientFor, type SourceClientOptions } from './httpClientFor';
import { notAsked, splitPersonName } from './normalize';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from './types';
import { SourceError } from './types';

const DEFAULT_LIMIT = 5;
/** DBLP's record pages, whatever mirror answered. */
const SITE = 'https://dblp.org';
/** DBLP's key of a record: `conf/cvpr/HeZRS16`, `journals/corr/abs-2305-18248`. */
const RECORD_KEY = /^[a-z]+(?:\/[\w-]+){1,3}$/i;
/** arXiv's e-prints are DBLP's journal "CoRR". */
const PREPRINT_VENUE = 'CoRR';

export class DblpSource implements PaperSource {
  readonly id = 'dblp';
  readonly name = 'DBLP';
  readonly partialCoverage = true;
  private readonly http: HttpClient;

  constructor(options: SourceClientOptions = {}) {
    this.http = httpClientFor('dblp', options, { maxConcurrent: 1 });
  }

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    // Plain words: DBLP reads `|`, `-`, `$` and `*` as operators, and every word of the query must match.
    const words = query.title.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
    if (words === '') throw notAsked(this.id, 'the title has no word to search for');
    const params = { q: words, format: 'json', h: query.limit ?? DEFAULT_LIMIT };
    return this.http.getJson('/search/publ/api', params, options, parseDblpSearch);
  }
}

function malformed(what: string): SourceError {
  return new SourceError('malformed', `DBLP sent ${what}, not the publication Attest expects.`, 'dblp');
}

/**
 * `{ result: { status: { "@code": "200" }, hits: { "@total": "1", hit: [{ info: { authors: { author:
 * [{ "@pid", text }] }, title, venue, year, type, key, doi?, ee?, url } }] } } }`. With no match, `hit`
 * is left out; a list of one may come as the object itself, as DBLP's XML-to-JSON writes it.
 */
export function parseDblpSearch(body: unknown): SourceRecord[] {
  const result = isObject(body) ? body.result : undefined;
  if (!isObject(result) || !isObject(result.hits)) throw malformed('an answer without "result.hits"');
  if (result.hits.hit === undefined) return [];
  return listOf(result.hits.hit).map((hit) => {
    if (!isObject(hit) || !isObject(hit.info)) throw malformed('a hit without "info"');
    return parseDblpInfo(hit.info);
  });
}

function parseDblpInfo(info: Json): SourceRecord {
  const key = text(info.key);
  if (!key || !RECORD_KEY.test(key)) throw malformed('a publication without a record key');
  const venue = listOf(info.venue)
    .map(text)
    .find((v) => v !== undefined);
  return dblpRecord({
    key,
    title: text(info.title) ?? '',
    authors: authorNames(info.authors),
    year: text(info.year),
    venue,
    doi: text(info.doi),
    ee: listOf(info.ee)
      .map(text)
      .filter((e): e is string => e !== undefined),
  });
}

/** What a DBLP publication says, as its search API and its XML dump (`dblpDump/`) both give it. */
export interface DblpPublication {
  /** DBLP's record key: `conf/cvpr/HeZRS16`. */
  readonly key: string;
  readonly title: string;
  /** As DBLP writes them, a homonym's number included ("Wei Wang 0001"). */
  readonly authors: readonly string[];
  readonly year?: string;
  /** The journal, or the proceedings' short title. */
  readonly venue?: string;
  /** As DBLP gives it: bare, or as a `https://doi.org/` link. */
  readonly doi?: string;
  /** Links to the work's electronic editions; an arXiv one gives the arXiv id. */
  readonly ee: readonly string[];
}

/** A DBLP publication as a `SourceRecord`: one shape whether the search API or the dump gave it. */
export function dblpRecord(publication: DblpPublication): SourceRecord {
  const { key, venue } = publication;
  const year = Number(publication.year);
  const doi = normalizeDoi(publication.doi ?? '');
  const arxivLink = publication.ee.find((e) => /arxiv\.org\/abs\//i.test(e));
  const arxivId = arxivLink === undefined ? undefined : normalizeArxivId(arxivLink);
  return {
    source: 'dblp',
    id: key,
    url: `${SITE}/rec/${key}`,
    // DBLP ends every title with a full stop.
    title: publication.title.replace(/\.$/, ''),
    // A homonym's number ("Wei Wang 0001") is DBLP's, not the name's.
    authors: publication.authors.map((name) => splitPersonName(name.replace(/\s+\d{4}$/, ''))),
    ...(Number.isInteger(year) && year > 0 && { year }),
    ...(venue !== undefined && { venue }),
    ...(doi !== undefined && { doi }),
    ...(arxivId !== undefined && { arxivId }),
    ...(venue === PREPRINT_VENUE && { preprint: true }),
  };
}

/** DBLP's key of a record, as its search API and its dump write it. */
export function isDblpKey(key: string): boolean {
  return RECORD_KEY.test(key);
}

/** `{ author: [{ "@pid": "…", text: "Kaiming He" }] }`. */
function authorNames(authors: unknown): string[] {
  if (!isObject(authors)) return [];
  return listOf(authors.author).flatMap((author) => {
    const name = isObject(author) ? text(author.text) : text(author);
    return name === undefined ? [] : [name];
  });
}

function listOf(value: unknown): unknown[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}
