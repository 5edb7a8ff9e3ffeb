/**
 * The dense side of retrieval: papers as unit vectors of a sentence encoder, ranked by cosine
 * similarity to the query's vector.
 *
 *   const index = new DenseIndex(384);
 *   index.add('doi:10.1/x', vector);        // again with the same id replaces it
 *   index.search(queryVector, 100)          // [{ id, score }], best first; score is the cosine
 *
 * Brute force over one Float32Array: every search reads every vector. At 100,000 papers of 384
 * dimensions that is 150 MB scanned in 30–40 ms a query on one core (bench/retrieval.bench.ts),
 * well inside Find Evidence's budget; an approximate index would only pay off an order of magnitude
 * later, at the cost of recall.
 */

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
  /** Row-major, `dimension` floats a paper; room beyond `ids.length` rows is spare capacity. */
  private matrix: Float32Array;
  private readonly ids: string[] = [];
  private readonly rows = new Map<string, number>();

  constructor(readonly dimension: number) {
    if (!Number.isInteger(dimension) || dimension < 1) throw new RangeError(`a vector dimension must be a positive integer, not ${dimension}`);
    this.matrix = new Float32Array(dimension * 16);
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
    return row === undefined ? undefined : this.matrix.slice(row * this.dimension, (row + 1) * this.dimension);
  }

  /** Adds a paper's vector, scaled to unit length, replacing the one it had. */
  add(id: string, vector: Float32Array): void {
    this.checkDimension(vector);
    let row = this.rows.get(id);
    if (row === undefined) {
      row = this.ids.length;
      this.reserve(row + 1);
      this.ids.push(id);
      this.rows.set(id, row);
    }
    const norm = lengthOf(vector) || 1;
    const offset = row * this.dimension;
    for (let d = 0; d < this.dimension; d++) this.matrix[offset + d] = vector[d] / norm;
  }

  /** Adds unit vectors in bulk, as `toData` gives them; a repeated id keeps its last vector. */
  addAll(data: DenseIndexData): void {
    if (data.vectors.length !== data.ids.length * this.dimension) {
      throw new RangeError(`${data.ids.length} vectors of ${this.dimension} dimensions need ${data.ids.length * this.dimension} floats, not ${data.vectors.length}`);
    }
    this.reserve(this.ids.length + data.ids.length);
    data.ids.forEach((id, at) => {
      let row = this.rows.get(id);
      if (row === undefined) {
        row = this.ids.length;
        this.ids.push(id);
        this.rows.set(id, row);
      }
      this.matrix.set(data.vectors.subarray(at * this.dimension, (at + 1) * this.dimension), row * this.dimension);
    });
  }

  /** The `limit` papers nearest the query by cosine, best first; ties go to the paper added first. */
  search(query: Float32Array, limit: number): DenseHit[] {
    this.checkDimension(query);
    const norm = lengthOf(query) || 1;
    const q = query.map((x) => x / norm);
    const { matrix, dimension } = this;
    const best = new TopK(limit);
    const unrolled = dimension - (dimension % 4);
    for (let row = 0, offset = 0; row < this.ids.length; row++, offset += dimension) {
      // Four running sums let the CPU overlap the multiply-adds: a third less time than one sum.
      let a = 0;
      let b = 0;
      let c = 0;
      let e = 0;
      let d = 0;
      for (; d < unrolled; d += 4) {
        a += q[d] * matrix[offset + d];
        b += q[d + 1] * matrix[offset + d + 1];
        c += q[d + 2] * matrix[offset + d + 2];
        e += q[d + 3] * matrix[offset + d + 3];
      }
      for (; d < dimension; d++) a += q[d] * matrix[offset + d];
      best.offer(row, a + b + c + e);
    }
    return best.sorted().map(({ row, score }) => ({ id: this.ids[row], score }));
  }

  /** A copy, so later additions never change what a save is writing. */
  toData(): DenseIndexData {
    return { ids: [...this.ids], vectors: this.matrix.slice(0, this.ids.length * this.dimension) };
  }

  private checkDimension(vector: Float32Array): void {
    if (vector.length !== this.dimension) throw new RangeError(`expected a vector of ${this.dimension} dimensions, got ${vector.length}`);
  }

  /** Room for `rows` vectors, doubling so that adding one at a time stays linear overall. */
  private reserve(rows: number): void {
    if (rows * this.dimension <= this.matrix.length) return;
    const larger = new Float32Array(Math.max(rows * this.dimension, this.matrix.length * 2));
    larger.set(this.matrix);
    this.matrix = larger;
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
