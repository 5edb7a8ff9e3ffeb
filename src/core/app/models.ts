/**
 * The models part of the services: the NLI model, the sentence encoder and the reranker, each made
 * from its folder (`localModel.ts`) in a worker thread (the editor, whose thread must stay free) or in
 * this one (the CLI, which waits for them anyway). A module of its own rather than a part of
 * `services.ts`, so that a command that runs a model never loads the sources. Nothing here loads ONNX
 * Runtime until a model is made: its modules are imported then. Below, what the adapters use of the
 * models besides, re-exported.
 */
import { builtInNliFolder, builtInRerankerFolder } from '../models/builtIn';
import type { Embedder } from '../models/embedder';
import { cutInput } from '../models/encoderConfig';
import { readFolderJudging } from '../models/folder';
import type { NliModel } from '../models/nli';
import { NliModelOnFirstUse } from '../models/nliOnFirstUse';
import type { ModelOptions } from '../models/options';
import { LanesEmbedder, WorkerNliModel } from '../models/pool';
import type { Reranker } from '../models/reranker';
import type { RerankerSetup } from '../index/libraryProtocol';
import { builtInCopies, LocalModel, type ModelKind, type ModelsHost } from './localModel';
import type { Settings } from './settings';

/** Makes the model in a folder. */
export type ModelOpener<T> = (dir: string, options: ModelOptions) => Promise<T>;

export const openNliInWorker: ModelOpener<NliModel> = (dir, options) => WorkerNliModel.start(dir, options);
export const openNliHere: ModelOpener<NliModel> = async (dir, options) => (await import('../models/nli')).OnnxNliModel.load(dir, options);
/**
 * The encoder as `options.threads` one-thread workers side by side (`LanesEmbedder`): on two quiet cores
 * they embed a third more than one worker on as many threads, whose threads wait for each other at
 * every operator, and on busy cores twice as much.
 */
export const openEncoderInWorkers: ModelOpener<Embedder> = (dir, options) => LanesEmbedder.start(dir, options.threads ?? 1, options);
export const openRerankerHere: ModelOpener<Reranker> = async (dir, options) => (await import('../models/reranker')).OnnxReranker.load(dir, options);

/**
 * The NLI cross-encoder that judges whether a cited abstract supports its sentence, the built-in one
 * when none is set. `open` makes its session at the first pair to judge: a manuscript whose cited works
 * have no text costs none. Its attest.json is read at once: a judgement's thresholds and cache key need it.
 */
export function nliKind(open: ModelOpener<NliModel>, builtIn: () => Promise<string | undefined> = builtInNliFolder): ModelKind<NliModelOnFirstUse> {
  return {
    section: 'attest.nli',
    builtIn,
    start: async (dir, options, failed) =>
      new NliModelOnFirstUse(
        () =>
          open(dir, options).catch((error: unknown) => {
            failed(error);
            throw error;
          }),
        await readFolderJudging(dir),
      ),
  };
}

/**
 * The sentence encoder that adds meaning to Find Evidence's word matching; none ships with Attest. An
 * input cut below the encoder's own length names it, `all-MiniLM-L6-v2 (128 tokens)`, and keys its vectors.
 */
export function encoderKind<E extends Embedder>(open: ModelOpener<E>): ModelKind<E> {
  return {
    section: 'attest.retrieval.encoder',
    start: (dir, options) => open(dir, options),
    variant: async (dir, { inputTokens }) => {
      const tokens = await cutInput(dir, inputTokens);
      return tokens === undefined ? undefined : `${tokens} tokens`;
    },
  };
}

/** An encoder's name (`modelName`) as its model's and the tokens it reads when cut below its own length (the variant above). */
export function encoderInput(name: string): { readonly model: string; readonly tokens?: string } {
  const cut = / \((\d+) tokens\)$/.exec(name);
  return cut === null ? { model: name } : { model: name.slice(0, cut.index), tokens: cut[1] };
}

/** A host's models, one of each for the process, run in worker threads. */
export interface Models {
  readonly nli: LocalModel<NliModel>;
  readonly encoder: LocalModel<Embedder>;
  /** The built-in reranker unless the setting turns it off (or this package has none), on the retrieval models' threads, for the library's thread to load at its first ranking. */
  readonly reranker: (settings: Settings) => Promise<RerankerSetup | undefined>;
}

/** The models of a host whose thread must stay free (the editor), as `settings` set them at each load. */
export function createModels(host: ModelsHost, settings: () => Settings): Models {
  return {
    nli: new LocalModel(nliKind(openNliInWorker), host, () => settings().nli),
    encoder: new LocalModel(encoderKind(openEncoderInWorkers), host, () => settings().encoder),
    reranker: async ({ retrieval, encoder }) => {
      const dir = retrieval.rerank ? await builtInRerankerFolder() : undefined;
      if (dir === undefined) return undefined;
      const copies = await builtInCopies(host, dir);
      return { dir, threads: encoder.threads, ...(copies !== undefined && { optimizedCopies: copies }) };
    },
  };
}

export { type Loaded, LocalModel, type ModelDownloads, type ModelRequest, type ModelSection, type ModelsHost } from './localModel';
export { builtInRerankerFolder } from '../models/builtIn';
export type { DownloadProgress } from '../models/download';
export type { Embedder } from '../models/embedder';
export { ModelError } from '../models/errors';
export { modelName, sameModel } from '../models/identity';
export type { NliModel } from '../models/nli';
export type { NliModelOnFirstUse } from '../models/nliOnFirstUse';
export { OnFirstUse } from '../models/onFirstUse';
export { DEFAULT_INPUT_TOKENS, INPUT_TOKENS_RANGE, isTokenCount, type ModelOptions } from '../models/options';
export { StartingEmbedder } from '../models/pool';
export type { Reranker } from '../models/reranker';
