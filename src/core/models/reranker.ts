/**
 * A cross-encoder that scores how relevant each paper is to a claim, so that the top of Find
 * Evidence's ranking can be reordered by it (trained by `training/attest_training/rerank.py`).
 *
 *   const reranker = await OnnxReranker.load('/models/attest-rerank');
 *   const scores = await reranker.score(claim, passages);   // one per passage: higher, more relevant
 *
 * Its folder is a Hugging Face-style export whose graph gives one logit per pair, and `rerank.json`:
 * how many of a ranking's first papers it reorders (`depth`) and the weight of its standardised score
 * against the ranking's (`weight`), both chosen where it was trained.
 */
import * as path from 'node:path';
import { ModelError } from './errors';
import { readJsonObject, readModelFolder } from './folder';
import type { ModelOptions } from './options';
import { OnnxSession } from './session';
import { TextTokenizer } from './tokenizer';

export interface Reranker {
  /** How many of a ranking's first papers it reorders. */
  readonly depth: number;
  /** The weight of its standardised score against the ranking's, from 0 (the ranking alone) to 1. */
  readonly weight: number;
  /** One score per passage, in order. Rejects with `signal.reason` once `signal` aborts. */
  score(claim: string, passages: readonly string[], signal?: AbortSignal): Promise<number[]>;
  dispose(): Promise<void>;
}

const SETTINGS = 'rerank.json';
const DEEPEST = 1000;

export class OnnxReranker implements Reranker {
  private readonly output: string;

  private constructor(
    private readonly session: OnnxSession,
    private readonly tokenizer: TextTokenizer,
    readonly depth: number,
    readonly weight: number,
  ) {
    this.output = session.outputName('logits');
  }

  static async load(dir: string, options: ModelOptions = {}): Promise<OnnxReranker> {
    const folder = await readModelFolder(dir, { preferQuantized: true, ...options });
    const { depth, weight } = readSettings((await readJsonObject(dir, SETTINGS)) ?? {}, path.join(dir, SETTINGS));
    const tokenizer = TextTokenizer.fromFolder(folder);
    const session = await OnnxSession.open(folder.modelFile, options);
    return new OnnxReranker(session, tokenizer, depth, weight);
  }

  async score(claim: string, passages: readonly string[], signal?: AbortSignal): Promise<number[]> {
    const scores: number[] = [];
    // One pair at a time: a quantized graph scales activations by their range over the batch (embedder.ts).
    for (const passage of passages) {
      signal?.throwIfAborted();
      const logits = await this.session.run(this.tokenizer.batch([this.tokenizer.encodePair(claim, passage)]), this.output);
      if (logits.data.length !== 1) {
        throw new ModelError(`${this.session.file} gives ${this.output} of shape [${logits.dims.join(', ')}]; a reranker gives one score per pair.`, this.session.file);
      }
      scores.push(logits.data[0]);
    }
    signal?.throwIfAborted();
    return scores;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/**
 * The reranker in `dir`, loaded at the first `get()` and kept until `dispose()`; a load that failed is
 * tried again at the next `get()`. Once disposed it gives none, and loads nothing.
 */
export class RerankerOnFirstUse {
  private loading: Promise<OnnxReranker> | undefined;
  private disposed = false;

  constructor(
    readonly dir: string,
    readonly threads?: number,
    readonly optimizedCopies?: string,
  ) {}

  async get(): Promise<Reranker | undefined> {
    if (this.disposed) return undefined;
    if (this.loading === undefined) {
      const loading = OnnxReranker.load(this.dir, { threads: this.threads, optimizedCopies: this.optimizedCopies });
      loading.catch(() => {
        if (this.loading === loading) this.loading = undefined;
      });
      this.loading = loading;
    }
    return this.loading;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    const loading = this.loading;
    this.loading = undefined;
    await (await loading?.catch(() => undefined))?.dispose();
  }
}

/** rerank.json's object, checked; throws a `ModelError` naming the value at fault. */
function readSettings(json: object, file: string): { depth: number; weight: number } {
  const { depth, weight } = json as Record<string, unknown>;
  if (typeof depth !== 'number' || !Number.isInteger(depth) || depth < 2 || depth > DEEPEST) {
    throw new ModelError(`${file}: "depth" should be a whole number from 2 to ${DEEPEST}, not ${JSON.stringify(depth) ?? 'missing'}. A reranker's folder names how many papers it reorders.`, file);
  }
  if (typeof weight !== 'number' || !(weight >= 0 && weight <= 1)) {
    throw new ModelError(`${file}: "weight" should be a number from 0 to 1, not ${JSON.stringify(weight) ?? 'missing'}.`, file);
  }
  return { depth, weight };
}
