import * as path from 'node:path';
import { builtInIdentity, builtInNliFolder, contentDigest, type ModelOptions, NliModelOnFirstUse, readFolderJudging, withContent } from '../core/app/models';
import type { NliModel } from '../core/app/onnx';

/** The NLI model chosen: `id` keys the judgement cache, `name` says in reports which model judged. */
export interface ChosenNli {
  /** Made into a session at its first judgement: a check with nothing to judge never makes one. */
  readonly model: NliModelOnFirstUse;
  readonly id: string;
  readonly name: string;
}

/** Makes the session of the model in a folder; the CLI's is ONNX Runtime in this thread. */
export type NliOpener = (dir: string, options: ModelOptions) => Promise<NliModel>;

/** What `--nli-model` or ATTEST_NLI_MODEL says to judge by relevance alone. */
export const NO_MODEL = 'none';

const OPTIONS: ModelOptions = { preferQuantized: true };

/**
 * The NLI model the CLI judges with: the folder `--nli-model DIR` or ATTEST_NLI_MODEL names, else the
 * one built into Attest; none for `none`, or when neither is set and this copy has no built-in model.
 * The folder is checked and its content identified now (a few milliseconds); the session is made at
 * the first pair to judge. Its id is the content's, so another model in a folder of the same name
 * never reuses this one's cached judgements.
 */
export async function chooseNliModel(flag: string | undefined, env: NodeJS.ProcessEnv, builtIn = builtInNliFolder, open: NliOpener = openOnnx): Promise<ChosenNli | undefined> {
  const named = flag ?? (env.ATTEST_NLI_MODEL?.trim() || undefined);
  if (named === NO_MODEL) return undefined;
  const dir = named === undefined ? await builtIn() : path.resolve(named);
  if (dir === undefined) return undefined;
  const [identity, judging] = await Promise.all([
    named === undefined ? builtInIdentity(dir) : contentDigest(dir, OPTIONS).then((digest) => ({ id: withContent(path.basename(dir), digest), name: path.basename(dir) })),
    readFolderJudging(dir),
  ]);
  return { model: new NliModelOnFirstUse(() => open(dir, OPTIONS), judging), ...identity };
}

async function openOnnx(dir: string, options: ModelOptions): Promise<NliModel> {
  // Loaded here, not with the CLI: ONNX Runtime takes a tenth of a second to load, and only a model needs it.
  const { OnnxNliModel } = await import('../core/app/onnx');
  return OnnxNliModel.load(dir, options);
}

export const NO_MODEL_MESSAGE =
  "No NLI model (none was asked for, or this copy of Attest lacks its built-in one, models/attest-nli): support is judged by relevance alone, which catches a cited abstract that shares none of the sentence's key terms but cannot confirm or refute a claim. " +
  'Give a model folder (a Hugging Face ONNX export such as Xenova/nli-deberta-v3-xsmall) with --nli-model DIR or ATTEST_NLI_MODEL.';
