/**
 * Natural-language inference: does a premise (a sentence of the cited paper) entail the hypothesis
 * (the claim), contradict it, or neither? `OnnxNliModel` runs a cross-encoder exported to ONNX in
 * this thread; `pool.ts` runs the same one in a worker.
 *
 *   const model = await OnnxNliModel.load('/models/nli-deberta-v3-xsmall', { preferQuantized: true });
 *   const [scores] = await model.classify([{ premise, hypothesis }]);   // { entailment: 0.93, … }
 */
import { ModelError } from './errors';
import { readModelFolder } from './folder';
import type { JudgingParameters } from './judging';
import type { ModelOptions } from './options';
import { DEFAULT_BATCH_SIZE, inBatches } from './options';
import { OnnxSession } from './session';
import { TextTokenizer, type RankedPremise } from './tokenizer';

export interface NliPair {
  /** The evidence: a sentence or passage of the cited paper, or its abstract's sentences to fit in. */
  readonly premise: string | RankedPremise;
  /** The claim the manuscript makes. */
  readonly hypothesis: string;
}

/** Probabilities of the three verdicts; they sum to 1. */
export interface NliScores {
  readonly entailment: number;
  readonly contradiction: number;
  readonly neutral: number;
}

export interface NliModel {
  /** How the model is meant to judge, from its attest.json; undefined for other exports. */
  readonly judging?: JudgingParameters;
  /** One result per pair, in order. Rejects with `signal.reason` once `signal` aborts. */
  classify(pairs: readonly NliPair[], signal?: AbortSignal): Promise<NliScores[]>;
  dispose(): Promise<void>;
}

type Verdict = keyof NliScores;
const VERDICTS: readonly Verdict[] = ['entailment', 'contradiction', 'neutral'];

export class OnnxNliModel implements NliModel {
  private readonly output: string;

  private constructor(
    private readonly session: OnnxSession,
    private readonly tokenizer: TextTokenizer,
    private readonly columns: Readonly<Record<Verdict, number>>,
    private readonly labelCount: number,
    private readonly batchSize: number,
    readonly judging: JudgingParameters | undefined,
  ) {
    this.output = session.outputName('logits');
  }

  static async load(dir: string, options: ModelOptions = {}): Promise<OnnxNliModel> {
    const folder = await readModelFolder(dir, options);
    const columns = labelColumns(folder.config.labels, `${dir}/config.json`);
    const tokenizer = TextTokenizer.fromFolder(folder);
    const session = await OnnxSession.open(folder.modelFile, options);
    // A quantized graph scales activations by their range over the whole batch, padding included, so a
    // pair's scores would depend on the pairs beside it (embedder.ts): it judges one pair at a time.
    const batchSize = folder.quantized ? 1 : (options.batchSize ?? DEFAULT_BATCH_SIZE);
    return new OnnxNliModel(session, tokenizer, columns, folder.config.labels.length, batchSize, folder.judging);
  }

  async classify(pairs: readonly NliPair[], signal?: AbortSignal): Promise<NliScores[]> {
    const scores: NliScores[] = [];
    for (const batch of inBatches(pairs, this.batchSize)) {
      signal?.throwIfAborted();
      scores.push(...(await this.classifyBatch(batch)));
    }
    signal?.throwIfAborted();
    return scores;
  }

  private async classifyBatch(pairs: readonly NliPair[]): Promise<NliScores[]> {
    const batch = this.tokenizer.batch(pairs.map((p) => this.tokenizer.encodePair(p.premise, p.hypothesis)));
    const logits = await this.session.run(batch, this.output);
    const width = logits.dims[logits.dims.length - 1];
    if (logits.dims.length !== 2 || width !== this.labelCount) {
      throw new ModelError(
        `${this.session.file} gives ${this.output} of shape [${logits.dims.join(', ')}], but config.json names ${this.labelCount} labels: the export and config.json belong to different models.`,
        this.session.file,
      );
    }
    return pairs.map((_, row) => {
      const probabilities = softmax(logits.data.subarray(row * width, (row + 1) * width));
      return {
        entailment: probabilities[this.columns.entailment],
        contradiction: probabilities[this.columns.contradiction],
        neutral: probabilities[this.columns.neutral],
      };
    });
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}

/** Which output column holds each verdict, found by label name: exports order them differently. */
function labelColumns(labels: readonly string[], file: string): Record<Verdict, number> {
  const columns: Partial<Record<Verdict, number>> = {};
  labels.forEach((label, index) => {
    const verdict = VERDICTS.find((v) => v === label.trim().toLowerCase());
    if (verdict !== undefined) columns[verdict] = index;
  });
  const absent = VERDICTS.filter((v) => columns[v] === undefined);
  if (absent.length > 0) {
    const named = labels.length > 0 ? `it names ${labels.join(', ')}` : 'it has no id2label';
    throw new ModelError(`${file} should label the outputs entailment, contradiction and neutral; ${named}. Use an NLI model (e.g. Xenova/nli-deberta-v3-xsmall).`, file);
  }
  return columns as Record<Verdict, number>;
}

function softmax(logits: Float32Array): number[] {
  const max = Math.max(...logits);
  const exps = Array.from(logits, (x) => Math.exp(x - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}
