/** The vector segments: one encoder's unit vectors, little-endian float32 row by row, and their ids. */
import { endianness } from 'node:os';
import * as path from 'node:path';
import { isStringList } from '../../json';
import { LARGEST_TEXT_BYTES } from '../../text/readFile';
import { DenseIndex, type DenseIndexData } from '../dense';
import { prepareScoring } from '../scoring';
import type { SegmentWriter } from '../segment';
import { DamagedStore } from './damage';
import { readInto, readRegular, readWholeSync } from './files';
import type { VectorSegment } from './manifest';

/** Vectors for papers, one per id, all from one encoder. */
export interface VectorBatch {
  readonly model: string;
  readonly ids: readonly string[];
  readonly vectors: readonly Float32Array[];
}

export function checkVectors(batch: VectorBatch, known: (id: string) => boolean): void {
  if (batch.ids.length !== batch.vectors.length) throw new RangeError(`${batch.ids.length} ids but ${batch.vectors.length} vectors`);
  const unknown = batch.ids.find((id) => !known(id));
  if (unknown !== undefined) throw new Error(`A vector for '${unknown}', which is not in the store.`);
  const dimension = batch.vectors[0]?.length;
  if (batch.vectors.some((v) => v.length !== dimension || v.length === 0)) throw new RangeError('The vectors of one batch must have one dimension.');
}

export async function writeVectors(data: DenseIndexData, write: SegmentWriter): Promise<VectorSegment> {
  const file = await write('vectors.f32', littleEndian(data.vectors));
  const ids = await write('vector-ids.json', [JSON.stringify(data.ids)]);
  return { file, ids, count: data.ids.length };
}

/**
 * The vector segments as one dense index: each file is read straight into its rows of one array,
 * which the index keeps, so 100,000 vectors cost their 150 MB once, not twice. The reads are under
 * way on Node's I/O threads when this returns; the ids are parsed and the scoring made ready meanwhile.
 */
export async function readDense(
  dir: string,
  segments: readonly VectorSegment[],
  dimension: number,
  ids: { of: (segment: VectorSegment) => readonly string[]; distinct: () => boolean },
): Promise<DenseIndex> {
  const rows = segments.reduce((sum, segment) => sum + segment.count, 0);
  const vectors = new Float32Array(rows * dimension);
  const bytes = new Uint8Array(vectors.buffer);
  let from = 0;
  const reads = segments.map((segment) => readInto(dir, segment.file, bytes.subarray(from, (from += segment.count * dimension * 4))));
  // Each read rejects on its own; none may go unheard while the others are awaited.
  const all = Promise.all(reads);
  all.catch(() => undefined);
  prepareScoring();
  const rowIds = segments.flatMap(ids.of);
  await all;
  // The files hold little-endian floats, as nearly every machine's are.
  if (endianness() === 'BE') Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).swap32();
  // Asked after the reads, by when the search has counted the papers without vectors, which tells.
  return DenseIndex.adopt(dimension, { ids: rowIds, vectors }, { distinct: ids.distinct() });
}

/** The ids of a vector segment, checked against its count. */
export async function readVectorIds(dir: string, segment: VectorSegment): Promise<string[]> {
  return vectorIds(await readRegular(path.join(dir, segment.ids), LARGEST_TEXT_BYTES), segment);
}

export function readVectorIdsSync(dir: string, segment: VectorSegment): string[] {
  return vectorIds(Buffer.from(readWholeSync(path.join(dir, segment.ids))).toString('utf8'), segment);
}

export function vectorIds(text: string, segment: VectorSegment): string[] {
  const ids: unknown = JSON.parse(text);
  if (!isStringList(ids) || ids.length !== segment.count) throw new DamagedStore(`${segment.ids} does not list ${segment.count} ids`);
  return ids;
}

/** The unsaved vectors as unit rows, the last of an id winning; undefined when there are none. */
export function unitRows(batches: readonly VectorBatch[], dimension: number): DenseIndexData | undefined {
  const rows = new DenseIndex(dimension);
  for (const batch of batches) batch.ids.forEach((id, at) => rows.add(id, batch.vectors[at]));
  return rows.size === 0 ? undefined : rows.toData();
}

/** The file is little-endian whatever machine wrote it, so a library can move between machines. */
function littleEndian(vectors: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vectors.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vectors.length; i++) view.setFloat32(i * 4, vectors[i], true);
  return bytes;
}
