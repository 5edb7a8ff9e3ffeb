import * as path from 'node:path';
import { type Loaded, LocalModel, type ModelOpener, type ModelsHost, type NliModel, type NliModelOnFirstUse, nliKind, openNliHere } from '../core/app/models';

/** The NLI model chosen: `id` keys the judgement cache, `name` says in reports which model judged; made into a session at its first judgement, so a check with nothing to judge never makes one. */
export type ChosenNli = Loaded<NliModelOnFirstUse>;

/** What `--nli-model` or ATTEST_NLI_MODEL says to judge by relevance alone. */
export const NO_MODEL = 'none';

/**
 * The terminal as the models' host: a model is the folder its flag names, relative to the working
 * directory, named by the folder's name; nothing is downloaded, and a model that cannot be used is the
 * command's error.
 */
export const TERMINAL_MODELS: ModelsHost = { base: () => process.cwd(), folderName: (dir) => path.basename(dir) };

/**
 * The NLI model the CLI judges with: the folder `--nli-model DIR` or ATTEST_NLI_MODEL names, else the
 * one built into Attest; none for `none`. Its session runs in this thread, made at the first pair to
 * judge and shared by every check of the command.
 */
export function nliModelOf(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  builtIn?: () => Promise<string | undefined>,
  open: ModelOpener<NliModel> = openNliHere,
): LocalModel<NliModelOnFirstUse> | undefined {
  const named = flag ?? (env.ATTEST_NLI_MODEL?.trim() || undefined);
  if (named === NO_MODEL) return undefined;
  // The quantized graph, as the editor's default: the same verdicts as there, at a quarter of the size.
  return new LocalModel(nliKind(open, builtIn), TERMINAL_MODELS, () => ({ model: named === undefined ? '' : path.resolve(named), preferQuantized: true }));
}

/**
 * The chosen model, loaded: none for `none`, or when neither is set and this copy has no built-in model.
 * The folder is checked and its content identified now (a few milliseconds); the session is made at
 * the first pair to judge. Its id is the content's, so another model in a folder of the same name
 * never reuses this one's cached judgements.
 */
export async function chooseNliModel(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  builtIn?: () => Promise<string | undefined>,
  open?: ModelOpener<NliModel>,
): Promise<ChosenNli | undefined> {
  return nliModelOf(flag, env, builtIn, open)?.get();
}

export const NO_MODEL_MESSAGE =
  "No NLI model (none was asked for, or this copy of Attest lacks its built-in one, models/attest-nli): support is judged by relevance alone, which catches a cited abstract that shares none of the sentence's key terms but cannot confirm or refute a claim. " +
  'Give a model folder (a Hugging Face ONNX export such as Xenova/nli-deberta-v3-xsmall) with --nli-model DIR or ATTEST_NLI_MODEL.';
