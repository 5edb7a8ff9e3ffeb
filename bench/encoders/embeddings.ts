/**
 * The bench's embeddings of a collection, kept on disk: embedding SciFact's 5,183 abstracts with a
 * 12-layer encoder takes tens of minutes on two cores, so each encoder does it once. The file is
 * keyed by the encoder's graph (source.json's SHA-256), what Attest does with it (pooling, prefixes,
 * length) and the texts, so a change to any of them embeds again. It grows a chunk at a time, so an
 * interrupted run goes on where it stopped.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readEncoderConfig } from '../../src/core/models/encoderConfig';
import { OnnxEmbedder, type TextKind } from '../../src/core/models/embedder';
import { readModelFolder } from '../../src/core/models/folder';

const CHUNK = 128;

export interface EmbeddingProgress {
  readonly done: number;
  readonly total: number;
  /** Texts per second over the chunks embedded in this run. */
  readonly rate: number;
}

export interface CacheOptions {
  /** Give undefined rather than embed what the cache lacks. */
  readonly onlyIfCached?: boolean;
  readonly onProgress?: (progress: EmbeddingProgress) => void;
  /** The encoder's threads (2): on a machine busy with other work, 1 embeds faster, its threads never waiting for each other. */
  readonly threads?: number;
}

/** A key for the encoder folder and what Attest makes of it for this kind of text (the other kind's prefix does not count). */
async function recipe(dir: string, kind: TextKind): Promise<string> {
  const folder = await readModelFolder(dir);
  const { pooling, maxLength, queryPrefix, passagePrefix } = await readEncoderConfig(folder);
  const config = { pooling, maxLength, prefix: kind === 'query' ? queryPrefix : passagePrefix };
  const source = await fs.readFile(path.join(dir, 'source.json'), 'utf8').catch(() => folder.modelFile);
  // A quantized graph embeds one text at a time (embedder.ts), so its vectors changed with that.
  return JSON.stringify({ source, config, model: path.basename(folder.modelFile), maxLength: folder.config.maxLength, alone: folder.quantized });
}

/**
 * One unit vector per text, in order, from `{cache}/embeddings/`, embedding what is missing first.
 * Texts go to the encoder shortest first, so that a batch's texts are about as long as each other.
 */
export async function cachedEmbeddings(dir: string, texts: readonly string[], kind: TextKind, cache: string, options: CacheOptions = {}): Promise<Float32Array[] | undefined> {
  const key = createHash('sha256')
    .update(await recipe(dir, kind))
    .update(kind)
    .update(JSON.stringify(texts))
    .digest('hex')
    .slice(0, 24);
  const file = path.join(cache, 'embeddings', `${path.basename(dir)}-${kind}-${key}.f32`);
  const order = texts.map((_, at) => at).sort((a, b) => texts[a].length - texts[b].length || a - b);
  const cached: Buffer | undefined = await fs.readFile(file).catch(() => undefined);
  if (cached === undefined && options.onlyIfCached) return undefined;
  const bytes: Buffer = cached ?? (await embedMissing(dir, texts, order, kind, file, options));
  const floats = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const dimension = floats.length / texts.length;
  const vectors = new Array<Float32Array>(texts.length);
  order.forEach((at, row) => (vectors[at] = floats.slice(row * dimension, (row + 1) * dimension)));
  return vectors;
}

async function embedMissing(
  dir: string,
  texts: readonly string[],
  order: readonly number[],
  kind: TextKind,
  file: string,
  { onProgress, threads = 2 }: CacheOptions,
): Promise<Buffer> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  const encoder = await OnnxEmbedder.load(dir, { threads, batchSize: 16 });
  try {
    const have = await fs.readFile(partial).catch(() => Buffer.alloc(0));
    let dimension = 0;
    let done = 0;
    if (have.length > 0) {
      dimension = (await encoder.embed([texts[order[0]]], kind))[0].length;
      done = Math.floor(have.length / (dimension * 4));
      await fs.truncate(partial, done * dimension * 4);
    }
    const start = performance.now();
    const startedAt = done;
    while (done < texts.length) {
      const chunk = order.slice(done, done + CHUNK).map((at) => texts[at]);
      const vectors = await encoder.embed(chunk, kind);
      dimension = vectors[0].length;
      const out = new Float32Array(vectors.length * dimension);
      vectors.forEach((v, row) => out.set(v, row * dimension));
      await fs.appendFile(partial, Buffer.from(out.buffer));
      done += chunk.length;
      onProgress?.({ done, total: texts.length, rate: ((done - startedAt) / (performance.now() - start)) * 1000 });
    }
    await fs.rename(partial, file);
    return fs.readFile(file);
  } finally {
    await encoder.dispose();
  }
}
