/**
 * Turns text into the integer inputs of a transformer, the way the model's own tokenizer.json says,
 * with what `@huggingface/tokenizers` leaves out: truncation to the model's length, padding a batch
 * to one length, and segment ids for the models that take them.
 *
 *   const tokenizer = TextTokenizer.fromFolder(folder);
 *   const batch = tokenizer.batch([tokenizer.encodePair(premise, hypothesis), …]);
 */
import type { Tokenizer } from '@huggingface/tokenizers';
import type { ModelFolder } from './folder';
import { ModelError } from './errors';

/**
 * A premise of several sentences (an abstract), judged whole when it fits the model beside the
 * hypothesis; when it does not, the first sentence listed in `priority`, then the others in that order
 * while their tokens fit, kept in their own order. Only the worker holding the tokenizer can count
 * tokens, so the choice is made there.
 */
export interface RankedPremise {
  readonly sentences: readonly string[];
  /** Indexes into `sentences`, most relevant to the hypothesis first; a sentence not listed is left out when they do not all fit. */
  readonly priority: readonly number[];
}

/** The fewest tokens a ranked premise is fitted to, however long the hypothesis: training's floor. */
const LEAST_PREMISE_ROOM = 16;

/** One text or pair, special tokens included, not padded. */
export interface Encoding {
  readonly ids: readonly number[];
  /** 0 for the first segment and its special tokens, 1 for the second, as the tokenizer's template says. */
  readonly typeIds: readonly number[];
}

/** Encodings padded to one length, row after row, as int64 tensors want them. */
export interface TokenBatch {
  readonly size: number;
  readonly length: number;
  readonly inputIds: BigInt64Array;
  readonly attentionMask: BigInt64Array;
  readonly tokenTypeIds: BigInt64Array;
}

export class TextTokenizer {
  private readonly tokenizer: Tokenizer;
  private readonly unknownId: number;

  /**
   * @param tokenizerJson tokenizer.json, parsed
   * @param tokenizerConfig tokenizer_config.json, parsed (`{}` when there is none)
   * @param maxLength the longest encoding, special tokens included
   */
  constructor(
    tokenizerJson: object,
    tokenizerConfig: object,
    readonly maxLength: number,
    private readonly padId: number,
  ) {
    try {
      // Loaded on first use: the editor starts long before anything is tokenized.
      const library = require('@huggingface/tokenizers') as typeof import('@huggingface/tokenizers');
      this.tokenizer = new library.Tokenizer(tokenizerJson, tokenizerConfig);
    } catch (error) {
      throw new ModelError(`tokenizer.json cannot be read: ${(error as Error).message}. Download it again from the model's repository.`);
    }
    // Every token the model's own pipeline yields is in its vocabulary; this only mirrors the
    // library's encode, which maps a stray token to the unknown token.
    this.unknownId = this.tokenizer.model?.unk_token_id ?? padId;
  }

  /** @param maxLength a limit below the model's own, e.g. the length a sentence encoder was trained on */
  static fromFolder(folder: ModelFolder, maxLength = folder.config.maxLength): TextTokenizer {
    try {
      return new TextTokenizer(folder.tokenizer, folder.tokenizerConfig, Math.min(maxLength, folder.config.maxLength), folder.config.padTokenId);
    } catch (error) {
      if (error instanceof ModelError) throw new ModelError(`${folder.dir}: ${error.message}`, `${folder.dir}/tokenizer.json`);
      throw error;
    }
  }

  encode(text: string): Encoding {
    const tokens = this.tokenizer.tokenize(text);
    return this.assemble(tokens.slice(0, Math.max(0, this.maxLength - this.specialTokens(false))), null);
  }

  /**
   * Cuts the longer segment first, as tokenizers' `longest_first` does: the shorter keeps all its
   * tokens up to half the room, the longer gets the rest; on a tie the premise gives more. A ranked
   * premise is first fitted to the room the hypothesis leaves it (`fitSentences`), at least
   * `LEAST_PREMISE_ROOM` tokens, as training fits its premises (`Encoder.pair` in
   * training/attest_training/verifier.py).
   */
  encodePair(premise: string | RankedPremise, hypothesis: string): Encoding {
    const second = this.tokenizer.tokenize(hypothesis);
    const room = Math.max(0, this.maxLength - this.specialTokens(true));
    const first = typeof premise === 'string' ? this.tokenizer.tokenize(premise) : this.fitSentences(premise, Math.max(room - second.length, LEAST_PREMISE_ROOM));
    if (first.length + second.length <= room) return this.assemble(first, second);
    const half = Math.floor(room / 2);
    if (second.length < first.length) {
      const kept = Math.min(second.length, half);
      return this.assemble(first.slice(0, room - kept), second.slice(0, kept));
    }
    const kept = Math.min(first.length, half);
    return this.assemble(first.slice(0, kept), second.slice(0, room - kept));
  }

  /**
   * A ranked premise's tokens: every sentence when they fit in `budget`, else the sentences taken by
   * priority while they fit (one too long is passed over for the next), in their own order. The first
   * by priority is always taken, even when it alone is over the budget (the pair's truncation then cuts
   * it), as training's `select_sentences` takes it: the most relevant sentence is the likeliest evidence.
   */
  private fitSentences(premise: RankedPremise, budget: number): string[] {
    const tokens = premise.sentences.map((sentence) => this.tokenizer.tokenize(sentence));
    if (tokens.reduce((n, t) => n + t.length, 0) <= budget) return tokens.flat();
    const kept = new Set<number>();
    let left = budget;
    for (const index of premise.priority) {
      const length = tokens[index]?.length;
      if (length === undefined || kept.has(index) || (length > left && kept.size > 0)) continue;
      kept.add(index);
      left -= length;
    }
    return tokens.flatMap((t, index) => (kept.has(index) ? t : []));
  }

  /** Pads to the longest encoding; padding gets the model's pad id and attention 0. */
  batch(encodings: readonly Encoding[]): TokenBatch {
    const length = Math.max(0, ...encodings.map((e) => e.ids.length));
    const size = encodings.length;
    const inputIds = new BigInt64Array(size * length).fill(BigInt(this.padId));
    const attentionMask = new BigInt64Array(size * length);
    const tokenTypeIds = new BigInt64Array(size * length);
    encodings.forEach((encoding, row) => {
      const offset = row * length;
      encoding.ids.forEach((id, t) => {
        inputIds[offset + t] = BigInt(id);
        attentionMask[offset + t] = 1n;
        tokenTypeIds[offset + t] = BigInt(encoding.typeIds[t]);
      });
    });
    return { size, length, inputIds, attentionMask, tokenTypeIds };
  }

  private specialTokens(pair: boolean): number {
    return this.assemble([], pair ? [] : null).ids.length;
  }

  /** Adds the special tokens of the tokenizer's template around already-cut segments. */
  private assemble(first: string[], second: string[] | null): Encoding {
    const processor = this.tokenizer.post_processor;
    const processed = processor ? processor.post_process(first, second, true) : { tokens: [...first, ...(second ?? [])] };
    // A ByteLevel step hands the second segment back beside the first rather than joined to it.
    const tokens = [...processed.tokens, ...(processed.tokens_pair ?? [])];
    const ids = tokens.map((token) => this.tokenizer.token_to_id(token) ?? this.unknownId);
    const typeIds = processed.token_type_ids ?? new Array<number>(ids.length).fill(0);
    return { ids, typeIds };
  }
}
