/** Small helpers for benchmark figures. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function time<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

export function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

/** Tracks the largest resident set size seen while a benchmark runs. */
export class PeakMemory {
  private peak = process.memoryUsage().rss;
  private readonly timer = setInterval(() => this.sample(), 5);

  sample(): void {
    this.peak = Math.max(this.peak, process.memoryUsage().rss);
  }

  stop(): string {
    clearInterval(this.timer);
    this.sample();
    return `${(this.peak / 1024 / 1024).toFixed(0)} MB`;
  }
}

/** mulberry32: a tiny generator whose sequence depends only on the seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
