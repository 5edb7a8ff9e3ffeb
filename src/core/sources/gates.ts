/**
 * The request gates of a run: every request to a service, its lookups and its full texts alike, passes
 * the service's one gate, so two kinds of work never take its allowance twice. Whoever sets up a run
 * (the CLI, the editor's session) makes one `SourceGates` and gives it to every client it makes.
 */

/** What a gate waits by; a test puts a virtual clock here to count requests per second without waiting. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void>;
}

export const realClock: Clock = { now: () => Date.now(), sleep };

export class SourceGates {
  private readonly gates = new Map<string, RequestGate>();

  constructor(private readonly clock: Clock = realClock) {}

  /**
   * The gate of `source` at these limits. Clients of a source read its limits from the same settings
   * (`SourcesConfig`, `MAX_CONCURRENT`), so they meet at one gate; other limits (the settings changed)
   * make another, for the clients made from them.
   */
  gate(source: string, requestsPerSecond: number, maxConcurrent: number): RequestGate {
    const key = `${source} ${requestsPerSecond} ${maxConcurrent}`;
    let gate = this.gates.get(key);
    if (!gate) {
      gate = new RequestGate((1000 / requestsPerSecond) * START_SPACING, maxConcurrent, this.clock);
      this.gates.set(key, gate);
    }
    return gate;
  }
}

/**
 * Requests start this much further apart than the limit allows: they reach the service a few
 * milliseconds early or late, and one counted in the same second as the last is refused with a 429
 * whose pause costs far more than the margin (a quarter of Semantic Scholar's requests, measured).
 */
const START_SPACING = 1.05;

/**
 * Admits requests one source can take: at most `maxConcurrent` at once, starts at least `intervalMs`
 * apart, none while paused after a 429.
 */
export class RequestGate {
  private active = 0;
  private readonly queue: Array<() => void> = [];
  private nextStart = 0;
  private pausedUntil = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly maxConcurrent: number,
    private readonly clock: Clock,
  ) {}

  /** Resolves to the function that lets the next request in. */
  async enter(signal: AbortSignal | undefined): Promise<() => void> {
    await this.takeSlot(signal);
    try {
      await this.awaitTurn(signal);
    } catch (error) {
      this.releaseSlot();
      throw error;
    }
    let left = false;
    return () => {
      if (!left) this.releaseSlot();
      left = true;
    };
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.clock.now() + ms);
    this.nextStart = Math.max(this.nextStart, this.pausedUntil);
  }

  private async takeSlot(signal: AbortSignal | undefined): Promise<void> {
    signal?.throwIfAborted();
    if (this.active < this.maxConcurrent) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.queue.splice(this.queue.indexOf(admit), 1);
        reject(signal?.reason);
      };
      const admit = (): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      this.queue.push(admit);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** The slot passes straight to the next in the queue, so a newcomer cannot overtake it. */
  private releaseSlot(): void {
    const next = this.queue.shift();
    if (next) next();
    else this.active--;
  }

  /**
   * Waits until a request may start, then takes that start. Nothing is reserved while waiting, so a
   * request cancelled in the meantime (its reference already decided by another source) costs the
   * source none of its allowance; a 429 that arrives meanwhile moves the waiters behind the pause.
   */
  private async awaitTurn(signal: AbortSignal | undefined): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      const start = Math.max(now, this.nextStart, this.pausedUntil);
      if (start <= now) {
        this.nextStart = now + this.intervalMs;
        return;
      }
      await this.clock.sleep(start - now, signal);
    }
  }
}

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return signal?.aborted ? Promise.reject(signal.reason) : Promise.resolve();
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
