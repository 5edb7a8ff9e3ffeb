/**
 * The dense side of retrieval: papers as unit vectors of a sentence encoder, ranked by cosine
 * similarity to the query's vector.
 *
 *   const index = new DenseIndex(384);
 *   index.add('doi:10.1/x', vector);        // again with the same id replaces it
 *   await index.search(queryVector, 100)    // [{ id, score }], best first; score is the cosine
 *
 * Brute force: every search scores every vector, exactly, as one matrix product in ONNX Runtime
 * (scoring.ts). The vectors are kept in blocks laid out for that product; at 100,000 papers of 384
 * dimensions a search takes about 10 ms on two cores, so an approximate index, and the recall it
 * costs, would only pay off an order of magnitude later.
 */
import { blockScores } from './scoring';

export interface DenseHit {
  readonly id: string;
  readonly score: number;
}

/** The vectors row by row, in the order of `ids`. */
export interface DenseIndexData {
  readonly ids: readonly string[];
  readonly vectors: Float32Array;
}

/**
 * Papers a block holds. Blocks of 1,024 to 8,192 papers score 100,000 papers alike (8–11 ms on two
 * shared cores), blocks of 256 take half as long again; a small block keeps the spare room small.
 */
const BLOCK_ROWS = 2048;

export class DenseIndex {
  /**
   * Block after block of BLOCK_ROWS papers, each block dimension-major: the first dimension of its
   * papers' vectors, then the second, and so on, as the scoring product reads them. Blocks beyond
   * those `ids` reach are spare capacity.
   */
  private blocks: Float32Array;
  private readonly ids: string[] = [];
  private readonly rows = new Map<string, number>();

  constructor(readonly dimension: number) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`a vector dimension must be a positive integer, not ${dimension}`);
    // Room is made at the first vector: an index that stays empty costs nothing.
    this.blocks = new Float32Array(0);
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
    if (row === undefined) return undefined;
    const vector = new Float32Array(this.dimension);
    this.copyRow(row, vector, 0);
    return vector;
  }

  /** Adds a paper's vector, scaled to unit length, replacing the one it had. */
  add(id: string, vector: Float32Array): void {
    this.checkDimension(vector);
    const norm = lengthOf(vector) || 1;
    this.put(id, vector, 0, 1 / norm);
  }

  /** Adds unit vectors in bulk, as `toData` gives them; a repeated id keeps its last vector. */
  addAll(data: DenseIndexData): void {
    if (data.vectors.length !== data.ids.length * this.dimension) {
      throw new RangeError(`${data.ids.length} vectors of ${this.dimension} dimensions need ${data.ids.length * this.dimension} floats, not ${data.vectors.length}`);
    }
    this.reserve(this.ids.length + data.ids.length);
    data.ids.forEach((id, at) => this.put(id, data.vectors, at * this.dimension, 1));
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
    const blockCount = Math.ceil(count / BLOCK_ROWS);
    const scores = await blockScores(query.map((x) => x / norm), this.blocks.subarray(0, blockCount * this.blockSize), blockCount, BLOCK_ROWS);
    // A row's slot in the product's output is the row's number: blocks are filled in order.
    const best = new TopK(limit);
    for (let row = 0; row < count; row++) best.offer(row, scores[row]);
    const ids = this.ids;
    return best.sorted().map(({ row, score }) => ({ id: ids[row], score }));
  }

  /** Row by row, a copy, so later additions never change what a save is writing. */
  toData(): DenseIndexData {
    const vectors = new Float32Array(this.ids.length * this.dimension);
    for (let row = 0; row < this.ids.length; row++) this.copyRow(row, vectors, row * this.dimension);
    return { ids: [...this.ids], vectors };
  }

  private get blockSize(): number {
    return this.dimension * BLOCK_ROWS;
  }

  /** Where the row's first dimension is kept; its d-th is BLOCK_ROWS · d further on. */
  private slot(row: number): number {
    return Math.floor(row / BLOCK_ROWS) * this.blockSize + (row % BLOCK_ROWS);
  }

  /** Copies the row's vector into `target` from `from` on. */
  private copyRow(row: number, target: Float32Array, from: number): void {
    const at = this.slot(row);
    for (let d = 0; d < this.dimension; d++) target[from + d] = this.blocks[at + d * BLOCK_ROWS];
  }

  /** Writes `source[from … from + dimension)` times `scale` as the paper's vector. */
  private put(id: string, source: Float32Array, from: number, scale: number): void {
    let row = this.rows.get(id);
    if (row === undefined) {
      row = this.ids.length;
      this.reserve(row + 1);
      this.ids.push(id);
      this.rows.set(id, row);
    }
    const at = this.slot(row);
    for (let d = 0; d < this.dimension; d++) this.blocks[at + d * BLOCK_ROWS] = source[from + d] * scale;
  }

  private checkDimension(vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new RangeError(`expected a vector of ${this.dimension} dimensions, got ${vector.length}`);
  }

  /** Room for `rows` vectors, doubling the blocks so that adding one at a time stays linear overall. */
  private reserve(rows: number): void {
    const needed = Math.ceil(rows / BLOCK_ROWS) * this.blockSize;
    if (needed <= this.blocks.length) return;
    const larger = new Float32Array(Math.max(needed, this.blocks.length * 2));
    larger.set(this.blocks);
    this.blocks = larger;
  }
}

function lengthOf(vector: Float32Array): number {
  let sum = 0;
  for (const x of vector) sum += x * x;
  return Math.sqrt(sum);
}

interface Scored {
  readonly row: number;
  readonly score: number;
}

/** The best `limit` rows seen, kept in a min-heap so each offer costs at most log(limit). */
class TopK {
  private readonly heap: Scored[] = [];

  constructor(private readonly limit: number) {}

  offer(row: number, score: number): void {
    const { heap } = this;
    if (heap.length < this.limit) {
      heap.push({ row, score });
      this.siftUp(heap.length - 1);
    } else if (this.limit > 0 && score > heap[0].score) {
      // Rows come in ascending order, so an equal score never displaces an earlier row.
      heap[0] = { row, score };
      this.siftDown(0);
    }
  }

  sorted(): Scored[] {
    return [...this.heap].sort((a, b) => b.score - a.score || a.row - b.row);
  }

  private worse(a: Scored, b: Scored): boolean {
    return a.score < b.score || (a.score === b.score && a.row > b.row);
  }

  private siftUp(at: number): void {
    const { heap } = this;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!this.worse(heap[at], heap[parent])) return;
      [heap[at], heap[parent]] = [heap[parent], heap[at]];
      at = parent;
    }
  }

  private siftDown(at: number): void {
    const { heap } = this;
    for (;;) {
      const left = at * 2 + 1;
      let worst = at;
      if (left < heap.length && this.worse(heap[left], heap[worst])) worst = left;
      if (left + 1 < heap.length && this.worse(heap[left + 1], heap[worst])) worst = left + 1;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst], heap[at]];
      at = worst;
    }
  }
}
