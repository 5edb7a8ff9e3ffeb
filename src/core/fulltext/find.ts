/**
 * Finds a cited work's full text where it is open, through the same HTTP client (rate limits,
 * retries, timeouts, offline mode) as the reference lookups, and through the same gate of each service
 * when given the run's `SourceGates`: a service's allowance is one, however many kinds of work ask it.
 *
 * - Europe PMC: the work's PMCID by DOI, PMCID or PubMed id (`/europepmc/webservices/rest/search?query=
 *   DOI:"…" OR PMCID:PMC… OR (EXT_ID:… AND SRC:MED)`), then its JATS (`/europepmc/webservices/rest/PMC…/fullTextXML`)
 *   when it is in the open-access subset;
 * - arXiv: the LaTeXML rendering at `/html/ID`, for papers with an arXiv id (on arxiv.org, not the API's
 *   host, but under the API's one request every 3 seconds all the same);
 * - CORE: a work's `fullText` (`/v3/search/works/?q=doi:"…"`), with the user's API key.
 *
 * Each text is read into passages in the reader's worker thread (readerThread.ts), off the extension
 * host. Each answer, full text or the reason there is none, is kept in the `FullTextStore`; a service
 * that could not be reached gives a reason for this check only.
 */
import { normalizeArxivId, normalizeDoi, normalizePmcid, normalizePmid } from '../identifiers';
import { DEFAULT_SOURCES, MAX_CONCURRENT } from '../sources/config';
import type { SourceGates } from '../sources/gates';
import { HttpClient } from '../sources/http';
import { SourceError } from '../sources/types';
import type { SourceId } from '../sources/ids';
import type { FullText, FullTextResult, FullTextSource, Passage, WorkIds } from './types';
import { readFetchedText } from './readerThread';
import type { FullTextStore } from './store';

export interface FullTextServices {
  /** The bibliographic sources the user enabled: a full text is asked only of those. */
  readonly enabled: readonly SourceId[];
  readonly europepmcBaseUrl: string;
  /** Where arXiv serves HTML, which is not where its API is. */
  readonly arxivHtmlBaseUrl: string;
  readonly coreBaseUrl: string;
  readonly coreApiKey?: string;
  readonly email?: string;
  readonly offline: boolean;
  /** The rates the user set for these services (`attest.sources.*.requestsPerSecond`); their documented ones otherwise. */
  readonly requestsPerSecond?: Partial<Readonly<Record<FullTextService, number>>>;
  /** The run's gates, which the reference lookups pass too. */
  readonly gates?: SourceGates;
  readonly store?: FullTextStore;
  /** Per attempt; the HTTP client's default when unset. */
  readonly timeoutMs?: number;
  /** The first retry's wait; the HTTP client's default when unset. */
  readonly backoffMs?: number;
}

type FullTextService = keyof typeof MAX_CONCURRENT;

/** One service's answer: the full text, or why it has none. */
type Attempt = { readonly fullText: FullText } | { readonly reason: string };

interface Service {
  readonly id: FullTextSource;
  /** The store key for this work at this service, or why the service cannot be asked about it. */
  keyFor(ids: WorkIds): string | { readonly reason: string };
  fetch(ids: WorkIds, signal: AbortSignal | undefined): Promise<Attempt>;
}

export class FullTextFinder {
  private readonly services: Service[] = [];

  constructor(private readonly options: FullTextServices) {
    const client = (source: FullTextService, baseUrl: string, privateHeaders: Record<string, string> = {}): HttpClient =>
      new HttpClient({
        source,
        baseUrl,
        email: options.email,
        requestsPerSecond: options.requestsPerSecond?.[source] ?? DEFAULT_SOURCES[source].requestsPerSecond,
        maxConcurrent: MAX_CONCURRENT[source],
        gates: options.gates,
        offline: options.offline,
        privateHeaders,
        timeoutMs: options.timeoutMs,
        backoffMs: options.backoffMs,
      });
    if (options.enabled.includes('europepmc')) this.services.push(europePmc(client('europepmc', options.europepmcBaseUrl)));
    if (options.enabled.includes('arxiv')) this.services.push(arxivHtml(client('arxiv', options.arxivHtmlBaseUrl)));
    if (options.enabled.includes('core')) {
      this.services.push(
        options.coreApiKey ? core(client('core', options.coreBaseUrl, { Authorization: `Bearer ${options.coreApiKey}` })) : unavailable('core', 'CORE needs an API key'),
      );
    }
  }

  /** The first open full text of the work, or every service's reason for having none. */
  async find(written: WorkIds, signal?: AbortSignal): Promise<FullTextResult> {
    const ids = askable(written);
    const reasons: string[] = [];
    for (const service of this.services) {
      const key = service.keyFor(ids);
      if (typeof key !== 'string') {
        reasons.push(key.reason);
        continue;
      }
      const attempt = (await this.options.store?.get(key)) ?? (await this.ask(service, key, ids, signal));
      if ('fullText' in attempt) return attempt;
      reasons.push(attempt.reason);
    }
    return { reason: reasons.length > 0 ? unique(reasons).join('; ') : 'no full-text source is enabled' };
  }

  /** The first full text of the work already in the store, asking no service: what is at hand. */
  async stored(written: WorkIds): Promise<FullText | undefined> {
    const ids = askable(written);
    for (const service of this.services) {
      const key = service.keyFor(ids);
      const stored = typeof key === 'string' ? await this.options.store?.get(key) : undefined;
      if (stored && 'fullText' in stored) return stored.fullText;
    }
    return undefined;
  }

  private async ask(service: Service, key: string, ids: WorkIds, signal: AbortSignal | undefined): Promise<Attempt> {
    try {
      const attempt = await service.fetch(ids, signal);
      await this.options.store?.set(key, attempt);
      return attempt;
    } catch (error) {
      if (!(error instanceof SourceError) || error.kind === 'cancelled') throw error;
      return { reason: error.message };
    }
  }
}

/**
 * The work's identifiers that are what they claim to be, in the form the services read: the rest go
 * into no path or query, where an eprint of `../../latest/meta-data/` or a DOI with a `"` would ask
 * for something else.
 */
function askable(ids: WorkIds): WorkIds {
  const doi = normalizeDoi(ids.doi);
  return {
    doi: doi !== undefined && !/["\\]/.test(doi) ? doi : undefined,
    arxivId: normalizeArxivId(ids.arxivId),
    pmid: normalizePmid(ids.pmid),
    pmcid: normalizePmcid(ids.pmcid),
  };
}

/** A service that cannot be asked at all; its reason is given for every work. */
function unavailable(id: FullTextSource, reason: string): Service {
  return {
    id,
    keyFor: () => ({ reason }),
    fetch: async () => ({ reason }),
  };
}

function unique(reasons: readonly string[]): string[] {
  return [...new Set(reasons)];
}

function fullText(source: FullTextSource, location: string, read: { passages: Passage[] } | { reason: string }): Attempt {
  return 'reason' in read ? read : { fullText: { source, location, passages: read.passages } };
}

const EUROPE_PMC_REST = '/europepmc/webservices/rest';

function europePmc(http: HttpClient): Service {
  return {
    id: 'europepmc',
    // By DOI first, as stores of earlier versions are keyed.
    keyFor: (ids) =>
      ids.doi
        ? `europepmc:doi:${ids.doi}`
        : ids.pmcid
          ? `europepmc:pmcid:${ids.pmcid}`
          : ids.pmid
            ? `europepmc:pmid:${ids.pmid}`
            : { reason: 'Europe PMC is asked by DOI, PMID or PMCID, and the entry has none' },
    async fetch(ids, signal) {
      const params = { query: europePmcQuery(ids), format: 'json', resultType: 'lite', pageSize: 5 };
      const pmcid = await http.getJson(`${EUROPE_PMC_REST}/search`, params, { signal }, (json) => openPmcid(json, ids));
      if (!pmcid) return { reason: 'Europe PMC has no open-access full text of it' };
      // The search has just answered, so a 404 here is Europe PMC saying it holds no full text of it.
      const xml = await http.lookupText(`${EUROPE_PMC_REST}/${pmcid}/fullTextXML`, {}, { signal });
      if (xml === undefined) return { reason: `Europe PMC has no full text of ${pmcid}` };
      return fullText('europepmc', pmcid, await readFetchedText('jats', xml));
    },
  };
}

/** Every identifier of the work in Europe PMC's search fields: `DOI`, `PMCID`, and a PubMed id as `EXT_ID` of source `MED`. */
function europePmcQuery(ids: WorkIds): string {
  const terms = [ids.doi && `DOI:"${ids.doi}"`, ids.pmcid && `PMCID:${ids.pmcid}`, ids.pmid && `(EXT_ID:${ids.pmid} AND SRC:MED)`];
  return terms.filter((term) => term).join(' OR ');
}

/** The PMCID of the open-access record of this work in a Europe PMC search answer. */
function openPmcid(json: unknown, ids: WorkIds): string | undefined {
  const results = (json as { resultList?: { result?: unknown } } | null)?.resultList?.result;
  if (!Array.isArray(results)) throw new SourceError('malformed', 'Europe PMC sent a search answer without a result list.', 'europepmc');
  for (const result of results as Record<string, unknown>[]) {
    const sameWork =
      (ids.doi !== undefined && typeof result.doi === 'string' && result.doi.toLowerCase() === ids.doi.toLowerCase()) ||
      (ids.pmcid !== undefined && result.pmcid === ids.pmcid) ||
      (ids.pmid !== undefined && result.pmid === ids.pmid);
    const pmcid = typeof result.pmcid === 'string' ? normalizePmcid(result.pmcid) : undefined;
    if (sameWork && result.isOpenAccess === 'Y' && pmcid !== undefined) return pmcid;
  }
  return undefined;
}

function arxivHtml(http: HttpClient): Service {
  return {
    id: 'arxiv',
    keyFor: (ids) => (ids.arxivId ? `arxiv:html:${ids.arxivId}` : { reason: 'not on arXiv' }),
    async fetch(ids, signal) {
      const html = await http.lookupText(`/html/${ids.arxivId}`, {}, { signal });
      if (html === undefined) return { reason: `arXiv has no HTML rendering of ${ids.arxivId}` };
      return fullText('arxiv', `arXiv:${ids.arxivId}`, await readFetchedText('latexml', html));
    },
  };
}

function core(http: HttpClient): Service {
  return {
    id: 'core',
    keyFor: (ids) => (ids.doi ? `core:doi:${ids.doi}` : ids.arxivId ? `core:arxiv:${ids.arxivId}` : { reason: 'CORE is asked by DOI or arXiv id, and the entry has neither' }),
    async fetch(ids, signal) {
      const q = ids.doi ? `doi:"${ids.doi}"` : `arxivId:"${ids.arxivId}"`;
      const found = await http.getJson('/v3/search/works/', { q, limit: 3 }, { signal }, (json) => coreFullText(json, ids));
      if (!found) return { reason: 'CORE has no full text of it' };
      return fullText('core', `CORE ${found.id}`, await readFetchedText('plain', found.text));
    },
  };
}

/** The full text of the work with these ids in a CORE search answer. */
function coreFullText(json: unknown, ids: WorkIds): { id: string; text: string } | undefined {
  const results = (json as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) throw new SourceError('malformed', 'CORE sent a search answer without results.', 'core');
  for (const result of results as Record<string, unknown>[]) {
    const doi = typeof result.doi === 'string' ? result.doi.toLowerCase() : undefined;
    const arxivId = typeof result.arxivId === 'string' ? result.arxivId.replace(/v\d+$/, '') : undefined;
    const sameWork = (ids.doi !== undefined && doi === ids.doi.toLowerCase()) || (ids.arxivId !== undefined && arxivId === ids.arxivId);
    if (sameWork && typeof result.fullText === 'string' && result.fullText.trim() !== '') return { id: String(result.id), text: result.fullText };
  }
  return undefined;
}
