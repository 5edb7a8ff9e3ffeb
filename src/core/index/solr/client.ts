/**
 * The HTTP conversation with an institution's SolrCloud: its JSON answers read within bounds (size and
 * time), its failures turned into `SolrError`s that say what the writer can do. Each request goes to
 * the node named by the URL; SolrCloud routes it to the shards' live replicas.
 *
 *   const solr = new SolrClient({ url: 'https://solr.example.org/solr', collection: 'papers' });
 *   await solr.select({ q: '…', rows: '10', fl: 'id,score' }, signal)   // { numFound, docs }
 *   await solr.update([{ id: 'doi:10.1/x', … }], signal)                 // committed
 *   await solr.add(docs, signal); …; await solr.commit(signal)          // many batches, one commit
 */
import { redactSecrets } from '../../redact';
import { boundedFetch, ReplyOverLimit } from '../../suggest/boundedFetch';

export interface SolrTarget {
  /** The base address of any node, up to and including `/solr`: `https://solr.example.org/solr`. */
  readonly url: string;
  readonly collection: string;
  /** Basic authentication, as Solr's BasicAuthPlugin asks; from the editor's secret storage or the environment. */
  readonly credentials?: { readonly user: string; readonly password: string };
  /** Per request, body included. */
  readonly timeoutMs?: number;
}

/** Why Solr could not answer: none of these says anything about a paper. */
export type SolrFailure = 'unreachable' | 'timeout' | 'unauthorized' | 'no-collection' | 'refused' | 'unavailable' | 'malformed' | 'cancelled';

export class SolrError extends Error {
  override readonly name = 'SolrError';

  constructor(
    readonly failure: SolrFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface SolrDocument {
  readonly [field: string]: unknown;
}

export interface SolrResults {
  readonly numFound: number;
  readonly docs: readonly SolrDocument[];
}

export type SolrParams = Readonly<Record<string, string>>;

/** Large enough for a thousand candidates' ids and scores, or a batch of stored papers. */
const MAX_REPLY_BYTES = 64 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Solr's error messages quoted in ours: enough to read, never a page of stack trace. */
const QUOTED_CHARACTERS = 300;

export class SolrClient {
  private readonly base: string;
  private readonly fetch: typeof fetch;
  private readonly authorization: string | undefined;
  /** Kept out of every message Attest shows, however Solr echoes it. */
  private readonly secrets: readonly string[];

  constructor(readonly target: SolrTarget) {
    const url = new URL(target.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SolrError('refused', `The Solr address must be http or https, not ${url.protocol}`);
    if (url.username !== '' || url.password !== '') throw new SolrError('refused', 'Give Solr credentials apart from its address, not inside it.');
    this.base = url.href.replace(/\/+$/, '');
    const timeout = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetch = boundedFetch({ maxBytes: MAX_REPLY_BYTES, maxLineBytes: MAX_REPLY_BYTES, withinMs: timeout });
    const { credentials } = target;
    this.authorization = credentials && `Basic ${Buffer.from(`${credentials.user}:${credentials.password}`).toString('base64')}`;
    this.secrets = credentials ? [credentials.password, this.authorization as string] : [];
  }

  /** The collection's `/select`, its parameters sent as a form so that a query vector fits. */
  async select(params: SolrParams, signal?: AbortSignal): Promise<SolrResults> {
    const answer = await this.send(`${this.collectionPath()}/select`, { method: 'POST', form: { ...params, wt: 'json', omitHeader: 'true' }, signal });
    return readResults(answer);
  }

  /** The number of documents holding each of `terms` in `field`, over the whole collection; a term none holds is absent. */
  async documentFrequencies(field: string, terms: readonly string[], signal?: AbortSignal): Promise<Map<string, number>> {
    if (terms.length === 0) return new Map();
    const answer = await this.send(`${this.collectionPath()}/terms`, {
      method: 'POST',
      form: { 'terms.fl': field, 'terms.list': terms.map(escapeListItem).join(','), distrib: 'true', wt: 'json', omitHeader: 'true' },
      signal,
    });
    const pairs = (answer as { terms?: Record<string, unknown> }).terms?.[field];
    const counts = new Map<string, number>();
    if (!Array.isArray(pairs)) return counts;
    for (let at = 0; at + 1 < pairs.length; at += 2) {
      const [term, count] = [pairs[at], pairs[at + 1]];
      if (typeof term === 'string' && typeof count === 'number') counts.set(term, count);
    }
    return counts;
  }

  /** The stored documents of `ids` (real-time get: also those not yet committed), in no particular order. */
  async get(ids: readonly string[], fields: string, signal?: AbortSignal): Promise<SolrResults> {
    if (ids.length === 0) return { numFound: 0, docs: [] };
    const answer = await this.send(`${this.collectionPath()}/get`, { method: 'POST', form: { ids: ids.map(escapeListItem).join(','), fl: fields, wt: 'json' }, signal });
    return readResults(answer);
  }

  /** Adds or replaces `docs` by id, committed when the call returns so that a search sees them. */
  async update(docs: readonly SolrDocument[], signal?: AbortSignal): Promise<void> {
    await this.send(`${this.collectionPath()}/update`, { method: 'POST', json: docs, query: { commit: 'true', wt: 'json' }, signal });
  }

  /**
   * Adds or replaces `docs` by id without a commit: Solr's update log keeps them through a crash, a
   * real-time get sees them at once, and a search after its soft commit (seconds) or `commit`. An
   * import of many batches commits once: a commit per batch of 256 flushed a tiny segment each time,
   * and merging those (their vector graphs rebuilt) was most of the work at a million papers.
   */
  async add(docs: readonly SolrDocument[], signal?: AbortSignal): Promise<void> {
    await this.send(`${this.collectionPath()}/update`, { method: 'POST', json: docs, query: { wt: 'json' }, signal });
  }

  /** Makes every update so far durable and searchable. */
  async commit(signal?: AbortSignal): Promise<void> {
    await this.send(`${this.collectionPath()}/update`, { method: 'POST', json: { commit: {} }, query: { wt: 'json' }, signal });
  }

  /** Deletes the documents of `ids`, committed. */
  async delete(ids: readonly string[], signal?: AbortSignal): Promise<void> {
    await this.send(`${this.collectionPath()}/update`, { method: 'POST', json: { delete: ids }, query: { commit: 'true', wt: 'json' }, signal });
  }

  /** A request to Solr's admin APIs (`/admin/collections`, `/admin/configs`), by GET, or by POST with a raw body. */
  async admin(path: string, query: SolrParams, body?: { readonly bytes: Uint8Array; readonly type: string }, signal?: AbortSignal): Promise<unknown> {
    return this.send(path, { method: body ? 'POST' : 'GET', query: { ...query, wt: 'json' }, raw: body, signal });
  }

  private collectionPath(): string {
    return `/${encodeURIComponent(this.target.collection)}`;
  }

  private async send(
    path: string,
    request: {
      readonly method: 'GET' | 'POST';
      readonly query?: SolrParams;
      readonly form?: SolrParams;
      readonly json?: unknown;
      readonly raw?: { readonly bytes: Uint8Array; readonly type: string };
      readonly signal?: AbortSignal;
    },
  ): Promise<unknown> {
    const url = new URL(this.base + path);
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.authorization) headers.authorization = this.authorization;
    let body: string | Uint8Array | undefined;
    if (request.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(request.form).toString();
    } else if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.raw) {
      headers['content-type'] = request.raw.type;
      body = request.raw.bytes;
    }
    const where = this.where();
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(url, { method: request.method, headers, body, signal: request.signal, redirect: 'error' });
      text = await response.text();
    } catch (error) {
      throw this.failure(error, where, request.signal);
    }
    if (response.status === 401 || response.status === 403) {
      throw new SolrError('unauthorized', `Solr at ${where} refused the request (${response.status}): check the user name and password Attest was given for it.`);
    }
    const json = parseJson(text);
    if (response.status === 404 && path.startsWith(this.collectionPath())) {
      throw new SolrError('no-collection', `Solr at ${where} has no collection named '${this.target.collection}': make it with attest solr init, or name another.`);
    }
    if (!response.ok) {
      const said = solrMessage(json) ?? `HTTP ${response.status}`;
      const failure: SolrFailure = response.status >= 500 ? 'unavailable' : 'refused';
      throw new SolrError(failure, `Solr at ${where} could not answer: ${quoted(said, this.secrets)}`);
    }
    if (json === undefined) throw new SolrError('malformed', `Solr at ${where} answered with something other than JSON.`);
    return json;
  }

  private failure(error: unknown, where: string, signal: AbortSignal | undefined): SolrError {
    if (signal?.aborted) return new SolrError('cancelled', 'The search was cancelled.');
    if (error instanceof ReplyOverLimit) {
      return error.limit === 'time'
        ? new SolrError('timeout', `Solr at ${where} did not answer in time.`)
        : new SolrError('malformed', `Solr at ${where} sent a larger answer than Attest reads.`);
    }
    const cause = (error as { cause?: { code?: unknown } }).cause;
    const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
    return new SolrError('unreachable', `Solr at ${where} could not be reached${code}: is the address right, and is the cluster running?`);
  }

  /** The address in messages: the node, never credentials (which the URL cannot hold, see the constructor). */
  private where(): string {
    return quoted(this.base, this.secrets);
  }
}

function readResults(answer: unknown): SolrResults {
  const response = (answer as { response?: { numFound?: unknown; docs?: unknown } }).response;
  if (typeof response?.numFound !== 'number' || !Array.isArray(response.docs)) throw new SolrError('malformed', 'Solr answered without a list of documents.');
  return { numFound: response.numFound, docs: response.docs.filter((doc): doc is SolrDocument => typeof doc === 'object' && doc !== null && !Array.isArray(doc)) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Solr's own account of an error: `error.msg` of its JSON answers. */
function solrMessage(json: unknown): string | undefined {
  const message = (json as { error?: { msg?: unknown } } | undefined)?.error?.msg;
  return typeof message === 'string' ? message : undefined;
}

/** Outside text in a message: one line, bounded, secrets taken out. */
function quoted(text: string, secrets: readonly string[]): string {
  const line = redactSecrets(text, secrets, '***').replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ');
  return line.length > QUOTED_CHARACTERS ? `${line.slice(0, QUOTED_CHARACTERS)}…` : line;
}

/** An item of a comma-separated list Solr reads (`/get`'s `ids`, `terms.list`): a comma or backslash inside it escaped with a backslash. */
function escapeListItem(item: string): string {
  return item.replace(/[\\,]/g, (c) => `\\${c}`);
}
