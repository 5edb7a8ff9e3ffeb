/**
 * Reads a Hugging Face-style export folder, the shape Attest's models come in:
 *
 *   model.onnx | onnx/model.onnx | onnx/model_quantized.onnx   the graph
 *   tokenizer.json                                               the tokenizer (tokenizers' format)
 *   tokenizer_config.json                                        optional: model_max_length, casing
 *   config.json                                                  id2label, max_position_embeddings, …
 *   attest.json                                                  optional: how Attest judges with it (judging.ts)
 *
 * Everything is checked here, once, so the runtime can trust what it gets and every complaint names
 * the file at fault and what to do about it.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readTextFile, SMALL_FILE_BYTES } from '../text/readFile';
import { ModelError } from './errors';
import { readJudging, type JudgingParameters } from './judging';

export interface ModelConfig {
  /** `model_type` of config.json, e.g. `deberta-v2`, `bert`. */
  readonly modelType: string | undefined;
  /** `_name_or_path` of config.json: the model the export was made from, e.g. `BAAI/bge-small-en-v1.5`. */
  readonly nameOrPath: string | undefined;
  /** Label names by output index, from `id2label`; empty for models that classify nothing. */
  readonly labels: readonly string[];
  /** The longest input, special tokens included, that the model takes. */
  readonly maxLength: number;
  readonly padTokenId: number;
}

export interface ModelFolder {
  readonly dir: string;
  /** The .onnx file chosen, absolute. */
  readonly modelFile: string;
  /** Whether it is the quantized graph (onnx/model_quantized.onnx), whose activations are quantized at run time. */
  readonly quantized: boolean;
  /** tokenizer.json, parsed. */
  readonly tokenizer: object;
  /** tokenizer_config.json, parsed, or `{}` when the folder has none. */
  readonly tokenizerConfig: object;
  readonly config: ModelConfig;
  /** attest.json, checked: the judging a model trained for Attest was tuned for; undefined for any other export. */
  readonly judging: JudgingParameters | undefined;
}

export interface FolderOptions {
  /** Take onnx/model_quantized.onnx over a full-precision graph when the folder has both. */
  readonly preferQuantized?: boolean;
}

const FULL = ['model.onnx', 'onnx/model.onnx'];
const QUANTIZED = ['onnx/model_quantized.onnx'];

/** tokenizers writes a huge `model_max_length` (1e30) when the model sets none. */
const NO_LIMIT = 1e9;

export async function readModelFolder(dir: string, options: FolderOptions = {}): Promise<ModelFolder> {
  const modelFile = await findModelFile(dir, options.preferQuantized ?? false);
  const tokenizer = await readJsonObject(dir, 'tokenizer.json');
  if (!tokenizer) throw missing(dir, 'tokenizer.json', "the model's tokenizer");
  const { config, tokenizerConfig } = await readConfigFiles(dir);
  const judging = await readFolderJudging(dir);
  const quantized = QUANTIZED.some((name) => path.join(dir, name) === modelFile);
  return { dir, modelFile, quantized, tokenizer, tokenizerConfig, config, judging };
}

/** The folder's configuration alone, without parsing its tokenizer (a megabyte of JSON): for what needs only names and lengths. */
export async function readModelConfig(dir: string): Promise<ModelConfig> {
  return (await readConfigFiles(dir)).config;
}

async function readConfigFiles(dir: string): Promise<{ config: ModelConfig; tokenizerConfig: object }> {
  const configJson = await readJsonObject(dir, 'config.json');
  if (!configJson) throw missing(dir, 'config.json', "the model's configuration (labels, maximum length)");
  const tokenizerConfig = (await readJsonObject(dir, 'tokenizer_config.json')) ?? {};
  return { config: readConfig(dir, configJson, tokenizerConfig), tokenizerConfig };
}

/** The folder's attest.json, checked (judging.ts); undefined for a folder without one. */
export async function readFolderJudging(dir: string): Promise<JudgingParameters | undefined> {
  const json = await readJsonObject(dir, 'attest.json');
  return json && readJudging(json, path.join(dir, 'attest.json'));
}

/** The graph `readModelFolder` would choose; a `ModelError` when there is no such folder or it has no graph. */
export async function findModelFile(dir: string, preferQuantized: boolean): Promise<string> {
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat?.isDirectory()) {
    throw new ModelError(
      `The model folder ${dir} does not exist. Check the path, or put the model's ONNX export there ` +
        '(model.onnx or onnx/model_quantized.onnx, tokenizer.json, config.json).',
    );
  }
  const candidates = preferQuantized ? [...QUANTIZED, ...FULL] : [...FULL, ...QUANTIZED];
  for (const candidate of candidates) {
    const file = path.join(dir, candidate);
    if ((await fs.stat(file).catch(() => undefined))?.isFile()) return file;
  }
  throw new ModelError(
    `The model folder ${dir} has no ONNX model (looked for ${candidates.join(', ')}). ` +
      'Download an ONNX export of the model (Hugging Face repositories by Xenova have one under onnx/) into this folder.',
    path.join(dir, candidates[0]),
  );
}

function missing(dir: string, name: string, what: string): ModelError {
  const file = path.join(dir, name);
  return new ModelError(`The model folder ${dir} has no ${name} (${what}). Copy it from the model's repository into the folder.`, file);
}

/** The file's JSON object, or undefined when the file does not exist; throws when it is not a JSON object. */
export async function readJsonObject(dir: string, name: string): Promise<object | undefined> {
  const file = path.join(dir, name);
  let text: string | undefined;
  try {
    text = (await readTextFile(file, SMALL_FILE_BYTES))?.text;
  } catch (error) {
    throw new ModelError((error as Error).message, file);
  }
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ModelError(`${file} is not valid JSON (${(error as Error).message}); it may be incomplete: download it again.`, file);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new ModelError(`${file} should hold a JSON object; download it again.`, file);
  }
  return json;
}

function readConfig(dir: string, json: object, tokenizerConfig: object): ModelConfig {
  const file = path.join(dir, 'config.json');
  const config = json as Record<string, unknown>;
  const positions = config.max_position_embeddings;
  const tokenizerMax = (tokenizerConfig as Record<string, unknown>).model_max_length;
  const limits = [positions, tokenizerMax].filter((n): n is number => typeof n === 'number' && n > 0 && n < NO_LIMIT);
  if (limits.length === 0) {
    throw new ModelError(`${file} gives no max_position_embeddings, so the longest input the model takes is unknown; download it again.`, file);
  }
  return {
    modelType: typeof config.model_type === 'string' ? config.model_type : undefined,
    nameOrPath: typeof config._name_or_path === 'string' ? config._name_or_path : undefined,
    labels: readLabels(file, config.id2label),
    maxLength: Math.min(...limits),
    padTokenId: typeof config.pad_token_id === 'number' ? config.pad_token_id : 0,
  };
}

function readLabels(file: string, id2label: unknown): string[] {
  if (id2label === undefined) return [];
  if (typeof id2label !== 'object' || id2label === null) throw new ModelError(`${file}: id2label should map output indexes to label names.`, file);
  const labels: string[] = [];
  for (const [key, name] of Object.entries(id2label)) {
    const index = Number(key);
    if (!Number.isInteger(index) || index < 0 || typeof name !== 'string') {
      throw new ModelError(`${file}: id2label should map output indexes to label names, not ${JSON.stringify(key)} to ${JSON.stringify(name)}.`, file);
    }
    labels[index] = name;
  }
  if (Array.from(labels, (name) => name === undefined).includes(true) || labels.length !== Object.keys(id2label).length) {
    throw new ModelError(`${file}: id2label should name every output index from 0 up.`, file);
  }
  return labels;
}
