import type { Clock } from '../../../src/core/sources/gates';

/** A clock whose sleeps end at once, moving its time on: requests per second are counted in its time, never waited for. */
export class VirtualClock implements Clock {
  private time = 0;

  now(): number {
    return this.time;
  }

  async sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    const until = this.time + ms;
    await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    this.time = Math.max(this.time, until);
  }
}
