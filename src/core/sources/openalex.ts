/**
 * OpenAlex (https://api.openalex.org): works by DOI (`/works/doi:…`, a free singleton request) and by
 * title (`/works?search=…`, which costs from the daily allowance of the API key).
 */
import type { Author } from '../bibliography/types';
import { normalizeArxivId, normalizeDoi, normalizePmcid, normalizePmid } from '../identifiers';
import { isObject, text, type Json } from '../json';
import type { HttpClient } from './http';
import { httpClientFor, type SourceClientOptions } from './httpClientFor';
import { doiPath, doiToAsk, notAsked, splitPersonName, stripMarkup } from './normalize';
import { openAlexUpdates } from './notices';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from './types';
import { SourceError } from './types';

/** Requests default to 10 a second, a tenth of what OpenAlex allows, which keeps Attest a modest guest. */
export interface OpenAlexOptions extends SourceClientOptions {
  /** Sent as `mailto`, which OpenAlex asks for to contact users whose requests cause trouble. */
  readonly email?: string;
  readonly apiKey?: string;
}

/** Only the fields Attest reads, which keeps answers small (`abstract_inverted_index` is most of them). */
const FIELDS = [
  'id',
  'doi',
  'title',
  'display_name',
  'publication_year',
  'authorships',
  'primary_location',
  'locations',
  'open_access',
  'best_oa_location',
  'abstract_inverted_index',
  'is_retracted',
  'ids',
].join(',');
const DEFAULT_LIMIT = 5;
const SET_KEY = 'with "Attest: Set Source API Key" (ATTEST_OPENALEX_API_KEY for the CLI)';
/** Since February 2026 OpenAlex answers searches only with an API key, and answers 403 without one. */
const NO_KEY = `OpenAlex searches need an API key since February 2026: get a free one at https://openalex.org/settings/api and set it ${SET_KEY}.`;
/** OpenAlex also answers 403 when a key's daily allowance is spent. */
const REFUSED_KEY = `The OpenAlex API key may be wrong or its daily allowance spent: check it at https://openalex.org/settings/api and set it again ${SET_KEY}.`;

export class OpenAlexSource implements PaperSource {
  readonly id = 'openalex';
  readonly name = 'OpenAlex';
  readonly reportsUpdates = true;
  private readonly http: HttpClient;

  constructor(options: OpenAlexOptions = {}) {
    const privateParams: Record<string, string> = {};
    if (options.apiKey) privateParams.api_key = options.apiKey;
    if (options.email) privateParams.mailto = options.email;
    this.http = httpClientFor('openalex', options, {
      privateParams,
      whenRefused: options.apiKey ? REFUSED_KEY : NO_KEY,
      // Enough to use its documented 100 requests a second at the latency of a distant API.
      maxConcurrent: 8,
    });
  }

  async byDoi(doi: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    const normalized = doiToAsk(this.id, doi);
    // OpenAlex answers 403 to ids containing these, which would read as a refused API key.
    if (/[,&]/.test(normalized)) {
      throw new SourceError('unavailable', `OpenAlex cannot look up a DOI containing "," or "&" (${normalized}).`, 'openalex');
    }
    return this.http.lookupJson(`/works/doi:${doiPath(normalized)}`, { select: FIELDS }, options, parseOpenAlexWork);
  }

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    // Lower case, so words of the title such as "AND" or "NOT" are not read as search operators.
    const search = query.title.toLowerCase().replace(/["()]/g, ' ').replace(/\s+/g, ' ').trim();
    // An empty search lists every work OpenAlex has.
    if (search === '') throw notAsked(this.id, 'the title has no word to search for');
    const params = { search, 'per-page': query.limit ?? DEFAULT_LIMIT, select: FIELDS };
    return this.http.getJson('/works', params, options, parseOpenAlexResults);
  }

  /** `/sources?search=…`: journals, conferences and repositories, with their abbreviations and former names. */
  async searchVenues(name: string, options: RequestOptions = {}): Promise<string[]> {
    const search = name.toLowerCase().replace(/["()]/g, ' ').replace(/\s+/g, ' ').trim();
    if (search === '') return [];
    const params = { search, 'per-page': DEFAULT_LIMIT, select: 'id,display_name,abbreviated_title,alternate_titles' };
    return this.http.getJson('/sources', params, options, parseOpenAlexSources);
  }
}

/** A `/sources?…` answer: `{ meta, results: [source, …] }`, each source's every name. */
export function parseOpenAlexSources(body: unknown): string[] {
  if (!isObject(body) || !Array.isArray(body.results)) throw malformed('a list of venues without "results"');
  return body.results.flatMap((venue: unknown) => {
    if (!isObject(venue)) return [];
    const alternates = Array.isArray(venue.alternate_titles) ? venue.alternate_titles : [];
    return [venue.display_name, venue.abbreviated_title, ...alternates].flatMap((n: unknown) => (text(n) === undefined ? [] : [text(n) as string]));
  });
}

function malformed(what: string): SourceError {
  return new SourceError('malformed', `OpenAlex sent ${what}, not the work Attest expects.`, 'openalex');
}

/** A `/works?…` answer: `{ meta, results: [work, …] }`. */
export function parseOpenAlexResults(body: unknown): SourceRecord[] {
  if (!isObject(body) || !Array.isArray(body.results)) throw malformed('a list without "results"');
  return body.results.map(parseOpenAlexWork);
}

/**
 * One Work object. It must be an object with an `id`; fields it lacks or holds in another shape are
 * left out of the record rather than failing it, since the work's existence is already answered.
 */
export function parseOpenAlexWork(work: unknown): SourceRecord {
  if (!isObject(work)) throw malformed('something other than an object');
  const url = text(work.id);
  if (!url) throw malformed('a work without an "id"');
  const ids = isObject(work.ids) ? work.ids : {};
  const doi = maybe(text(work.doi) ?? text(ids.doi), normalizeDoi);
  return {
    source: 'openalex',
    id: url.replace(/^https:\/\/openalex\.org\//, ''),
    url,
    // Titles keep the publisher's markup, as Crossref has them: `<i>E. coli</i>`, `CO<sub>2</sub>`.
    title: stripMarkup(text(work.title) ?? text(work.display_name) ?? ''),
    authors: authorsOf(work.authorships),
    year: typeof work.publication_year === 'number' ? work.publication_year : undefined,
    venue: venueOf(work),
    doi,
    arxivId: arxivIdOf(doi, work.locations),
    ...pubMedIdsOf(ids),
    abstract: rebuildAbstract(work.abstract_inverted_index),
    openAccessUrl: openAccessUrlOf(work),
    ...(typeof work.is_retracted === 'boolean' ? { updates: openAlexUpdates(work.is_retracted) } : {}),
  };
}

/** `ids: { pmid: "https://pubmed.ncbi.nlm.nih.gov/123", pmcid: "https://www.ncbi.nlm.nih.gov/pmc/articles/456" }`. */
function pubMedIdsOf(ids: Json): { pmid?: string; pmcid?: string } {
  const pmid = normalizePmid(text(ids.pmid));
  const pmcid = normalizePmcid(text(ids.pmcid));
  return { ...(pmid ? { pmid } : {}), ...(pmcid ? { pmcid } : {}) };
}

function maybe<T>(value: string | undefined, f: (value: string) => T | undefined): T | undefined {
  return value === undefined ? undefined : f(value);
}

function authorsOf(authorships: unknown): Author[] {
  if (!Array.isArray(authorships)) return [];
  const authors: Author[] = [];
  for (const authorship of authorships) {
    if (!isObject(authorship)) continue;
    const name = text(isObject(authorship.author) ? authorship.author.display_name : undefined) ?? text(authorship.raw_author_name);
    if (name) authors.push(splitPersonName(name));
  }
  return authors;
}

function sourceOf(location: unknown): Json | undefined {
  return isObject(location) && isObject(location.source) ? location.source : undefined;
}

/**
 * Where the work was published: the primary location's source, unless that is a repository (arXiv,
 * Zenodo) while another location is a journal or a conference, which holds the published version.
 */
function venueOf(work: Json): string | undefined {
  const primary = sourceOf(work.primary_location);
  const sources = Array.isArray(work.locations) ? work.locations.map(sourceOf) : [];
  const published = primary?.type === 'repository' ? sources.find((s) => typeof s?.type === 'string' && s.type !== 'repository' && text(s.display_name)) : undefined;
  return text((published ?? primary)?.display_name);
}

/** arXiv copies show as the arXiv DOI or as a location on arxiv.org. */
function arxivIdOf(doi: string | undefined, locations: unknown): string | undefined {
  const fromDoi = maybe(doi, normalizeArxivId);
  if (fromDoi || !Array.isArray(locations)) return fromDoi;
  for (const location of locations) {
    const landing = isObject(location) ? text(location.landing_page_url) : undefined;
    const id = landing && /arxiv\.org\/abs\//i.test(landing) ? normalizeArxivId(landing) : undefined;
    if (id) return id;
  }
  return undefined;
}

function openAccessUrlOf(work: Json): string | undefined {
  const openAccess = isObject(work.open_access) ? work.open_access : {};
  const best = isObject(work.best_oa_location) ? work.best_oa_location : {};
  return text(openAccess.oa_url) ?? text(best.pdf_url) ?? text(best.landing_page_url);
}

/**
 * The longest abstract rebuilt, in characters: as long as a .bib value may grow by macro expansion,
 * more than any real abstract. A 110 KB answer listing one word at a million positions would
 * otherwise be a 16 MB abstract.
 */
export const MAX_ABSTRACT_CHARS = 100_000;
/** Positions past this cannot be in an abstract of MAX_ABSTRACT_CHARS: each word takes a character and a space. */
const MAX_ABSTRACT_WORDS = MAX_ABSTRACT_CHARS / 2;

/**
 * OpenAlex gives abstracts as `{ word: [positions] }`; the text is each word at its positions, in
 * order, gaps closed. Each position is read once, and only positions below MAX_ABSTRACT_WORDS are
 * placed (the first word given one wins it), so the work is linear in the answer and the text bounded
 * by MAX_ABSTRACT_CHARS whatever the index holds.
 */
export function rebuildAbstract(index: unknown): string | undefined {
  if (!isObject(index)) return undefined;
  // Sparse: only the positions given take room.
  const slots: string[] = [];
  // Keys and a lookup each rather than `Object.entries`, which measured four times slower on an index of 300,000 words.
  for (const word of Object.keys(index)) {
    const positions = index[word];
    if (!Array.isArray(positions)) continue;
    for (const position of positions) {
      if (Number.isInteger(position) && position >= 0 && position < MAX_ABSTRACT_WORDS) slots[position as number] ??= word;
    }
  }
  const words: string[] = [];
  let length = 0;
  for (const word of slots) {
    if (word === undefined) continue;
    const room = MAX_ABSTRACT_CHARS - length - (words.length > 0 ? 1 : 0);
    if (word.length > room) {
      if (room > 0) words.push(word.slice(0, room));
      break;
    }
    words.push(word);
    length += word.length + (words.length > 1 ? 1 : 0);
  }
  const abstract = words.join(' ').trim();
  return abstract || undefined;
}
