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

export class NliModelOnFirstUse implements NliModel {
  private loading: Promise<NliModel> | undefined;

  /** `judging` is the folder's attest.json, read without the model: a judgement's thresholds and cache key need it before any pair. */
  constructor(
    private readonly open: () => Promise<NliModel>,
    readonly judging: JudgingParameters | undefined,
  ) {}

  /** Starts making the session in the background; its failure is heard by the first judgement. */
  start(): void {
    this.model().catch(() => undefined);
  }

  async classify(pairs: readonly NliPair[], signal?: AbortSignal): Promise<NliScores[]> {
    if (pairs.length === 0) return [];
    return (await this.model()).classify(pairs, signal);
  }

  async dispose(): Promise<void> {
    const loading = this.loading;
    this.loading = undefined;
    await (await loading?.catch(() => undefined))?.dispose();
  }

  private model(): Promise<NliModel> {
    this.loading ??= this.open();
    return this.loading;
  }
}
