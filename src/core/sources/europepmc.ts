/**
 * Europe PMC's REST API (https://www.ebi.ac.uk/europepmc/webservices/rest/search): works by DOI
 * (`query=DOI:"…"`) and by title and first author (`query=TITLE:"…" AND AUTH:"…"`), always with
 * `resultType=core`, the only result type that carries abstracts and structured author names. A search
 * that finds nothing is an answer with `hitCount: 0`, never a 404.
 */
import type { Author } from '../bibliography/types';
import { normalizeDoi, normalizePmcid, normalizePmid } from '../identifiers';
import { isObject, text, type Json } from '../json';
import { MAX_CONCURRENT } from './config';
import type { SourceGates } from './gates';
import type { HttpClient } from './http';
import { httpClientFor, type SourceClientOptions } from './httpClientFor';
import { doiToAsk, notAsked, splitPersonName, stripMarkup } from './normalize';
import { europePmcUpdates } from './notices';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from './types';
import { SourceError } from './types';

export interface EuropePmcOptions extends SourceClientOptions {
  /** The run's gates, shared with the full texts read from the service. */
  readonly gates?: SourceGates;
}

const SEARCH_PATH = '/europepmc/webservices/rest/search';
const DEFAULT_LIMIT = 5;
/** Enough to find the work among the few records (a paper, its preprint) that can share a DOI. */
const DOI_PAGE = 5;

export class EuropePmcSource implements PaperSource {
  readonly id = 'europepmc';
  readonly name = 'Europe PMC';
  readonly partialCoverage = true;
  readonly reportsUpdates = true;
  private readonly http: HttpClient;

  constructor(options: EuropePmcOptions = {}) {
    this.http = httpClientFor('europepmc', options, { maxConcurrent: MAX_CONCURRENT.europepmc, gates: options.gates });
  }

  async byDoi(doi: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    const normalized = doiToAsk(this.id, doi);
    const records = await this.query(`DOI:"${normalized}"`, DOI_PAGE, options);
    return records.find((record) => record.doi === normalized);
  }

  /** `EXT_ID:"…" AND SRC:MED` for a PubMed id, `PMCID:"PMC…"` for a PubMed Central one. */
  async byPubMedId(id: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    const pmid = normalizePmid(id);
    const pmcid = pmid === undefined ? normalizePmcid(id) : undefined;
    if (!pmid && !pmcid) return undefined;
    const records = await this.query(pmid ? `EXT_ID:"${pmid}" AND SRC:MED` : `PMCID:"${pmcid}"`, DOI_PAGE, options);
    return records.find((record) => (pmid ? record.pmid === pmid : record.pmcid === pmcid));
  }

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    const title = phrase(query.title);
    if (title === '') throw notAsked(this.id, 'the title has no word to search for');
    const family = phrase(query.authors?.[0] ?? '');
    return this.query(family === '' ? `TITLE:"${title}"` : `TITLE:"${title}" AND AUTH:"${family}"`, query.limit ?? DEFAULT_LIMIT, options);
  }

  private async query(query: string, pageSize: number, options: RequestOptions): Promise<SourceRecord[]> {
    const params = { query, format: 'json', resultType: 'core', pageSize };
    return this.http.getJson(SEARCH_PATH, params, options, parseEuropePmcSearch);
  }
}

/** Text fit to go between double quotes in a query: quotes and brackets (and LaTeX's braces) dropped. */
function phrase(text: string): string {
  return text
    .replace(/["(){}[\]\\]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function malformed(what: string): SourceError {
  return new SourceError('malformed', `Europe PMC sent ${what}, not the search result Attest expects.`, 'europepmc');
}

/** `/search?format=json`: `{ hitCount, resultList: { result: [work, …] } }`. */
export function parseEuropePmcSearch(body: unknown): SourceRecord[] {
  if (!isObject(body) || typeof body.hitCount !== 'number') throw malformed('an answer without "hitCount"');
  const list = isObject(body.resultList) ? body.resultList.result : undefined;
  if (list === undefined && body.hitCount === 0) return [];
  if (!Array.isArray(list)) throw malformed('an answer without "resultList"');
  return list.map(parseEuropePmcResult);
}

/**
 * One result of `resultType=core`. It must have an `id` and the `source` database it comes from (MED
 * for PubMed, PMC, PPR for preprints, …), which together name its page; other fields it lacks or holds
 * in another shape are left out of the record.
 */
export function parseEuropePmcResult(result: unknown): SourceRecord {
  if (!isObject(result)) throw malformed('a result that is not an object');
  const id = text(result.id);
  const database = text(result.source);
  if (!id || !database) throw malformed('a result without "id" and "source"');
  const doi = text(result.doi);
  const journalInfo = isObject(result.journalInfo) ? result.journalInfo : {};
  const journal = isObject(journalInfo.journal) ? text(journalInfo.journal.title) : undefined;
  // Preprints have no journal; their server (bioRxiv, medRxiv, …) is the publisher.
  const server = isObject(result.bookOrReportDetails) ? text(result.bookOrReportDetails.publisher) : undefined;
  const year = text(result.pubYear);
  const abstract = text(result.abstractText);
  return {
    source: 'europepmc',
    id,
    url: `https://europepmc.org/article/${encodeURIComponent(database)}/${encodeURIComponent(id)}`,
    title: titleOf(text(result.title)),
    authors: authorsOf(result.authorList),
    year: year && /^\d{4}$/.test(year) ? Number(year) : undefined,
    venue: journal ?? server,
    doi: doi === undefined ? undefined : normalizeDoi(doi),
    pmid: normalizePmid(text(result.pmid)),
    pmcid: normalizePmcid(text(result.pmcid)),
    abstract: abstract === undefined ? undefined : stripMarkup(abstract) || undefined,
    openAccessUrl: openAccessUrlOf(result.fullTextUrlList),
    updates: europePmcUpdates(result),
  };
}

/** MEDLINE ends every title with a period, which the .bib entry does not have. */
function titleOf(title: string | undefined): string {
  if (title === undefined) return '';
  const plain = stripMarkup(title);
  return plain.endsWith('.') && !plain.endsWith('..') ? plain.slice(0, -1) : plain;
}

function authorsOf(authorList: unknown): Author[] {
  const list = isObject(authorList) && Array.isArray(authorList.author) ? authorList.author : [];
  const authors: Author[] = [];
  for (const author of list) {
    const parsed = isObject(author) ? authorOf(author) : undefined;
    if (parsed) authors.push(parsed);
  }
  return authors;
}

function authorOf(author: Json): Author | undefined {
  const family = text(author.lastName);
  const given = text(author.firstName) ?? text(author.initials);
  if (family) return given ? { family, given } : { family };
  const collective = text(author.collectiveName);
  if (collective) return { literal: collective };
  const fullName = text(author.fullName);
  return fullName ? medlineName(fullName) : undefined;
}

/** MEDLINE writes the family name first and the initials last, without periods: "Zhou P", "van der Berg JH". */
function medlineName(name: string): Author {
  const match = /^(.+) ([A-Z]{1,4})$/.exec(name);
  return match ? { family: match[1], given: match[2] } : splitPersonName(name);
}

/** The full text anyone may read (availability "OA", open access, or "F", free): a PDF before a web page. */
function openAccessUrlOf(fullTextUrlList: unknown): string | undefined {
  const urls = isObject(fullTextUrlList) && Array.isArray(fullTextUrlList.fullTextUrl) ? fullTextUrlList.fullTextUrl.filter(isObject) : [];
  const open = urls.filter((url) => url.availabilityCode === 'OA' || url.availabilityCode === 'F');
  const pdf = open.find((url) => url.documentStyle === 'pdf');
  return text((pdf ?? open[0])?.url);
}
