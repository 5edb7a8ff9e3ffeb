/**
 * The models that ship with Attest, at the package's root. The NLI model, `models/attest-nli/`,
 * trained on scientific claims for Attest (its model card is the folder's README.md), judges when no
 * other model is set, so support verdicts come from the first run, offline, with nothing to download.
 * The evidence reranker, `models/attest-rerank/`, reorders the top of Find Evidence's ranking.
 */
import * as path from 'node:path';
import { attestPackages } from '../attestPackage';
import { readTextFile, SMALL_FILE_BYTES } from '../text/readFile';
import { contentDigest, withContent } from './identity';
import { exportFiles, hasFiles } from './location';

/** How an NLI model's judgements are keyed in caches (`id`) and named to the user (`name`). */
export interface ModelIdentity {
  readonly id: string;
  readonly name: string;
}

/**
 * The built-in model's folder, `models/attest-nli` in Attest's package, or undefined when this copy
 * of Attest has none (a package built without it).
 */
export function builtInNliFolder(roots: Iterable<string> = packageDirs()): Promise<string | undefined> {
  return builtInFolder('attest-nli', exportFiles(true), roots);
}

/**
 * The built-in evidence reranker's folder, `models/attest-rerank` (trained by
 * training/attest_training/rerank.py; its card is the folder's README.md), or undefined when this
 * copy of Attest has none.
 */
export function builtInRerankerFolder(roots: Iterable<string> = packageDirs()): Promise<string | undefined> {
  return builtInFolder('attest-rerank', [...exportFiles(true), 'rerank.json'], roots);
}

async function builtInFolder(name: string, files: readonly string[], roots: Iterable<string>): Promise<string | undefined> {
  for (const root of roots) {
    const dir = path.join(root, 'models', name);
    if (await hasFiles(dir, files)) return dir;
  }
  return undefined;
}

let packages: readonly string[] | undefined;

/** Attest's package folders, found once: every check asks for the built-in model, and they do not move. */
function packageDirs(): readonly string[] {
  packages ??= Array.from(attestPackages(), (p) => p.dir);
  return packages;
}

/**
 * The built-in model's name as its config.json gives it, "(built in)"; its id adds the digest of its
 * content (identity.ts), which changes with every model trained, so that judgements cached from an
 * earlier model are not taken for its own.
 */
export async function builtInIdentity(dir: string): Promise<ModelIdentity> {
  let modelName = 'attest-nli';
  try {
    const config = JSON.parse((await readTextFile(path.join(dir, 'config.json'), SMALL_FILE_BYTES).catch(() => undefined))?.text ?? '') as { _name_or_path?: unknown };
    if (typeof config._name_or_path === 'string' && config._name_or_path.trim() !== '') modelName = config._name_or_path.trim();
  } catch {
    // Loading the model reports a damaged config.json.
  }
  const name = `${modelName} (built in)`;
  return { id: withContent(name, await contentDigest(dir, { preferQuantized: true })), name };
}
