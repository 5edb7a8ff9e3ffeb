/**
 * The `fetch` the language model client is given: each response's body, error bodies included, ends
 * with a `ReplyOverLimit` once it grows past a size, holds a line past a size, or is still arriving
 * past a deadline. The client's own timeout stops counting once the headers have arrived, and it
 * reads a whole reply (or a streamed reply's line) into memory before looking at it, so a server that
 * drips a reply, or sends gigabytes of one, would otherwise hold the request forever.
 *
 *   const client = new OpenAI({ …, fetch: boundedFetch({ maxBytes: 8e6, maxLineBytes: 5e5, withinMs: 120_000 }) });
 */

export interface ReplyBounds {
  readonly maxBytes: number;
  /**
   * A line is a streamed reply's piece (an SSE `data:` line) or a whole reply's JSON: counting these
   * stops a huge one at once, where the client would parse it ever more slowly as it grew.
   */
  readonly maxLineBytes: number;
  /** From the request being sent to the body's last byte. */
  readonly withinMs: number;
}

/** A reply stopped for being too large ('size') or too slow ('time'). */
export class ReplyOverLimit extends Error {
  override readonly name = 'ReplyOverLimit';

  /** `bytes` is the limit that was passed, when it is the size. */
  constructor(
    readonly limit: 'size' | 'time',
    readonly bytes = 0,
  ) {
    super(limit === 'size' ? 'the reply was larger than Attest reads' : 'the reply took longer than Attest waits');
  }
}

export function boundedFetch(bounds: ReplyBounds): typeof fetch {
  return async (input, init) => {
    const sent = Date.now();
    const response = await fetch(input, init);
    if (!response.body) return response;
    const body = bounded(response.body, bounds, bounds.withinMs - (Date.now() - sent), init?.signal ?? undefined);
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

const NEWLINE = 0x0a;

function bounded(body: ReadableStream<Uint8Array>, { maxBytes, maxLineBytes }: ReplyBounds, ms: number, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  let received = 0;
  let line = 0;
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => clearTimeout(timer);
  signal?.addEventListener('abort', stop, { once: true });
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        timer = setTimeout(() => controller.error(new ReplyOverLimit('time')), Math.max(0, ms));
        // A reply abandoned by its reader must not keep the process alive until the deadline.
        timer.unref();
      },
      transform(chunk, controller) {
        received += chunk.byteLength;
        const lines = measureLines(chunk, line);
        line = lines.open;
        if (received <= maxBytes && lines.longest <= maxLineBytes) return controller.enqueue(chunk);
        stop();
        controller.error(new ReplyOverLimit('size', received > maxBytes ? maxBytes : maxLineBytes));
      },
      flush: stop,
    }),
  );
}

/** The longest line in `chunk`, counting `open` bytes of a line begun before it, and the bytes of the line left open at its end. */
function measureLines(chunk: Uint8Array, open: number): { longest: number; open: number } {
  let longest = 0;
  let start = 0;
  for (let end = chunk.indexOf(NEWLINE); end >= 0; end = chunk.indexOf(NEWLINE, start)) {
    longest = Math.max(longest, open + end - start);
    open = 0;
    start = end + 1;
  }
  open += chunk.byteLength - start;
  return { longest: Math.max(longest, open), open };
}
