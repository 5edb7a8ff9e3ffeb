import type { FolderOptions } from './folder';
import type { SessionOptions } from './session';

/** How to load and run a model folder, the same for NLI models and sentence encoders. */
export interface ModelOptions extends FolderOptions, SessionOptions {
  /** Texts or pairs per inference; larger batches are faster per item until the padding costs more. */
  readonly batchSize?: number;
}

export const DEFAULT_BATCH_SIZE = 16;

/** `items` in runs of `size` (the last one shorter). */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be a positive integer, not ${size}`);
  const batches: T[][] = [];
  for (let start = 0; start < items.length; start += size) batches.push(items.slice(start, start + size));
  return batches;
}
