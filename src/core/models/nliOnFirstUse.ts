/**
 * An NLI model whose session is made when there is something to judge. Making it (ONNX Runtime's
 * session and the tokenizer) took about 280 ms and 80 MB of every `attest check`, most of which judge
 * nothing: offline, or when no cited work has a text. This module loads neither ONNX Runtime nor the
 * tokenizer; `open` does, at the first pair.
 *
 *   const nli = new NliModelOnFirstUse(() => OnnxNliModel.load(dir), await readJudging(dir));
 *   nli.start();                        // optional: the next step surely judges, so start now
 *   await nli.classify(pairs);          // waits for the session, made once
 */
import type { JudgingParameters } from './judging';
import type { NliModel, NliPair, NliScores } from './nli';
import { OnFirstUse } from './onFirstUse';

export class NliModelOnFirstUse implements NliModel {
  private readonly model: OnFirstUse<NliModel>;

  /** `judging` is the folder's attest.json, read without the model: a judgement's thresholds and cache key need it before any pair. */
  constructor(
    open: () => Promise<NliModel>,
    readonly judging: JudgingParameters | undefined,
  ) {
    this.model = new OnFirstUse(open);
  }

  /** Starts making the session in the background; its failure is heard by the first judgement. */
  start(): void {
    this.model.start();
  }

  async classify(pairs: readonly NliPair[], signal?: AbortSignal): Promise<NliScores[]> {
    if (pairs.length === 0) return [];
    return (await this.model.get()).classify(pairs, signal);
  }

  dispose(): Promise<void> {
    return this.model.dispose();
  }
}
