/**
 * Attest's collection on a SolrCloud: made (`initCollection`, for `attest solr init`), described by its
 * meta document (the encoder whose vectors it holds), and filled with papers (`addToCollection`, for
 * `attest index add --solr`), in batches committed together at the end, skipping papers it already
 * holds with the same text (a real-time get sees the batches not yet committed): an import that stops
 * is resumed by running it again, and running it twice changes nothing.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { modelName, sameEncoder } from '../../models/identity';
import type { Paper } from '../../papers/paper';
import type { Encoder } from '../library';
import { passageText } from '../passages';
import { SolrClient, SolrError, type SolrDocument } from './client';
import { ANALYZER, META_ID, paperDocument, textHash } from './documents';

/** What the meta document says of the collection. */
export interface CollectionInfo {
  /** The encoder whose vectors the collection holds; none for a collection searched by words alone. */
  readonly encoder?: string;
  readonly dimension?: number;
  readonly analyzer: string;
}

export interface InitOptions {
  /** The encoder's name and its vectors' dimension; none, a collection searched by words alone. */
  readonly encoder?: { readonly model: string; readonly dimension: number };
  readonly shards: number;
  readonly replicas: number;
  /** The configset's folder: `solr/configset/conf` of Attest's package. */
  readonly configDir: string;
  readonly signal?: AbortSignal;
}

/** The files of the configset that `init` uploads. */
const CONFIG_FILES = ['solrconfig.xml', 'schema.xml'] as const;
/** The dimension the schema is written with; `init` puts the encoder's in its place. */
const SCHEMA_DIMENSION = /vectorDimension="\d+"/;
/** Papers embedded and sent together: what a stop loses before Solr's update log holds it. */
export const SOLR_BATCH = 256;

/** An encoder's key as messages show it: its name, and its content's digest when the name alone would hide a difference. */
function described(key: string): string {
  const name = modelName(key);
  return name === key ? key : `${name} (content ${key.slice(-16)})`;
}

/** The meta document, read in real time; undefined when the collection has none (Attest did not make it). */
export async function collectionInfo(solr: SolrClient, signal?: AbortSignal): Promise<CollectionInfo | undefined> {
  const { docs } = await solr.get([META_ID], 'encoder,dimension,analyzer', signal);
  const [meta] = docs;
  if (meta === undefined) return undefined;
  const { encoder, dimension, analyzer } = meta;
  return {
    ...(typeof encoder === 'string' && { encoder }),
    ...(typeof dimension === 'number' && { dimension }),
    analyzer: typeof analyzer === 'string' ? analyzer : 'unknown',
  };
}

/** Why `encoder` may not search or fill the collection described by `info`; undefined when it may. */
export function encoderConflict(target: string, info: CollectionInfo, encoder: string | undefined): string | undefined {
  if (info.analyzer !== ANALYZER) return `The collection ${target} was indexed by another version of Attest's analysis (${info.analyzer}); make it again with attest solr init.`;
  if (encoder === undefined || (info.encoder !== undefined && sameEncoder(info.encoder, encoder))) return undefined;
  if (info.encoder === undefined) return `The collection ${target} holds no vectors (it was made without an encoder): search it by words, without an encoder.`;
  const [held, given] = [described(info.encoder), described(encoder)];
  return `The collection ${target} holds vectors of ${held}, not ${given}: one model's vectors cannot be compared with another's. Use the encoder it was filled with, or make a new collection for ${given}.`;
}

/**
 * Uploads the configset (as `attest-<collection>`, its vector field given the encoder's dimension), creates
 * the collection and writes its meta document. A collection that exists already is left as it is: set up
 * for the same encoder, `init` says so; for another, or not by Attest, it refuses.
 */
export async function initCollection(solr: SolrClient, options: InitOptions): Promise<'created' | 'exists'> {
  const { collection } = solr.target;
  const target = `'${collection}'`;
  if (await collectionExists(solr, options.signal)) {
    const info = await collectionInfo(solr, options.signal);
    if (info === undefined) throw new SolrError('refused', `Solr already has a collection named ${target} that Attest did not make: name another.`);
    const conflict = encoderConflict(target, info, options.encoder?.model);
    const same = info.encoder === undefined ? options.encoder === undefined : options.encoder !== undefined && sameEncoder(info.encoder, options.encoder.model);
    if (conflict !== undefined || !same)
      throw new SolrError(
        'refused',
        conflict ?? `The collection ${target} exists already, with ${info.encoder === undefined ? 'no vectors' : `vectors of ${described(info.encoder)}`}.`,
      );
    return 'exists';
  }
  const configName = `attest-${collection}`;
  for (const file of CONFIG_FILES) {
    let text = await fs.readFile(path.join(options.configDir, file), 'utf8');
    if (file === 'schema.xml' && options.encoder) text = text.replace(SCHEMA_DIMENSION, `vectorDimension="${options.encoder.dimension}"`);
    await solr.admin(
      '/admin/configs',
      { action: 'UPLOAD', name: configName, filePath: file, overwrite: 'true' },
      { bytes: Buffer.from(text), type: 'application/octet-stream' },
      options.signal,
    );
  }
  await solr.admin(
    '/admin/collections',
    {
      action: 'CREATE',
      name: collection,
      numShards: String(options.shards),
      replicationFactor: String(options.replicas),
      'collection.configName': configName,
      waitForFinalState: 'true',
    },
    undefined,
    options.signal,
  );
  const meta: SolrDocument = {
    id: META_ID,
    kind: 'meta',
    analyzer: ANALYZER,
    ...(options.encoder && { encoder: options.encoder.model, dimension: options.encoder.dimension }),
  };
  await solr.update([meta], options.signal);
  return 'created';
}

async function collectionExists(solr: SolrClient, signal?: AbortSignal): Promise<boolean> {
  const answer = await solr.admin('/admin/collections', { action: 'LIST' }, undefined, signal);
  const collections = (answer as { collections?: unknown }).collections;
  return Array.isArray(collections) && collections.includes(solr.target.collection);
}

export interface AddProgress {
  /** Papers sent so far (those the collection held already included), of those given. */
  readonly done: number;
  readonly total: number;
  /** Of `done`, those the collection held already with the same text: not embedded or sent again. */
  readonly unchanged: number;
}

/**
 * Adds `papers` to the collection, replacing those with the same id whose text differs; with the
 * collection's encoder, embedded. Resolves to how many were sent and how many it held already.
 */
export async function addToCollection(
  solr: SolrClient,
  info: CollectionInfo,
  encoder: Encoder | undefined,
  papers: readonly Paper[],
  {
    signal,
    onProgress,
    before = { done: 0, total: papers.length, unchanged: 0 },
  }: { signal?: AbortSignal; onProgress?: (progress: AddProgress) => void; before?: AddProgress } = {},
): Promise<{ sent: number; unchanged: number }> {
  const conflict = encoderConflict(`'${solr.target.collection}'`, info, encoder?.model);
  if (conflict !== undefined) throw new SolrError('refused', conflict);
  if (info.encoder !== undefined && encoder === undefined) {
    throw new SolrError(
      'refused',
      `The collection '${solr.target.collection}' is searched by meaning with ${described(info.encoder)}: papers added to it must be embedded with it (give the encoder).`,
    );
  }
  let sent = 0;
  let unchanged = 0;
  for (let start = 0; start < papers.length; start += SOLR_BATCH) {
    signal?.throwIfAborted();
    const batch = papers.slice(start, start + SOLR_BATCH).filter((paper) => paper.title.trim() !== '');
    const held = await heldHashes(solr, batch, signal);
    const fresh = batch.filter((paper) => held.get(paper.id) !== textHash(paper));
    unchanged += batch.length - fresh.length;
    if (fresh.length > 0) {
      const vectors = encoder ? await encoder.embedder.embed(fresh.map(passageText), 'passage', signal) : undefined;
      await solr.add(
        fresh.map((paper, at) => paperDocument(paper, vectors?.[at])),
        signal,
      );
      sent += fresh.length;
    }
    onProgress?.({ done: before.done + start + batch.length, total: before.total, unchanged: before.unchanged + unchanged });
  }
  if (sent > 0) await solr.commit(signal);
  return { sent, unchanged };
}

/** The text hashes the collection holds for `papers`, by id. */
async function heldHashes(solr: SolrClient, papers: readonly Paper[], signal?: AbortSignal): Promise<Map<string, string>> {
  const { docs } = await solr.get(
    papers.map((paper) => paper.id),
    'id,text_hash',
    signal,
  );
  const hashes = new Map<string, string>();
  for (const { id, text_hash: hash } of docs) if (typeof id === 'string' && typeof hash === 'string') hashes.set(id, hash);
  return hashes;
}
