import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ModelError } from './errors';

/** Where a model setting points: a folder the user has, or a hub repository kept in Attest's storage. */
export type ModelLocation =
  | { readonly kind: 'folder'; readonly dir: string }
  | { readonly kind: 'hub'; readonly repo: string; readonly revision?: string; readonly dir: string };

/**
 * The hub's repository names (`owner/name`, letters, digits, `-`, `_`, `.`, not starting with a dot)
 * and an optional `@revision` (a branch, tag or commit). Nothing else: the name becomes a folder of
 * Attest's storage and part of a URL, where `..`, `#` or `%2F` would lead elsewhere.
 */
const HUB_NAME = /^([A-Za-z0-9][A-Za-z0-9._-]{0,95})\/([A-Za-z0-9][A-Za-z0-9._-]{0,95})(?:@([A-Za-z0-9][A-Za-z0-9._-]{0,99}))?$/;

/**
 * Reads a model setting: an absolute path (or `~/…`) is a folder; `owner/name` is a hub repository,
 * downloaded into `{storage}/models/owner/name`, whose last part the encoder's configuration recognises
 * (`owner/name@revision` into `{storage}/models/@revision/owner/name`). A relative folder (`./…`,
 * `../…`) is taken from `base`: the workspace folder in the editor, whose host's working directory
 * means nothing to the user. Throws `ModelError` for anything else, naming the setting's forms.
 */
export function modelLocation(setting: string, storage: string, home: string, base = process.cwd()): ModelLocation {
  const value = setting.trim();
  if (value.startsWith('~/')) return { kind: 'folder', dir: path.join(home, value.slice(2)) };
  if (path.isAbsolute(value) || value.startsWith('.')) return { kind: 'folder', dir: path.resolve(base, value) };
  const hub = HUB_NAME.exec(value);
  if (!hub || hub[1].includes('..') || hub[2].includes('..') || hub[3]?.includes('..')) {
    throw new ModelError(`'${value}' is neither a model folder (an absolute path, or one starting with ~/ or .) nor a Hugging Face repository (owner/name, or owner/name@revision).`);
  }
  const [, owner, name, revision] = hub;
  const models = path.join(storage, 'models');
  const dir = revision === undefined ? path.join(models, owner, name) : path.join(models, `@${revision}`, owner, name);
  return { kind: 'hub', repo: `${owner}/${name}`, ...(revision !== undefined && { revision }), dir };
}

/**
 * The files of an ONNX export Attest reads, the same for an NLI cross-encoder and a sentence encoder;
 * the quantized graph is a quarter of the size, for a point or two of accuracy.
 */
export function exportFiles(preferQuantized: boolean): string[] {
  return ['config.json', 'tokenizer.json', 'tokenizer_config.json', preferQuantized ? 'onnx/model_quantized.onnx' : 'onnx/model.onnx'];
}

/** Whether every file is in place (a download renames each file into place only once it is whole). */
export async function hasFiles(dir: string, files: readonly string[]): Promise<boolean> {
  const present = await Promise.all(files.map((f) => fs.stat(path.join(dir, f)).then((s) => s.isFile(), () => false)));
  return present.every(Boolean);
}
