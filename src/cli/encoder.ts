/**
 * The sentence encoder and the reranker the CLI's commands are given, and which errors are the file system's.
 * Nothing here loads the library or ONNX Runtime: a search starts its encoder before loading either.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import type { Encoder } from '../core/app/library';
import {
  builtInRerankerFolder,
  DEFAULT_INPUT_TOKENS,
  encoderInput,
  INPUT_TOKENS_RANGE,
  isTokenCount,
  encoderKind,
  LocalModel,
  ModelError,
  modelName,
  type ModelOpener,
  type ModelOptions,
  OnFirstUse,
  openEncoderInWorkers,
  openRerankerHere,
  type Reranker,
  sameModel,
  StartingEmbedder,
} from '../core/app/models';
import { TERMINAL_MODELS } from './nli';
import { forTerminal } from './terminal';

/** The encoder the CLI was given: its folder, and the most tokens of a paper's title and abstract it reads. */
export interface EncoderChoice {
  readonly dir: string;
  readonly inputTokens: number;
}

/** `--embed-tokens N`, with the editor's default without it; undefined when N is not a token count Attest takes. */
export function embedTokens(flag: string | undefined): number | undefined {
  if (flag === undefined) return DEFAULT_INPUT_TOKENS;
  const tokens = Number(flag);
  return flag.trim() !== '' && isTokenCount(tokens) ? tokens : undefined;
}

/** What is wrong with an `--embed-tokens` that `embedTokens` refused. */
export function embedTokensProblem(flag: string | undefined): string {
  return `--embed-tokens must be a whole number from ${INPUT_TOKENS_RANGE.least} to ${INPUT_TOKENS_RANGE.most}, not '${flag}'`;
}

/** The encoder folder the CLI was given (`--embed-model DIR`, else `ATTEST_EMBED_MODEL`), reading `inputTokens` of a text; undefined without a folder. */
export function encoderChoice(flag: string | undefined, inputTokens: number, env: NodeJS.ProcessEnv): EncoderChoice | undefined {
  const dir = flag ?? (env.ATTEST_EMBED_MODEL?.trim() || undefined);
  return dir === undefined ? undefined : { dir, inputTokens };
}

/**
 * The encoder in `dir`, made by `open`, named by its folder and keyed by its content, so that another
 * encoder in a folder of the same name never takes the library's vectors for its own. The CLI's
 * encoders run with their full-precision graph where the folder has one (`ModelOptions`' default).
 */
async function encoderIn<E extends Encoder['embedder']>({ dir, inputTokens }: EncoderChoice, open: ModelOpener<E>): Promise<{ model: string; embedder: E } | undefined> {
  const loaded = await new LocalModel(encoderKind(open), TERMINAL_MODELS, () => ({ model: path.resolve(dir), preferQuantized: false, inputTokens })).get();
  return loaded && { model: loaded.id, embedder: loaded.model };
}

/** The encoder chosen, for an import: in one-thread workers side by side, one a core (`importLanes`). */
export async function loadEncoder(choice: EncoderChoice | undefined): Promise<Encoder | undefined> {
  return choice === undefined ? undefined : encoderIn(choice, (folder, options) => openEncoderInWorkers(folder, { ...options, threads: importLanes() }));
}

/**
 * One-thread workers an import embeds with: one a core, as ONNX Runtime's own threads would take, but
 * side by side rather than waiting for each other at every operator. Each holds a session (about
 * 150 MB with bge-small-en-v1.5), so a large server does not get one a core without end.
 */
function importLanes(): number {
  return Math.min(os.availableParallelism(), 8);
}

/**
 * The encoder chosen, keyed as `loadEncoder`'s, starting in a worker thread while the caller goes on;
 * `ready` settles once it has loaded or failed to. `options` as the session's (see `SessionOptions`).
 */
export async function startEncoder(choice: EncoderChoice | undefined, options: ModelOptions = {}): Promise<{ encoder: Encoder; ready: Promise<void> } | undefined> {
  if (choice === undefined) return undefined;
  const encoder = await encoderIn(choice, async (folder, folderOptions) => new StartingEmbedder(folder, { ...folderOptions, ...options }));
  return encoder && { encoder, ready: encoder.embedder.ready };
}

/** A reranker asked for by flag, made when a ranking first needs it; a failure of it is the command's. */
export interface AskedReranker {
  /** The one reranker, made at the first call (the library's first ranking) and shared by the next; rejects as its load failed. */
  readonly get: () => Promise<Reranker>;
  /** The first failure of its load or its scoring, which the library only notes and goes on from: the caller checks it after each search. */
  readonly failure: () => unknown;
  readonly dispose: () => Promise<void>;
}

/**
 * The reranker in `dir`, none without a folder. Its session (a quarter of a second) is made when the
 * first ranking asks for it, which in a search by meaning is while the query is embedded in the
 * encoder's thread; a search given no query never makes it.
 */
export function askedReranker(dir: string | undefined): AskedReranker | undefined {
  if (dir === undefined) return undefined;
  let failure: unknown;
  const failed = (error: unknown): void => {
    failure ??= error;
  };
  const reranker = new OnFirstUse(async () => watched(await openRerankerHere(path.resolve(dir), {}), failed));
  return {
    get: () =>
      reranker.get().catch((error: unknown) => {
        failed(error);
        throw error;
      }),
    failure: () => failure,
    dispose: () => reranker.dispose(),
  };
}

/** The folder of Attest's own reranker; a `ModelError` when this copy of Attest has none. */
export async function builtInRerankerDir(): Promise<string> {
  const dir = await builtInRerankerFolder();
  if (dir === undefined) throw new ModelError('--rerank: this copy of Attest has no built-in reranker (models/attest-rerank in its package); give --rerank-model DIR instead.');
  return dir;
}

/** An error of the store's files (permissions, a full disk), reported like an unreadable input. */
export function isFileSystemError(error: unknown): boolean {
  return typeof (error as NodeJS.ErrnoException | undefined)?.code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/**
 * What a command says before it embeds a library whose vectors are another encoder's: the encoder is
 * named by its folder and the input it reads and told apart by its content, so a folder of another
 * name, another length, or other files in a folder of the same name, replaces every vector, which can
 * take hours to make again. Undefined when nothing is replaced.
 */
export function replacingVectors(command: string, kept: string | undefined, encoder: Encoder | undefined, papers: number): string | undefined {
  if (encoder === undefined || kept === undefined || sameModel(kept, encoder.model) || papers === 0) return undefined;
  const [old, model] = [forTerminal(modelName(kept)), forTerminal(modelName(encoder.model))];
  const [was, now] = [encoderInput(old), encoderInput(model)];
  // A length kept undefined is the model's own: any count at least as long reads it (`cutInput`).
  const length = `--embed-tokens ${was.tokens ?? INPUT_TOKENS_RANGE.most}`;
  if (was.model === now.model && was.tokens === now.tokens) {
    return `attest ${command}: the library's papers are embedded with another model in a folder named ${was.model} (its files differ from this one's): all ${papers} are embedded again, and the earlier vectors are replaced once the first are saved. To keep them, stop now and give --embed-model the model they were made with.\n`;
  }
  // The editor names its encoder by its repository or its path, which no folder's name can match.
  const keep = /[\\/]/.test(was.model)
    ? "the editor's encoder made them, so no folder given here keeps them: stop now, and leave out --embed-model (and ATTEST_EMBED_MODEL) to search by words"
    : was.model === now.model
      ? `stop now and give ${length}`
      : `stop now and give --embed-model the folder named ${was.model}${was.tokens === now.tokens ? '' : ` and ${length}`}`;
  return `attest ${command}: the library's papers are embedded with ${old}, not ${model}: all ${papers} are embedded again, and ${old}'s vectors are replaced once the first are saved. To keep them, ${keep}.\n`;
}

/** `reranker`, telling `failed` of each error its scoring throws. */
function watched(reranker: Reranker, failed: (error: unknown) => void): Reranker {
  return {
    depth: reranker.depth,
    weight: reranker.weight,
    score: (claim, passages, signal) =>
      reranker.score(claim, passages, signal).catch((error: unknown) => {
        failed(error);
        throw error;
      }),
    dispose: () => reranker.dispose(),
  };
}
