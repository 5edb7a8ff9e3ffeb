import type { FolderOptions } from './folder';
import type { SessionOptions } from './session';

/** How to load and run a model folder, the same for NLI models and sentence encoders. */
export interface ModelOptions extends FolderOptions, SessionOptions {
  /** Texts or pairs per inference; larger batches are faster per item until the padding costs more. */
  readonly batchSize?: number;
}

export const DEFAULT_BATCH_SIZE = 16;

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
