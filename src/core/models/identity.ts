/**
 * What a model's results are keyed by: its content, not the name of its folder. A different model in
 * a folder of the same name, or one retrained in place, must not reuse the cached verdicts or the
 * stored vectors of the one before it.
 *
 *   const key = withContent('bge-small-en-v1.5', await contentDigest(dir, { preferQuantized: true }));
 *   // 'bge-small-en-v1.5#content:3f2a…'; modelName(key) gives back 'bge-small-en-v1.5'
 *
 * Hashing a whole graph (90 MB) would cost a third of a second at every start; its size, its time and
 * a hash of its first and last megabyte cost a few milliseconds. The first holds the graph's structure
 * and its first weights, the last its classifier head's (the weights retraining moves most).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { findModelFile, type FolderOptions } from './folder';

/** The files besides the graph that change what a model says: tokenizer, configuration, judging, pooling, reranking. */
const CONFIGURATION = ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'attest.json', 'rerank.json', 'sentence_bert_config.json', '1_Pooling/config.json'];

/** How much of each end of a file is hashed. */
const END_BYTES = 1 << 20;

const CONTENT_MARK = '#content:';
const MARKED = /#content:[0-9a-f]{16}$/;

/** A digest of the model in `dir`: the graph the options choose and the files that configure it. */
export async function contentDigest(dir: string, options: FolderOptions = {}): Promise<string> {
  const graph = await findModelFile(dir, options.preferQuantized ?? false);
  const hash = createHash('sha256');
  for (const file of [graph, ...CONFIGURATION.map((name) => path.join(dir, name))]) {
    hash.update(`${path.relative(dir, file)}\0`);
    await hashFile(hash, file);
  }
  return hash.digest('hex').slice(0, 16);
}

async function hashFile(hash: ReturnType<typeof createHash>, file: string): Promise<void> {
  const handle = await fs.open(file, 'r').catch(() => undefined);
  if (handle === undefined) {
    hash.update('absent\0');
    return;
  }
  try {
    const { size, mtimeMs } = await handle.stat();
    hash.update(`${size}:${mtimeMs}\0`);
    const head = Buffer.alloc(Math.min(size, END_BYTES));
    await handle.read(head, 0, head.length, 0);
    hash.update(head);
    if (size > END_BYTES) {
      const tail = Buffer.alloc(Math.min(size - END_BYTES, END_BYTES));
      await handle.read(tail, 0, tail.length, size - tail.length);
      hash.update(tail);
    }
  } finally {
    await handle.close();
  }
}

/** A digest of the model and of how it is run (`variant`, e.g. an encoder's input cut to 128 tokens): another variant is another model. */
export function variantDigest(digest: string, variant: string): string {
  return createHash('sha256').update(`${digest}\0${variant}`).digest('hex').slice(0, 16);
}

/** The key a model's results are kept under: its name and its content's digest. */
export function withContent(name: string, digest: string): string {
  return `${name}${CONTENT_MARK}${digest}`;
}

/** The name in a key, for the user: the key itself when it has no digest (one written before keys had them). */
export function modelName(key: string): string {
  return MARKED.test(key) ? key.slice(0, key.length - CONTENT_MARK.length - 16) : key;
}

/**
 * Whether results kept under `stored` are the model `key`'s: the same key, or a key written before
 * keys had a digest that names the same model (all such a key can say). Two digests that differ are
 * two models, whatever their names.
 */
export function sameModel(stored: string, key: string): boolean {
  return stored === key || (!MARKED.test(stored) && stored === modelName(key));
}

/**
 * Whether two keys name one encoder: the same content when both carry a digest, whatever their names
 * (a folder named after the model and the hub's repository name one encoder); otherwise as `sameModel`.
 */
export function sameEncoder(a: string, b: string): boolean {
  if (MARKED.test(a) && MARKED.test(b)) return a.slice(-16) === b.slice(-16);
  return sameModel(a, b) || sameModel(b, a);
}
