/** What went wrong with a request to the language model, said so the user knows what to do about it. */
import type { APIError } from 'openai';
import { redactSecrets } from '../redact';

export type LlmErrorKind = 'not-configured' | 'unreachable' | 'timeout' | 'rate-limited' | 'auth' | 'not-found' | 'rejected' | 'server' | 'cut-off' | 'empty' | 'malformed';

/** A request to the model that failed, with a message meant for the user. */
export class LlmError extends Error {
  constructor(
    readonly kind: LlmErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

interface Endpoint {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  readonly timeoutMs: number;
  readonly maxRetries?: number;
}

/** The `openai` client's error (or the network's) as an `LlmError`; never repeats the API key. */
export function describeFailure(error: unknown, endpoint: Endpoint): LlmError {
  // Loaded here, not at start-up, as llm.ts loads the client; by now the client has loaded it anyway.
  const { APIConnectionError, APIConnectionTimeoutError, APIError } = require('openai') as typeof import('openai');
  const where = endpointName(endpoint.baseUrl);
  const retries = endpoint.maxRetries ?? 2;
  const attempts = retries > 0 ? `; ${retries + 1} attempts` : '';
  if (error instanceof APIConnectionTimeoutError) {
    return new LlmError(
      'timeout',
      `No answer from ${where} within ${seconds(endpoint.timeoutMs)}${retries > 0 ? ` on any of ${retries + 1} attempts` : ''}. A local model may still be loading: try again, or allow more time.`,
    );
  }
  if (error instanceof APIConnectionError) {
    return new LlmError('unreachable', `Could not connect to ${where} (${networkReason(error)}${attempts}): is the server running, and is the endpoint right?`);
  }
  if (error instanceof SyntaxError) {
    return new LlmError('malformed', `${where} sent data that is not a chat-completions reply: is it an OpenAI-compatible API?`);
  }
  // The client wraps whatever fails before the response arrives, so anything else broke while reading it.
  if (!(error instanceof APIError)) {
    const why = error instanceof Error ? error.message : String(error);
    return new LlmError('cut-off', redact(`The reply was cut off: the connection to ${where} broke while it was arriving (${why}).`, endpoint.apiKey));
  }
  const said = serverMessage(error);
  const [kind, message] = byStatus(error.status, where, endpoint);
  return new LlmError(kind, redact(said ? `${message} It said: "${said}"` : message, endpoint.apiKey));
}

interface Bounds extends Endpoint {
  /** Whether the reply was asked for piece by piece. */
  readonly streamed: boolean;
  readonly withinMs: number;
}

/** A reply stopped for growing past a size (`bytes`) or still arriving past `withinMs`. */
export function describeOverLimit(stopped: { readonly limit: 'size' | 'time'; readonly bytes: number }, bounds: Bounds): LlmError {
  const where = endpointName(bounds.baseUrl);
  if (stopped.limit === 'size') {
    return new LlmError('malformed', `The reply from ${where} grew past ${megabytes(stopped.bytes)}, far longer than any draft; the rest was not read.`);
  }
  if (bounds.streamed) {
    return new LlmError('timeout', `The reply was cut off: ${where} was still sending it after ${seconds(bounds.withinMs)}. Try again, or allow more time.`);
  }
  return new LlmError('timeout', `${where} did not send its whole reply within ${seconds(bounds.withinMs)}. A local model may still be loading: try again, or allow more time.`);
}

function megabytes(bytes: number): string {
  return `${Number((bytes / 1_000_000).toFixed(1))} MB`;
}

function byStatus(status: number | undefined, where: string, endpoint: Endpoint): [LlmErrorKind, string] {
  const retries = endpoint.maxRetries ?? 2;
  if (status === undefined) return ['server', `${where} reported an error in the middle of the reply.`];
  if (status === 401 || status === 403) return ['auth', `${where} refused the request (HTTP ${status}): set a valid API key for it.`];
  if (status === 404) {
    return ['not-found', `${where} answered 404: check that the endpoint ends where /chat/completions follows (often /v1) and that it serves the model "${endpoint.model}".`];
  }
  if (status === 429) {
    return ['rate-limited', `${where} is limiting requests (HTTP 429) and still was after ${retries} ${retries === 1 ? 'retry' : 'retries'}: wait a little and try again.`];
  }
  if (status >= 500) return ['server', `${where} failed (HTTP ${status})${retries > 0 ? ` on all ${retries + 1} attempts` : ''}.`];
  return ['rejected', `${where} rejected the request (HTTP ${status}).`];
}

/** Scheme, host and path of the endpoint: never credentials written into the URL. */
export function endpointName(baseUrl: string): string {
  try {
    const url = new URL(baseUrl.trim());
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, '')}`;
  } catch {
    return 'the language model endpoint';
  }
}

export function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

/** The server's own words: the `message` of its JSON error, or the text it sent. */
function serverMessage(error: APIError): string | undefined {
  const body: unknown = error.error;
  if (typeof body === 'object' && body !== null && 'message' in body && typeof body.message === 'string') return body.message.trim() || undefined;
  if (typeof body === 'string') return body.trim() || undefined;
  // The client's message is "<status> <text>", or a placeholder when the body was empty.
  const text = error.message.replace(/^\d{3}\s*/, '').trim();
  return text && !/status code \(no body\)|no status code or body/.test(text) ? text : undefined;
}

/** The first `code` along the error's causes: ECONNREFUSED, ENOTFOUND, … */
function networkReason(error: Error): string {
  let cause: unknown = error.cause;
  for (let depth = 0; depth < 4 && typeof cause === 'object' && cause !== null; depth++) {
    if ('code' in cause && typeof cause.code === 'string') return REASONS[cause.code] ?? cause.code;
    cause = 'cause' in cause ? cause.cause : undefined;
  }
  return 'connection failed';
}

const REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'no such host',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_SOCKET: 'the connection closed unexpectedly',
};

/**
 * OpenAI's 401 quotes part of the key it was given ("Incorrect API key provided: sk-ab***cd"), and a
 * proxy may echo all of it.
 */
function redact(text: string, apiKey: string | undefined): string {
  const withoutKey = apiKey && apiKey.length >= 4 ? redactSecrets(text, [apiKey], '***') : text;
  return withoutKey.replace(/\bsk-[\w*-]{4,}/g, 'sk-***');
}
