/**
 * The one HTTP client every source uses: politeness (User-Agent with contact address, rate and
 * concurrency limits), retries with backoff, timeouts, cancellation, size caps, the disk cache and
 * offline mode, so each source module only builds URLs and reads answers.
 *
 *   const http = new HttpClient({
 *     source: 'openalex', baseUrl: 'https://api.openalex.org', email,
 *     privateParams: { api_key: key }, credentialsSetting: 'attest.sources.openalex.apiKey',
 *     requestsPerSecond: 10, maxConcurrent: 4, cache, offline,
 *   });
 *   await http.getJson('/works', { search: 'attention' }, { signal })                      // unknown
 *   await http.getJson('/works', { search: 'attention' }, { signal }, parseResults)        // Work[]
 *   await http.lookupJson('/works/doi:10.1%2Fx', { select: 'id,doi' }, { signal }, parseWork) // Work | undefined
 *   await http.getText('/query', { id_list: '2305.18248' }, { signal }, parseFeed)        // Feed
 *
 * The optional last argument reads the body (parsed JSON, or text) into what the source wants and
 * throws `SourceError('malformed')` when it cannot; it runs before the answer is cached, so an
 * answer it rejects is never served from the cache, and a cached one it rejects counts as a miss.
 * Only a well-formed answer is an answer. `lookupJson`, for identifier lookups whose 404 the service
 * documents as "no such work", resolves to undefined on such a 404, and only when it is the source's
 * own (not HTML, not after a redirect to another origin) and the source has given a well-formed answer
 * during this run; every other 404 or 410 (a search endpoint moved, a proxy, a misconfigured mirror)
 * is 'unavailable'. Everything else throws `SourceError` when the source could not answer:
 *   401/403 → 'unauthorized' (says `whenRefused`, or names `credentialsSetting`); 429 until retries run out → 'rate-limited';
 *   5xx until retries run out, other statuses → 'unavailable'; no connection → 'unreachable'; no answer within
 *   `timeoutMs` → 'timeout'; `signal` aborted → 'cancelled'; invalid JSON or a body over 20 MB →
 *   'malformed'; offline and not in the cache → 'offline'.
 * 429 and 5xx are retried up to 3 times, waiting `Retry-After` when given or an exponential backoff
 * with jitter; a 429 holds back every request of the client, and of every client passing the same
 * gate (`gates.ts`: one per source for a run, shared by its lookups and its full texts). A source that
 * asks to wait longer than 10 s, or fails three times in a row, is skipped (`SourceHealth`): for the rest of the check when
 * the request carries its `CheckRun`, for a few minutes otherwise, so one bad source cannot hold a
 * check up.
 *
 * Private params and headers (API keys, the contact e-mail) are sent but never appear in cache
 * keys, files or error messages, and both are dropped when a redirect leaves the origin.
 */
import { version } from '../../../package.json';
import { inwardRedirect } from '../addressReach';
import { redactSecrets } from '../redact';
import { refusedRedirect } from '../webLink';
import type { LookupCache } from './cache';
import { SourceGates, sleep, type RequestGate } from './gates';
import { SourceHealth } from './health';
import type { RequestOptions } from './types';
import { SourceError } from './types';
import type { SourceId } from './ids';

export type QueryParams = Readonly<Record<string, string | number | undefined>>;

export interface HttpClientOptions {
  readonly source: SourceId;
  /** Where the API lives, e.g. `https://api.openalex.org`; a mirror or a test server may stand in. */
  readonly baseUrl: string;
  /** The user's contact address, put in the User-Agent as the sources' polite pools ask. */
  readonly email?: string;
  readonly privateParams?: Readonly<Record<string, string>>;
  readonly privateHeaders?: Readonly<Record<string, string>>;
  /** The setting or environment variable holding the credentials, named when the source refuses them. */
  readonly credentialsSetting?: string;
  /** What the user can do when the source answers 401 or 403, where the service documents more than a bad key. */
  readonly whenRefused?: string;
  readonly requestsPerSecond: number;
  readonly maxConcurrent: number;
  /** Per attempt, body included. */
  readonly timeoutMs?: number;
  /** The first retry's wait when the source gives no `Retry-After`; doubled for each further retry. */
  readonly backoffMs?: number;
  readonly cache?: LookupCache;
  /** Answer from the cache only (expired entries included) and send nothing. */
  readonly offline?: boolean;
  /** Shared by the clients of one source (Crossref has two); each client has its own otherwise. */
  readonly health?: SourceHealth;
  /** The run's gates, whose one gate per source every client of the source passes; the client has a gate of its own otherwise. */
  readonly gates?: SourceGates;
}

const RETRIES = 3;
/** Longer waits would hold a check up; the source is skipped instead. */
const MAX_RETRY_WAIT_MS = 10_000;
const MAX_BODY_BYTES = 20 * 1024 * 1024;
const MAX_REDIRECTS = 5;
/** Long enough to cover one check of a manuscript, short enough that a returning network is used soon. */
const UNREACHABLE_FOR_MS = 30_000;

type Answer =
  | { readonly status: 200; readonly body: string }
  /** `own`: the source's own 404, not an HTML page nor the answer of another origin it redirected to. */
  | { readonly status: 404 | 410; readonly own: boolean };
type Attempt = Answer | { readonly status: 'retry'; readonly code: number; readonly retryAfterMs?: number };

export class HttpClient {
  private readonly gate: RequestGate;
  private readonly host: string;
  private readonly timeoutMs: number;
  private readonly backoffMs: number;
  private readonly health: SourceHealth;
  /** After a network failure, requests fail at once for a while instead of each waiting its turn to fail. */
  private unreachableUntil = 0;

  constructor(private readonly options: HttpClientOptions) {
    this.gate = (options.gates ?? new SourceGates()).gate(options.source, options.requestsPerSecond, options.maxConcurrent);
    this.host = new URL(options.baseUrl).host;
    this.timeoutMs = options.timeoutMs ?? 20_000;
    this.backoffMs = options.backoffMs ?? 1000;
    this.health = options.health ?? new SourceHealth();
  }

  async getJson(path: string, params?: QueryParams, options?: RequestOptions): Promise<unknown>;
  async getJson<T>(path: string, params: QueryParams, options: RequestOptions, read: (json: unknown) => T): Promise<T>;
  async getJson<T>(path: string, params: QueryParams = {}, options: RequestOptions = {}, read?: (json: unknown) => T): Promise<unknown> {
    return this.answer(path, params, options, (body) => {
      const json = this.parseJson(body);
      return read ? read(json) : json;
    });
  }

  /**
   * An identifier lookup (`/works/{doi}`) whose 404 the service documents as "no such work": undefined
   * for such a 404, under the conditions above.
   */
  async lookupJson<T>(path: string, params: QueryParams, options: RequestOptions, read: (json: unknown) => T): Promise<T | undefined> {
    return this.request(path, params, options, (body) => read(this.parseJson(body)), { method: 'GET' }, true);
  }

  /** `lookupJson` for a document the service serves as text (arXiv's HTML rendering of a paper). */
  async lookupText(path: string, params: QueryParams, options: RequestOptions): Promise<string | undefined> {
    return this.request(path, params, options, (body) => body, { method: 'GET' }, true);
  }

  async getText(path: string, params?: QueryParams, options?: RequestOptions): Promise<string>;
  async getText<T>(path: string, params: QueryParams, options: RequestOptions, read: (text: string) => T): Promise<T>;
  async getText<T>(path: string, params: QueryParams = {}, options: RequestOptions = {}, read?: (text: string) => T): Promise<unknown> {
    return this.answer(path, params, options, (body) => (read ? read(body) : body));
  }

  /**
   * POSTs a JSON body (Semantic Scholar's batch lookup) and reads the JSON answer. The body is part of
   * the cache key, so it must hold no secrets.
   */
  async postJson<T>(path: string, params: QueryParams, body: unknown, options: RequestOptions, read: (json: unknown) => T): Promise<T> {
    const payload = JSON.stringify(body);
    return (await this.request(path, params, options, (text) => read(this.parseJson(text)), { method: 'POST', body: payload }, false)) as T;
  }

  private parseJson(body: string): unknown {
    try {
      return JSON.parse(body);
    } catch (error) {
      const what = /^\s*</.test(body) ? 'an HTML page' : body.trim() === '' ? 'an empty answer' : `${body.length} characters that are not valid JSON (${(error as Error).message})`;
      throw this.error('malformed', `${this.host} sent ${what}.`);
    }
  }

  /** A request whose every answer must be well-formed: a 404 is no answer here. */
  private async answer<T>(path: string, params: QueryParams, options: RequestOptions, read: (body: string) => T): Promise<T> {
    return (await this.request(path, params, options, read, { method: 'GET' }, false)) as T;
  }

  private async request<T>(
    path: string,
    params: QueryParams,
    { signal, run, maxCacheAgeMs }: RequestOptions,
    read: (body: string) => T,
    init: RequestInit,
    absentOn404: boolean,
  ): Promise<T | undefined> {
    const url = this.publicUrl(path, params);
    // Lookups are keyed apart, so a 404 cached before 404s were checked as above is never served.
    const cacheKey = init.body !== undefined ? `${init.method} ${url.href} ${init.body}` : absentOn404 ? `LOOKUP ${url.href}` : url.href;
    const { cache, offline } = this.options;
    const cached = await cache?.get(cacheKey, { includeExpired: offline, maxAgeMs: maxCacheAgeMs });
    if (cached?.status === 404 && absentOn404) return undefined;
    if (cached?.status === 200) {
      try {
        return read(cached.body);
      } catch {
        // An entry the reader rejects (damaged, or stored when Attest read answers differently) is a miss.
      }
    }
    if (offline) throw this.error('offline', `Offline: no answer from ${this.host} is cached for this lookup.`);
    // Within a check, failures count towards skipping the source for the rest of it.
    const health = run?.of(this.options.source) ?? this.health;
    const answer = await this.failing(signal, health, () => this.fetchWithRetries(url, signal, init, health));
    if (answer.status !== 200) {
      // Not yet believed is no sign of trouble: a source that has not answered properly yet is not skipped for it.
      if (absentOn404 && answer.status === 404 && answer.own && !this.health.hasAnswered) {
        throw this.error('unavailable', `${this.host} answered HTTP 404 before any well-formed answer, so its 404 is not taken as "no such work".`);
      }
      await this.failing(signal, health, async () => this.believe404(answer, absentOn404));
      await cache?.set(cacheKey, { status: 404, body: '' });
      return undefined;
    }
    // Read before caching, so an answer that cannot be read is never served from the cache.
    const value = await this.failing(signal, health, async () => read(answer.body));
    this.health.succeeded();
    health.succeeded();
    await cache?.set(cacheKey, answer);
    return value;
  }

  /** Runs one step of a request, counting its failure against the source's health. */
  private async failing<T>(signal: AbortSignal | undefined, health: SourceHealth, step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      if (signal?.aborted) throw this.error('cancelled', `The lookup at ${this.host} was cancelled.`);
      if (error instanceof SourceError) health.failed(error.kind, error.message);
      throw error;
    }
  }

  /** Throws unless a missing answer may be taken for "no such work" (see the top of this file). */
  private believe404(answer: Extract<Answer, { status: 404 | 410 }>, absentOn404: boolean): void {
    const found = `${this.host} answered HTTP ${answer.status}`;
    if (!absentOn404 || answer.status !== 404) throw this.error('unavailable', `${found} where it answers with a list; its address may be wrong.`);
    if (!answer.own) throw this.error('unavailable', `${found} in a web page or from another host, not as its API does.`);
  }

  private publicUrl(path: string, params: QueryParams): URL {
    const url = new URL(this.options.baseUrl.replace(/\/+$/, '') + path);
    for (const [name, value] of Object.entries(params)) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  private async fetchWithRetries(publicUrl: URL, signal: AbortSignal | undefined, init: RequestInit, health: SourceHealth): Promise<Answer> {
    if (Date.now() < this.unreachableUntil) {
      throw this.error('unreachable', `${this.host} could not be reached moments ago; not asking again yet.`);
    }
    const url = new URL(publicUrl);
    for (const [name, value] of Object.entries(this.options.privateParams ?? {})) url.searchParams.set(name, value);
    for (let retry = 0; ; retry++) {
      this.throwIfSkipped(health);
      const leave = await this.gate.enter(signal);
      let attempt: Attempt;
      try {
        // Checked again: the source may have been skipped while this request waited its turn.
        this.throwIfSkipped(health);
        attempt = await this.attempt(url, signal, init);
      } finally {
        leave();
      }
      if (attempt.status !== 'retry') return attempt;
      const wait = attempt.retryAfterMs ?? this.backoffMs * 2 ** retry * (0.5 + Math.random() / 2);
      if (wait > MAX_RETRY_WAIT_MS) {
        const error = this.exhausted(attempt.code, retry + 1, wait);
        health.skip(error.kind, error.message);
        throw error;
      }
      if (retry === RETRIES) throw this.exhausted(attempt.code, retry + 1, wait);
      if (attempt.code === 429) this.gate.pause(wait);
      else await sleep(wait, signal);
    }
  }

  private throwIfSkipped(health: SourceHealth): void {
    const skipped = health.skipReason();
    if (skipped) throw this.error(skipped.kind, `${this.host} is skipped ${health.skipSpan} after ${skipped.reason.replace(/^./, (c) => c.toLowerCase())}`);
  }

  private exhausted(code: number, attempts: number, wait: number): SourceError {
    const tried = `after ${attempts} attempt${attempts === 1 ? '' : 's'}`;
    const asked = wait > MAX_RETRY_WAIT_MS ? ` (it asked to wait ${Math.round(wait / 1000)} s)` : '';
    return code === 429
      ? this.error('rate-limited', `${this.host} is limiting Attest's requests; gave up ${tried}${asked}.`)
      : this.error('unavailable', `${this.host} answered HTTP ${code}; gave up ${tried}${asked}.`);
  }

  private async attempt(url: URL, signal: AbortSignal | undefined, init: RequestInit): Promise<Attempt> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let reached = false;
    try {
      const { response, leftOrigin } = await this.fetchFollowingRedirects(url, combined, init);
      reached = true;
      const { status } = response;
      if (status === 404 || status === 410) {
        await response.body?.cancel();
        const html = /html/i.test(response.headers.get('content-type') ?? '');
        return { status, own: !leftOrigin && !html };
      }
      if (status >= 200 && status < 300) return { status: 200, body: await this.readBody(response) };
      if (status === 429 || status >= 500) {
        await response.body?.cancel();
        return { status: 'retry', code: status, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
      }
      const answer = `HTTP ${status}${await this.explanation(response)}`;
      if (status === 401 || status === 403) throw this.unauthorized(answer);
      throw this.error('unavailable', `${this.host} answered ${answer}.`);
    } catch (error) {
      if (error instanceof SourceError) throw error;
      if (signal?.aborted) throw error;
      if (timeout.aborted) throw this.error('timeout', `${this.host} did not answer within ${this.timeoutMs / 1000} s.`);
      if (reached) throw this.error('unavailable', `${this.host} broke off its answer: ${this.redact(describeNetworkError(error))}.`);
      this.unreachableUntil = Date.now() + UNREACHABLE_FOR_MS;
      throw this.error('unreachable', `Could not reach ${this.host}: ${this.redact(describeNetworkError(error))}.`);
    }
  }

  /** Follows redirects itself to bound them and to keep credentials from leaving the source's origin. */
  private async fetchFollowingRedirects(start: URL, signal: AbortSignal, init: RequestInit): Promise<{ response: Response; leftOrigin: boolean }> {
    let url = start;
    let leftOrigin = false;
    let { method, body } = init;
    for (let redirects = 0; ; redirects++) {
      const contentType: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
      const response = await fetch(url, { method, body, headers: { ...this.headers(!leftOrigin), ...contentType }, signal, redirect: 'manual' });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || location === null) return { response, leftOrigin };
      await response.body?.cancel();
      if (redirects === MAX_REDIRECTS) throw this.error('unavailable', `${this.host} redirected more than ${MAX_REDIRECTS} times.`);
      const next = new URL(location, url);
      const refused = refusedRedirect(this.host, next) ?? (await inwardRedirect(start, next, `${this.host} redirected to ${next.origin}, which Attest did not follow`, this.host));
      if (refused) throw this.error('unavailable', refused);
      if (next.origin !== start.origin) {
        leftOrigin = true;
        this.dropSecrets(next);
      }
      // Only 307 and 308 ask for the same request again; the others redirect to a GET.
      if (response.status !== 307 && response.status !== 308) {
        method = 'GET';
        body = undefined;
      }
      url = next;
    }
  }

  /** A redirect elsewhere may carry the key back in its query (`Location: …?api_key=…`); it goes no further. */
  private dropSecrets(url: URL): void {
    const secrets = new Set(this.secrets());
    for (const [name, value] of [...url.searchParams]) {
      if (name in (this.options.privateParams ?? {}) || secrets.has(value)) url.searchParams.delete(name);
    }
  }

  private headers(withPrivate: boolean): Record<string, string> {
    const contact = this.options.email ? ` (mailto:${this.options.email})` : '';
    return { 'User-Agent': `Attest/${version}${contact}`, ...(withPrivate ? this.options.privateHeaders : {}) };
  }

  private async readBody(response: Response): Promise<string> {
    const tooLarge = (): SourceError => this.error('malformed', `${this.host} sent an answer larger than ${MAX_BODY_BYTES / 1024 / 1024} MB; Attest does not read it.`);
    if (Number(response.headers.get('content-length')) > MAX_BODY_BYTES) {
      await response.body?.cancel();
      throw tooLarge();
    }
    if (!response.body) return '';
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_BODY_BYTES) {
        await reader.cancel();
        throw tooLarge();
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  /** The start of an error body, where sources say what was wrong ("Invalid API key"), as `: …`. */
  private async explanation(response: Response): Promise<string> {
    const text = (await this.readBody(response)).replace(/\s+/g, ' ').trim();
    if (!text) return '';
    // Redacted before it is cut, so a cut cannot leave most of a key behind.
    const redacted = this.redact(text);
    return `: ${redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted}`;
  }

  private unauthorized(answer: string): SourceError {
    const { whenRefused, credentialsSetting } = this.options;
    const fix = whenRefused ? ` ${whenRefused}` : credentialsSetting ? ` Check the API key in ${credentialsSetting}.` : '';
    return this.error('unauthorized', `${this.host} refused Attest's request (${answer}).${fix}`);
  }

  /** Header values count with and without their scheme (`Bearer …`), since an echo may carry the token alone. */
  private secrets(): string[] {
    const headers = Object.values(this.options.privateHeaders ?? {}).flatMap((v) => [v, v.replace(/^(Bearer|Token)\s+/i, '')]);
    return [...Object.values(this.options.privateParams ?? {}), ...headers].filter((s) => s.length > 0).sort((a, b) => b.length - a.length);
  }

  private redact(text: string): string {
    return redactSecrets(text, this.secrets(), '…');
  }

  private error(kind: SourceError['kind'], message: string): SourceError {
    return new SourceError(kind, message, this.options.source);
  }
}

/** `Retry-After` is either seconds or an HTTP date. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** fetch reports "fetch failed"; the reason a user can act on is in its cause. */
function describeNetworkError(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? cause.message : String(cause);
}
