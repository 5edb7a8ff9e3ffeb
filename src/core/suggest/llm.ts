/**
 * The language model that drafts suggestions: any endpoint that speaks OpenAI's chat-completions API
 * (OpenAI itself, or a local Ollama, LM Studio, vLLM or llama.cpp server), through the `openai` client.
 *
 *   const llm = new OpenAiLlm({ baseUrl: 'http://localhost:11434/v1', model: 'llama3.1', temperature: 0.2, maxTokens: 800, timeoutMs: 120_000 });
 *   const text = await llm.complete([{ role: 'user', content: 'Hi' }], { signal, onToken: (t) => shown += t });
 */
import type OpenAI from 'openai';
import { boundedFetch, ReplyOverLimit } from './boundedFetch';
import { MAX_REPLY_CHARACTERS } from './limits';
import { describeFailure, describeOverLimit, LlmError, seconds } from './llmErrors';

export { LlmError, type LlmErrorKind } from './llmErrors';

export interface ChatMessage {
  readonly role: 'system' | 'user';
  readonly content: string;
}

export interface CompleteOptions {
  readonly signal?: AbortSignal;
  /** Called with each piece of the reply as it streams in; without it, the reply comes in one piece. */
  readonly onToken?: (piece: string) => void;
}

export interface Llm {
  /** The model's reply. Rejects with an `LlmError`, or with `signal.reason` once `signal` aborts. */
  complete(messages: readonly ChatMessage[], options?: CompleteOptions): Promise<string>;
}

export interface LlmSettings {
  /** Where `/chat/completions` is appended: `https://api.openai.com/v1`, `http://localhost:11434/v1`. */
  readonly baseUrl: string;
  readonly model: string;
  /** Absent for local servers, which ignore the key. */
  readonly apiKey?: string;
  readonly temperature: number;
  readonly maxTokens: number;
  /**
   * How long a whole reply may take, and a streamed one to start and then between pieces of its text;
   * a streamed reply ends after STREAMED_REPLY_TIMEOUTS of these in all.
   */
  readonly timeoutMs: number;
  /** Retries of a request that was rate-limited, failed with a 5xx, timed out or could not connect; 2 when absent. */
  readonly maxRetries?: number;
}

/**
 * The client refuses to start without a key; local servers accept any. Passing one always also keeps
 * the client from reading OPENAI_API_KEY from the environment and sending that key to whatever server
 * the settings name.
 */
const PLACEHOLDER_KEY = 'no-key';

/** The client announces the user's OS, CPU and Node version in these; a null header is not sent. */
const PLATFORM_HEADERS = { 'X-Stainless-OS': null, 'X-Stainless-Arch': null, 'X-Stainless-Runtime': null, 'X-Stainless-Runtime-Version': null };

/**
 * The most of a reply read, in bytes: a stream frames each token in some 250 bytes of JSON, so this is
 * room for a reply of MAX_REPLY_CHARACTERS sent a few characters a piece, and for a thinking model's
 * reasoning, and far more than any draft.
 */
export const MAX_REPLY_BYTES = MAX_REPLY_CHARACTERS * 128;

/** The longest line of a reply: a whole reply's JSON, or one streamed piece, of MAX_REPLY_CHARACTERS escaped at up to 6 bytes each. */
export const MAX_REPLY_LINE_BYTES = MAX_REPLY_CHARACTERS * 8;

/** A streamed reply, sent in time piece by piece, still ends after this many timeouts in all. */
export const STREAMED_REPLY_TIMEOUTS = 5;

export class OpenAiLlm implements Llm {
  private readonly client: OpenAI;

  /** Throws `LlmError('not-configured')` when no endpoint or model is set: nothing is ever sent then. */
  constructor(private readonly settings: LlmSettings) {
    const baseUrl = settings.baseUrl.trim();
    if (!baseUrl || !settings.model.trim()) {
      throw new LlmError(
        'not-configured',
        'No language model is configured: set the endpoint (e.g. http://localhost:11434/v1 for Ollama, https://api.openai.com/v1 for OpenAI) and the model name.',
      );
    }
    if (!/^https?:\/\/[^/]/i.test(baseUrl)) {
      throw new LlmError('not-configured', `The language model endpoint must be an http:// or https:// URL, not "${baseUrl}".`);
    }
    // Loaded when a model is first configured: the editor starts sooner without the client.
    const { default: Client } = require('openai') as typeof import('openai');
    this.client = new Client({
      baseURL: baseUrl,
      apiKey: settings.apiKey || PLACEHOLDER_KEY,
      // Each of these otherwise falls back to an OPENAI_* environment variable meant for OpenAI itself.
      adminAPIKey: null,
      organization: null,
      project: null,
      webhookSecret: null,
      timeout: settings.timeoutMs,
      maxRetries: settings.maxRetries ?? 2,
      defaultHeaders: PLATFORM_HEADERS,
      // At 'debug' (OPENAI_LOG) the client prints request bodies: the manuscript's text.
      logLevel: 'off',
    });
  }

  async complete(messages: readonly ChatMessage[], options: CompleteOptions = {}): Promise<string> {
    const { signal, onToken } = options;
    signal?.throwIfAborted();
    const control = new RequestControl(this.settings.timeoutMs, signal);
    const withinMs = onToken ? this.settings.timeoutMs * STREAMED_REPLY_TIMEOUTS : this.settings.timeoutMs;
    const client = this.client.withOptions({ fetch: boundedFetch({ maxBytes: MAX_REPLY_BYTES, maxLineBytes: MAX_REPLY_LINE_BYTES, withinMs }) });
    try {
      const text = onToken ? await this.streamed(client, messages, control, onToken) : await this.whole(client, messages, control);
      if (!text.trim()) throw new LlmError('empty', 'The model sent an empty reply.');
      return text;
    } catch (error) {
      signal?.throwIfAborted();
      if (error instanceof LlmError) throw error;
      if (error instanceof ReplyOverLimit) throw describeOverLimit(error, { ...this.settings, streamed: onToken !== undefined, withinMs });
      throw describeFailure(error, this.settings);
    } finally {
      control.dispose();
    }
  }

  private body(messages: readonly ChatMessage[]): { model: string; messages: ChatMessage[]; temperature: number; max_tokens: number } {
    // `max_tokens`, not `max_completion_tokens`: every OpenAI-compatible server reads the former.
    return { model: this.settings.model, messages: [...messages], temperature: this.settings.temperature, max_tokens: this.settings.maxTokens };
  }

  private async whole(client: OpenAI, messages: readonly ChatMessage[], control: RequestControl): Promise<string> {
    const completion: unknown = await unlessAborted(client.chat.completions.create({ ...this.body(messages), stream: false }, { signal: control.signal }), control.user);
    const choice = firstChoice(completion);
    if (!choice) throw new LlmError('malformed', 'The endpoint answered, but not with a chat completion: is the base URL an OpenAI-compatible API?');
    this.checkFinish(choice.finish_reason);
    return typeof choice.message?.content === 'string' ? choice.message.content : '';
  }

  private async streamed(client: OpenAI, messages: readonly ChatMessage[], control: RequestControl, onToken: (piece: string) => void): Promise<string> {
    const stream = await unlessAborted(client.chat.completions.create({ ...this.body(messages), stream: true }, { signal: control.signal }), control.user);
    let text = '';
    let finish: string | null | undefined;
    control.heard();
    for await (const chunk of stream) {
      // Servers may end with a chunk that carries usage and no choices.
      const choice = chunk.choices?.[0];
      const piece = choice?.delta?.content;
      if (piece) {
        text += piece;
        onToken(piece);
      }
      if (choice?.finish_reason) finish = choice.finish_reason;
      // Only progress counts: a server that sends empty pieces or tool calls forever has gone quiet.
      if (piece || reasoning(choice?.delta) || choice?.finish_reason) control.heard();
    }
    // The client ends the stream quietly when it is aborted, so why it ended has to be looked up here.
    control.user?.throwIfAborted();
    if (!finish && control.quiet) {
      throw new LlmError('timeout', `The reply was cut off: the endpoint sent no text for ${seconds(this.settings.timeoutMs)} in the middle of it.`);
    }
    if (!finish) throw new LlmError('cut-off', 'The reply was cut off: the endpoint closed the stream before the reply was finished.');
    this.checkFinish(finish);
    return text;
  }

  private checkFinish(reason: string | null | undefined): void {
    if (reason === 'length') {
      throw new LlmError('cut-off', `The reply was cut off at the token limit (${this.settings.maxTokens} tokens): raise the limit, or select less text.`);
    }
    if (reason === 'content_filter') throw new LlmError('rejected', 'The endpoint withheld the reply (its content filter).');
  }
}

/** A thinking model's reasoning, which some servers stream apart from the reply (`reasoning_content`, `reasoning`). */
function reasoning(delta: object | undefined): boolean {
  if (!delta) return false;
  const fields = delta as { reasoning_content?: unknown; reasoning?: unknown };
  return (typeof fields.reasoning_content === 'string' && fields.reasoning_content !== '') || (typeof fields.reasoning === 'string' && fields.reasoning !== '');
}

interface Choice {
  readonly finish_reason?: string | null;
  readonly message?: { readonly content?: unknown };
}

/** The reply's first choice, read defensively: a server that is not the API may answer anything. */
function firstChoice(completion: unknown): Choice | undefined {
  if (typeof completion !== 'object' || completion === null || !('choices' in completion)) return undefined;
  const { choices } = completion;
  return Array.isArray(choices) && typeof choices[0] === 'object' && choices[0] !== null ? (choices[0] as Choice) : undefined;
}

/**
 * One signal for the client that aborts when the user cancels or when a streamed reply sends no text
 * for too long: the client's own timeout stops counting once the response headers have arrived.
 */
class RequestControl {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  quiet = false;

  constructor(
    private readonly quietMs: number,
    readonly user: AbortSignal | undefined,
  ) {
    user?.addEventListener('abort', this.abort);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Text arrived: the quiet period starts again. */
  heard(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.quiet = true;
      this.controller.abort();
    }, this.quietMs);
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.user?.removeEventListener('abort', this.abort);
  }

  private readonly abort = (): void => this.controller.abort();
}

/**
 * The client sleeps between retries without watching the signal (and a Retry-After can ask for
 * minutes), so a cancel settles the call at once rather than when the client next looks.
 */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
