import * as path from 'node:path';
import type { NliModel } from '../core/models/nli';

/** The NLI model the CLI was given (`--nli-model DIR` or `ATTEST_NLI_MODEL`), loaded, with its id for caches and reports. */
export async function loadNliModel(flag: string | undefined, env: NodeJS.ProcessEnv): Promise<{ model: NliModel; id: string } | undefined> {
  const dir = flag ?? (env.ATTEST_NLI_MODEL?.trim() || undefined);
  if (!dir) return undefined;
  const resolved = path.resolve(dir);
  // Loaded here, not with the CLI: ONNX Runtime takes a tenth of a second to load, and only a model needs it.
  const { OnnxNliModel } = await import('../core/models/nli');
  return { model: await OnnxNliModel.load(resolved, { preferQuantized: true }), id: path.basename(resolved) };
}

export const NO_MODEL_MESSAGE =
  "No NLI model: support is judged by relevance alone, which catches a cited abstract that shares none of the sentence's key terms but cannot confirm or refute a claim. " +
  'Give a model folder (a Hugging Face ONNX export such as Xenova/nli-deberta-v3-xsmall) with --nli-model DIR or ATTEST_NLI_MODEL.';
