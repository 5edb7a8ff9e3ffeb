import type { FolderOptions } from './folder';
import type { SessionOptions } from './session';

/** How to load and run a model folder, the same for NLI models and sentence encoders. */
export interface ModelOptions extends FolderOptions, SessionOptions {
  /** Texts or pairs per inference; larger batches are faster per item until the padding costs more. */
  readonly batchSize?: number;
  /**
   * A sentence encoder's: the most tokens of a text it reads, special tokens included, when fewer than
   * it was trained on. A paper's title and abstract cut to 128 tokens embed several times faster, and
   * Find Evidence's reranker reads the whole abstract after; `cutInput` says when the vectors differ.
   */
  readonly inputTokens?: number;
}

export const DEFAULT_BATCH_SIZE = 16;

/**
 * How much of a paper's title and abstract the sentence encoder reads, in tokens (issue 38). The
 * default encoder, all-MiniLM-L6-v2 int8, at 128 embeds 56 abstracts a second on two cores in
 * one-thread workers, 100,000 papers in half an hour; bge-small-en-v1.5 at its full 512, about 9.
 * Find Evidence's final ranking on BEIR SciFact's test claims (hybrid + Attest's reranker, which reads
 * the whole abstract): 0.803 and 0.811 nDCG@10 (bench/embeddingBudget.bench.ts, docs/measurements.md).
 */
export const DEFAULT_INPUT_TOKENS = 128;
/** Fewer would cut most titles; more than any encoder Attest knows reads. */
export const INPUT_TOKENS_RANGE = { least: 16, most: 8192 } as const;

/** Whether `value` is a count of tokens an encoder may be set to read. */
export function isTokenCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= INPUT_TOKENS_RANGE.least && value <= INPUT_TOKENS_RANGE.most;
}

/** A bound on a batch's padded size: its items times the `length` of its longest may not pass `most` (an item longer than that goes alone). */
export interface PaddedBound<T> {
  readonly length: (item: T) => number;
  readonly most: number;
}

/** `items` in order, in runs of at most `size` and, given a bound, within it. */
export function inBatches<T>(items: readonly T[], size: number, bound?: PaddedBound<T>): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be a positive integer, not ${size}`);
  const batches: T[][] = [];
  let batch: T[] = [];
  let longest = 0;
  for (const item of items) {
    const length = bound?.length(item) ?? 0;
    if (batch.length === size || (bound !== undefined && batch.length > 0 && (batch.length + 1) * Math.max(longest, length) > bound.most)) {
      batches.push(batch);
      batch = [];
      longest = 0;
    }
    batch.push(item);
    longest = Math.max(longest, length);
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}
