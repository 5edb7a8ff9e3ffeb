/**
 * The dense side of retrieval: papers as unit vectors of a sentence encoder, ranked by cosine
 * similarity to the query's vector.
 *
 *   const index = new DenseIndex(384);
 *   index.add('doi:10.1/x', vector);        // again with the same id replaces it
 *   await index.search(queryVector, 100)    // [{ id, score }], best first; score is the cosine
 *
 * Brute force: every search scores every vector, exactly, as one matrix-vector product in ONNX
 * Runtime, which also picks the best rows (scoring.ts). The vectors are kept row after row, as the
 * library's files hold them, so a library's vectors are read straight into place: laying them out
 * in blocks dimension-major scored 100,000 papers in 9 ms instead of 12 but took 350 ms to lay out
 * at each cold start. At 100,000 papers of 384 dimensions a search takes about 15 ms on two cores,
 * so an approximate index, and the recall it costs, would only pay off an order of magnitude later.
 */
import { bestRows } from './scoring';

export interface DenseHit {
  readonly id: string;
  readonly score: number;
}

/** The vectors row by row, in the order of `ids`. */
export interface DenseIndexData {
  readonly ids: readonly string[];
  readonly vectors: Float32Array;
}

export class DenseIndex {
  /** The papers' unit vectors row by row, in the order of `ids`; rows beyond them are spare capacity. */
  private vectors: Float32Array;
  private readonly ids: string[] = [];
  /** Each id's row, made from `ids` when first needed. */
  private rowsOfIds: Map<string, number> | undefined;

  constructor(readonly dimension: number) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`a vector dimension must be a positive integer, not ${dimension}`);
    // Room is made at the first vector: an index that stays empty costs nothing.
    this.vectors = new Float32Array(0);
  }

  /**
   * An index over `data`, unit vectors row by row, that keeps `data.vectors` as its own rather than
   * copying it: the caller gives it up. A repeated id keeps its last vector. A caller that knows the
   * ids are `distinct` spares the index the map from id to row until something asks by id, which
   * a search never does: at 100,000 papers, about 45 ms of a cold search.
   */
  static adopt(dimension: number, data: DenseIndexData, { distinct = false } = {}): DenseIndex {
    const index = new DenseIndex(dimension);
    index.checkLength(data);
    if (!distinct) {
      const rows = index.rows;
      data.ids.forEach((id, row) => rows.set(id, row));
      if (rows.size < data.ids.length) {
        rows.clear();
        index.addAll(data);
        return index;
      }
    }
    // One push per id: spread as arguments, 200,000 ids overflowed the call stack.
    for (const id of data.ids) index.ids.push(id);
    index.vectors = data.vectors;
    return index;
  }

  private get rows(): Map<string, number> {
    if (this.rowsOfIds === undefined) {
      const rows = new Map<string, number>();
      this.ids.forEach((id, row) => rows.set(id, row));
      this.rowsOfIds = rows;
    }
    return this.rowsOfIds;
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.rows.has(id);
  }

  /** A copy of the paper's unit vector. */
  vector(id: string): Float32Array | undefined {
    const row = this.rows.get(id);
    return row === undefined ? undefined : this.vectors.slice(row * this.dimension, (row + 1) * this.dimension);
  }

  /** Adds a paper's vector, scaled to unit length, replacing the one it had. */
  add(id: string, vector: Float32Array): void {
    this.checkDimension(vector);
    const norm = lengthOf(vector) || 1;
    const row = this.rowFor(id);
    this.vectors.set(
      vector.map((x) => x / norm),
      row * this.dimension,
    );
  }

  /** Adds unit vectors in bulk, as `toData` gives them; a repeated id keeps its last vector. */
  addAll(data: DenseIndexData): void {
    this.checkLength(data);
    this.reserve(this.ids.length + data.ids.length);
    const { dimension } = this;
    data.ids.forEach((id, at) => {
      const row = this.rowFor(id);
      this.vectors.set(data.vectors.subarray(at * dimension, (at + 1) * dimension), row * dimension);
    });
  }

  /**
   * The `limit` papers nearest the query by cosine, best first; ties go to the paper added first.
   * Papers added while the scores are computed are not ranked.
   */
  async search(query: Float32Array, limit: number): Promise<DenseHit[]> {
    this.checkDimension(query);
    const count = this.ids.length;
    if (count === 0 || limit <= 0) return [];
    const norm = lengthOf(query) || 1;
    const best = await bestRows(
      query.map((x) => x / norm),
      this.vectors.subarray(0, count * this.dimension),
      count,
      limit,
    );
    const ids = this.ids;
    return best.rows.map((row, at) => ({ id: ids[row], score: best.scores[at] }));
  }

  /** Row by row, a copy, so later additions never change what a save is writing. */
  toData(): DenseIndexData {
    return { ids: [...this.ids], vectors: this.vectors.slice(0, this.ids.length * this.dimension) };
  }

  /** The row of `id`'s vector: the one it has, or a new one at the end. */
  private rowFor(id: string): number {
    let row = this.rows.get(id);
    if (row === undefined) {
      row = this.ids.length;
      this.reserve(row + 1);
      this.ids.push(id);
      this.rows.set(id, row);
    }
    return row;
  }

  private checkDimension(vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new RangeError(`expected a vector of ${this.dimension} dimensions, got ${vector.length}`);
  }

  private checkLength(data: DenseIndexData): void {
    if (data.vectors.length !== data.ids.length * this.dimension) {
      throw new RangeError(`${data.ids.length} vectors of ${this.dimension} dimensions need ${data.ids.length * this.dimension} floats, not ${data.vectors.length}`);
    }
  }

  /** Room for `rows` vectors, doubling so that adding one at a time stays linear overall. */
  private reserve(rows: number): void {
    const needed = rows * this.dimension;
    if (needed <= this.vectors.length) return;
    const larger = new Float32Array(Math.max(needed, this.vectors.length * 2));
    larger.set(this.vectors);
    this.vectors = larger;
  }
}

function lengthOf(vector: Float32Array): number {
  let sum = 0;
  for (const x of vector) sum += x * x;
  return Math.sqrt(sum);
}
