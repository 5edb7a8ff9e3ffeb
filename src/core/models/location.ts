import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** A 3-class DeBERTa-v3 cross-encoder exported to ONNX: 87 MB quantized, labels in config.json. */
export const DEFAULT_NLI_MODEL = 'Xenova/nli-deberta-v3-xsmall';

/** Where a model setting points: a folder the user has, or a hub repository kept in Attest's storage. */
export type ModelLocation = { readonly kind: 'folder'; readonly dir: string } | { readonly kind: 'hub'; readonly repo: string; readonly dir: string };

/**
 * Reads a model setting: an absolute path (or `~/…`) is a folder; `owner/name` is a hub repository,
 * downloaded into `{storage}/models/owner/name`, whose last part the encoder's configuration recognises.
 */
export function modelLocation(setting: string, storage: string, home: string): ModelLocation {
  const value = setting.trim();
  if (value.startsWith('~/')) return { kind: 'folder', dir: path.join(home, value.slice(2)) };
  if (path.isAbsolute(value) || value.startsWith('.')) return { kind: 'folder', dir: path.resolve(value) };
  return { kind: 'hub', repo: value, dir: path.join(storage, 'models', ...value.split('/')) };
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
