import type { LookupCache } from './cache';
import { DEFAULT_SOURCES } from './config';
import { HttpClient, type HttpClientOptions } from './http';
import type { SourceId } from './ids';

/** What every source client is given: where the service is, how fast to ask it, the contact address, the lookup cache. */
export interface SourceClientOptions {
  /** Defaults to the service's own address (`DEFAULT_SOURCES`). */
  readonly baseUrl?: string;
  /** Defaults to the service's rate in `DEFAULT_SOURCES`. */
  readonly requestsPerSecond?: number;
  readonly email?: string;
  readonly cache?: LookupCache;
  readonly offline?: boolean;
}

/**
 * What a client sets for its own service: its credentials, how many requests at once, and the run's
 * gates where it shares them with the full texts read from the service (the others keep a gate each).
 */
export type OwnClientOptions = Omit<HttpClientOptions, keyof SourceClientOptions | 'source'>;

/** The HTTP client of `source`, set up from the client's options and what it sets for its service. */
export function httpClientFor(source: SourceId, options: SourceClientOptions, own: OwnClientOptions): HttpClient {
  return new HttpClient({
    source,
    baseUrl: options.baseUrl ?? DEFAULT_SOURCES[source].baseUrl,
    email: options.email,
    requestsPerSecond: options.requestsPerSecond ?? DEFAULT_SOURCES[source].requestsPerSecond,
    cache: options.cache,
    offline: options.offline,
    ...own,
  });
}
