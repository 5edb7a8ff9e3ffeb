/**
 * arXiv (https://export.arxiv.org/api/query): papers by id (`id_list=`) and by title and first author
 * (`search_query=ti:"…" AND au:…`). Answers are Atom feeds; arXiv reports a bad request inside the
 * feed, as an entry whose id is `http://arxiv.org/api/errors#…`, with HTTP 200.
 */
import { normalizeArxivId, normalizeDoi } from '../identifiers';
import type { XMLParser } from 'fast-xml-parser';
import type { Author } from '../bibliography/types';
import { isObject, type Json } from '../json';
import { MAX_CONCURRENT } from './config';
import type { SourceGates } from './gates';
import type { HttpClient } from './http';
import { httpClientFor, type SourceClientOptions } from './httpClientFor';
import { arxivIdToAsk, notAsked, splitPersonName } from './normalize';
import { arxivUpdates } from './notices';
import type { BibliographicQuery, PaperSource, RequestOptions, SourceRecord } from './types';
import { SourceError } from './types';

/** Requests default to one every 3 seconds, as arXiv's terms of use ask. */
export interface ArxivOptions extends SourceClientOptions {
  /** The run's gates, shared with the full texts read from the service. */
  readonly gates?: SourceGates;
}

const DEFAULT_LIMIT = 5;

export class ArxivSource implements PaperSource {
  readonly id = 'arxiv';
  readonly name = 'arXiv';
  readonly partialCoverage = true;
  readonly reportsUpdates = true;
  private readonly http: HttpClient;

  constructor(options: ArxivOptions = {}) {
    this.http = httpClientFor('arxiv', options, { maxConcurrent: MAX_CONCURRENT.arxiv, gates: options.gates });
  }

  async byArxivId(arxivId: string, options: RequestOptions = {}): Promise<SourceRecord | undefined> {
    const id = arxivIdToAsk(this.id, arxivId);
    const records = await this.http.getText('/api/query', { id_list: id, max_results: 1 }, options, parseArxivFeed);
    // An id arXiv does not have gets an empty feed; the record must be the one asked for.
    return records.find((record) => record.arxivId === id);
  }

  async search(query: BibliographicQuery, options: RequestOptions = {}): Promise<SourceRecord[]> {
    const title = searchWords(query.title);
    if (title === '') throw notAsked(this.id, 'the title has no word to search for');
    const family = searchWords(query.authors?.[0] ?? '');
    // arXiv's own syntax: a quoted phrase for the title, underscores for spaces in an author's name.
    const searchQuery = family === '' ? `ti:"${title}"` : `ti:"${title}" AND au:${family.replace(/ /g, '_')}`;
    const params = { search_query: searchQuery, max_results: query.limit ?? DEFAULT_LIMIT };
    return this.http.getText('/api/query', params, options, parseArxivFeed);
  }
}

/** Letters, digits and hyphens only, lower case, so nothing in a title reads as query syntax ("AND", quotes, colons). */
function searchWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}-]+/gu, ' ')
    .trim();
}

function malformed(what: string): SourceError {
  return new SourceError('malformed', `arXiv sent ${what}, not the Atom feed Attest expects.`, 'arxiv');
}

let parser: XMLParser | undefined;

/** The feed reader, made on the first answer from arXiv: the editor starts sooner without it. */
function feedParser(): XMLParser {
  parser ??= new (require('fast-xml-parser') as typeof import('fast-xml-parser')).XMLParser(FEED_OPTIONS);
  return parser;
}

const FEED_OPTIONS = {
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  // `arxiv:doi` becomes `doi`: no Atom element has the same name.
  removeNSPrefix: true,
  // A title or journal reference that looks like a number ("1984", "2305.18240") must stay text.
  parseTagValue: false,
  isArray: (name: string) => name === 'entry' || name === 'author' || name === 'link',
};

/** An element's text, whether it has attributes (`<title type="html">`) or not; whitespace collapsed. */
function text(value: unknown): string | undefined {
  const raw = isObject(value) ? value['#text'] : value;
  if (typeof raw !== 'string') return undefined;
  const collapsed = raw.replace(/\s+/g, ' ').trim();
  return collapsed === '' ? undefined : collapsed;
}

function nodes(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/**
 * A feed of `/api/query`: one record per paper. Entries for ids of the wrong form (arXiv's
 * `incorrect_id_format_for_…` errors) are left out, since no paper has such an id; any other error
 * entry means arXiv refused the query.
 */
export function parseArxivFeed(xml: string): SourceRecord[] {
  let document: unknown;
  try {
    document = feedParser().parse(xml, true);
  } catch (error) {
    throw malformed(`XML that does not parse (${(error as Error).message})`);
  }
  const feed = isObject(document) ? document.feed : undefined;
  if (!isObject(feed)) throw malformed('a document without a <feed>');
  const records: SourceRecord[] = [];
  for (const entry of nodes(feed.entry)) {
    const id = text(entry.id) ?? '';
    if (id.includes('/api/errors')) {
      if (id.includes('incorrect_id_format')) continue;
      throw new SourceError('unavailable', `arXiv refused the query: ${text(entry.summary) ?? id}.`, 'arxiv');
    }
    records.push(parseArxivEntry(entry));
  }
  return records;
}

function parseArxivEntry(entry: Json): SourceRecord {
  const rawId = text(entry.id);
  const arxivId = rawId === undefined ? undefined : normalizeArxivId(rawId);
  if (!arxivId) throw malformed(`an entry whose id (${rawId ?? 'none'}) is not an arXiv id`);
  const published = text(entry.published);
  // The field may hold several DOIs, separated by spaces; the first is the paper's.
  const doi = text(entry.doi)?.split(' ')[0];
  const pdf = nodes(entry.link).find((link) => link['@title'] === 'pdf');
  return {
    source: 'arxiv',
    id: arxivId,
    url: `https://arxiv.org/abs/${arxivId}`,
    title: text(entry.title) ?? '',
    authors: authorsOf(entry.author),
    year: published && /^\d{4}/.test(published) ? Number(published.slice(0, 4)) : undefined,
    venue: text(entry.journal_ref),
    doi: doi === undefined ? undefined : normalizeDoi(doi),
    arxivId,
    abstract: text(entry.summary),
    openAccessUrl: text(pdf?.['@href']),
    updates: arxivUpdates(text(entry.comment), pdf !== undefined),
  };
}

function authorsOf(authors: unknown): Author[] {
  const result: Author[] = [];
  for (const author of nodes(authors)) {
    const name = text(author.name);
    if (name) result.push(splitPersonName(name));
  }
  return result;
}
