import * as path from 'node:path';
import { builtInIdentity, builtInNliFolder } from '../core/models/builtIn';
import type { NliModel } from '../core/models/nli';

/** A loaded NLI model: `id` keys the judgement cache, `name` says in reports which model judged. */
export interface LoadedNli {
  readonly model: NliModel;
  readonly id: string;
  readonly name: string;
}

/** What `--nli-model` or ATTEST_NLI_MODEL says to judge by relevance alone. */
export const NO_MODEL = 'none';

/**
 * The NLI model the CLI judges with: the folder `--nli-model DIR` or ATTEST_NLI_MODEL names, else the
 * one built into Attest; none for `none`, or when neither is set and this copy has no built-in model.
 */
export async function loadNliModel(flag: string | undefined, env: NodeJS.ProcessEnv, builtIn = builtInNliFolder): Promise<LoadedNli | undefined> {
  const named = flag ?? (env.ATTEST_NLI_MODEL?.trim() || undefined);
  if (named === NO_MODEL) return undefined;
  // Loaded here, not with the CLI: ONNX Runtime takes a tenth of a second to load, and only a model needs it.
  const { OnnxNliModel } = await import('../core/models/nli');
  if (named === undefined) {
    const dir = await builtIn();
    if (dir === undefined) return undefined;
    return { model: await OnnxNliModel.load(dir, { preferQuantized: true }), ...(await builtInIdentity(dir)) };
  }
  const resolved = path.resolve(named);
  return { model: await OnnxNliModel.load(resolved, { preferQuantized: true }), id: path.basename(resolved), name: path.basename(resolved) };
}

export const NO_MODEL_MESSAGE =
  "No NLI model (none was asked for, or this copy of Attest lacks its built-in one, models/attest-nli): support is judged by relevance alone, which catches a cited abstract that shares none of the sentence's key terms but cannot confirm or refute a claim. " +
  'Give a model folder (a Hugging Face ONNX export such as Xenova/nli-deberta-v3-xsmall) with --nli-model DIR or ATTEST_NLI_MODEL.';
