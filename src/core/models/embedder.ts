/**
 * Sentence embeddings for the dense side of retrieval: unit-length vectors whose dot product is the
 * texts' cosine similarity. `OnnxEmbedder` runs an ONNX sentence encoder (bge-small-en-v1.5,
 * all-MiniLM-L6-v2, …) in this thread; `pool.ts` runs the same one in a worker.
 *
 *   const encoder = await OnnxEmbedder.load('/models/bge-small-en-v1.5');
 *   const [q] = await encoder.embed(['does aspirin prevent stroke?'], 'query');
 */
import { ModelError } from './errors';
import type { EncoderConfig } from './encoderConfig';
import { readEncoderConfig } from './encoderConfig';
import { readModelFolder } from './folder';
import type { ModelOptions } from './options';
import { DEFAULT_BATCH_SIZE, inBatches } from './options';
import type { OutputTensor } from './session';
import { OnnxSession } from './session';
import type { TokenBatch } from './tokenizer';
import { TextTokenizer } from './tokenizer';

/** Queries and passages are embedded differently by some encoders (e5 prefixes both). */
export type TextKind = 'query' | 'passage';

/**
 * The most tokens one batch may hold, padding included (a longer text goes alone). Attention's memory
 * grows with the batch times the square of its length: batches of 16 took `attest index add` with
 * bge-small-en-v1.5 fp32 to a peak of 1.2 GB over 600 of SciFact's abstracts, in 114 s; at 512 tokens
 * a batch, 370 MB in 101 s (1,024: 468 MB, 99 s).
 */
export const BATCH_TOKENS = 512;

export interface Embedder {
  /** One vector per text, in order. Rejects with `signal.reason` once `signal` aborts. */
  embed(texts: readonly string[], kind: TextKind, signal?: AbortSignal): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}

export class OnnxEmbedder implements Embedder {
  private readonly output: string;

  private constructor(
    private readonly session: OnnxSession,
    private readonly tokenizer: TextTokenizer,
    private readonly config: EncoderConfig,
    private readonly batchSize: number,
  ) {
    this.output = session.outputName('last_hidden_state');
  }

  static async load(dir: string, options: ModelOptions = {}): Promise<OnnxEmbedder> {
    const folder = await readModelFolder(dir, options);
    const config = await readEncoderConfig(folder);
    const tokenizer = TextTokenizer.fromFolder(folder, Math.min(config.maxLength ?? Infinity, options.inputTokens ?? Infinity));
    const session = await OnnxSession.open(folder.modelFile, options);
    // A quantized export scales each activation by its range over the whole batch, padding included,
    // so batched with others a text's vector moved by up to 0.016 a dimension (bge-small-en-v1.5's
    // int8 graph): one text at a time, each gets the vector it has alone, wherever it is embedded.
    const batchSize = folder.quantized ? 1 : (options.batchSize ?? DEFAULT_BATCH_SIZE);
    return new OnnxEmbedder(session, tokenizer, config, batchSize);
  }

  /**
   * Texts are batched by token count, not in the order given: a batch is padded to its longest text,
   * so mixing a title with a 500-token abstract would run the title at 500 tokens.
   */
  async embed(texts: readonly string[], kind: TextKind, signal?: AbortSignal): Promise<Float32Array[]> {
    const prefix = kind === 'query' ? this.config.queryPrefix : this.config.passagePrefix;
    const encodings = texts.map((text) => this.tokenizer.encode(prefix + text));
    const order = encodings.map((_, at) => at).sort((a, b) => encodings[a].ids.length - encodings[b].ids.length || a - b);
    const vectors = new Array<Float32Array>(texts.length);
    for (const batch of inBatches(order, this.batchSize, { length: (at) => encodings[at].ids.length, most: BATCH_TOKENS })) {
      signal?.throwIfAborted();
      const tokens = this.tokenizer.batch(batch.map((at) => encodings[at]));
      const states = await this.session.run(tokens, this.output);
      if (states.dims.length !== 3) {
        throw new ModelError(`${this.session.file} gives ${this.output} of shape [${states.dims.join(', ')}]; a sentence encoder gives [batch, tokens, dimensions].`, this.session.file);
      }
      batch.forEach((at, row) => (vectors[at] = normalize(pool(states, tokens, row, this.config.pooling))));
    }
    signal?.throwIfAborted();
    return vectors;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/** One text's vector from its tokens' states; padding never counts. */
function pool(states: OutputTensor, tokens: TokenBatch, row: number, pooling: EncoderConfig['pooling']): Float32Array {
  const [, length, dimension] = states.dims;
  const at = (t: number) => states.data.subarray((row * length + t) * dimension, (row * length + t + 1) * dimension);
  if (pooling === 'cls') return Float32Array.from(at(0));
  const sum = new Float32Array(dimension);
  let count = 0;
  for (let t = 0; t < length; t++) {
    if (tokens.attentionMask[row * length + t] === 0n) continue;
    const state = at(t);
    for (let d = 0; d < dimension; d++) sum[d] += state[d];
    count++;
  }
  return sum.map((x) => x / Math.max(count, 1));
}

function normalize(vector: Float32Array): Float32Array {
  const norm = Math.hypot(...vector);
  return norm === 0 ? vector : vector.map((x) => x / norm);
}
