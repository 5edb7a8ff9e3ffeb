/**
 * How a sentence encoder turns token states into one vector, and what it expects before a query.
 * sentence-transformers keeps this beside the model (1_Pooling/config.json, sentence_bert_config.json);
 * ONNX exports usually leave those files out, so the encoders Attest offers are also known by name.
 */
import * as path from 'node:path';
import { ModelError } from './errors';
import { readJsonObject, readModelConfig, type ModelFolder } from './folder';

export type Pooling = 'mean' | 'cls';

export interface EncoderConfig {
  readonly pooling: Pooling;
  /** Put before a query, as the model was trained. */
  readonly queryPrefix: string;
  /** Put before a passage (a paper's title and abstract), for the encoders trained with one (e5). */
  readonly passagePrefix: string;
  /** The longest input the encoder was trained on, when shorter than the model allows. */
  readonly maxLength?: number;
}

/**
 * bge-v1.5's model card makes its instruction for queries ("Represent this sentence for searching
 * relevant passages: ") optional. Attest's queries are claims, statements like the passages, and on
 * BEIR SciFact's 809 training claims bge-small-en-v1.5 int8 ranked better without it: 0.754 against
 * 0.748 nDCG@10 alone, 0.777 against 0.774 fused (test, measured once after: 0.710 and 0.747 against
 * 0.705 and 0.742).
 */
const BGE: EncoderConfig = { pooling: 'cls', queryPrefix: '', passagePrefix: '', maxLength: 512 };
/** e5 was trained with both prefixes; without them it loses several points (its model card). */
const E5: EncoderConfig = { pooling: 'mean', queryPrefix: 'query: ', passagePrefix: 'passage: ', maxLength: 512 };

/** By the last part of the model's name (config.json's `_name_or_path`, else the folder's name), lower case. */
const KNOWN: Readonly<Record<string, EncoderConfig>> = {
  'bge-small-en-v1.5': BGE,
  'bge-base-en-v1.5': BGE,
  'bge-large-en-v1.5': BGE,
  'e5-small-v2': E5,
  'e5-base-v2': E5,
  'all-minilm-l6-v2': { pooling: 'mean', queryPrefix: '', passagePrefix: '', maxLength: 256 },
};

/** sentence-transformers' default for a model it knows nothing about. */
const FALLBACK: EncoderConfig = { pooling: 'mean', queryPrefix: '', passagePrefix: '' };

export async function readEncoderConfig(folder: Pick<ModelFolder, 'dir' | 'config'>): Promise<EncoderConfig> {
  const name = path.basename(folder.config.nameOrPath ?? folder.dir).toLowerCase();
  const known = KNOWN[name] ?? FALLBACK;
  const pooling = await readPooling(folder.dir);
  const maxLength = await readMaxLength(folder.dir);
  return { ...known, ...(pooling && { pooling }), ...(maxLength && { maxLength }) };
}

/**
 * The tokens of a text the encoder in `dir` reads when `inputTokens` cuts its input below its own
 * length (the shorter of what it was trained on and what its graph allows); undefined when it reads
 * what it always did. Vectors made from a cut input are other vectors: their key says so (`LocalModel`).
 */
export async function cutInput(dir: string, inputTokens: number | undefined): Promise<number | undefined> {
  if (inputTokens === undefined) return undefined;
  const config = await readModelConfig(dir);
  const own = Math.min((await readEncoderConfig({ dir, config })).maxLength ?? Infinity, config.maxLength);
  return inputTokens < own ? inputTokens : undefined;
}

async function readPooling(dir: string): Promise<Pooling | undefined> {
  const file = path.join(dir, '1_Pooling', 'config.json');
  const json = (await readJsonObject(path.join(dir, '1_Pooling'), 'config.json')) as Record<string, unknown> | undefined;
  if (json === undefined) return undefined;
  if (json.pooling_mode_cls_token === true) return 'cls';
  if (json.pooling_mode_mean_tokens === true) return 'mean';
  throw new ModelError(`${file} asks for a pooling Attest does not do; it does CLS-token and mean pooling.`, file);
}

async function readMaxLength(dir: string): Promise<number | undefined> {
  const json = (await readJsonObject(dir, 'sentence_bert_config.json')) as Record<string, unknown> | undefined;
  const length = json?.max_seq_length;
  return typeof length === 'number' && length > 0 ? length : undefined;
}
