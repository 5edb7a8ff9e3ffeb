/**
 * An inverted index with BM25 ranking over documents of a few weighted fields, each given as the
 * list of its terms.
 *
 *   const index = new Bm25Index({ k1: 1.2, b: 0.7, fieldWeights: [0.2, 1] });
 *   index.add('w1', [titleTerms, textTerms]);
 *   index.search(new Map([['aspirin', 1]]), 10)     // [{ id: 'w1', score: 3.1 }]
 *
 * A document's score is the weighted sum of its fields' BM25 scores (Lucene's idf, no BM25+ floor).
 * A term's postings are one array of numbers, each a document and the term's frequency in it, scored
 * term at a time into one reused accumulator. MiniSearch, which builds a result object for every
 * matching document, took 0.3–1 s a query at 100,000 abstracts and about four times the memory;
 * this takes milliseconds.
 */
import { termFrequencies } from './analyzer';

export interface Bm25Settings {
  /** Term-frequency saturation. */
  readonly k1: number;
  /** How much a long field is discounted, 0 (not at all) to 1 (in full proportion to its length). */
  readonly b: number;
  /** One weight per field, in the order documents give their fields. */
  readonly fieldWeights: readonly number[];
}

export interface Bm25Hit {
  readonly id: string;
  readonly score: number;
}

/** A plain-JSON form of the index, without removed documents. */
export interface Bm25IndexData {
  readonly ids: readonly string[];
  readonly fields: readonly Bm25FieldData[];
}

export interface Bm25FieldData {
  /** Each document's length in terms, by position in `ids`. */
  readonly lengths: readonly number[];
  /** Term → postings (see `posting`), the documents' positions in `ids` ascending. */
  readonly postings: Readonly<Record<string, readonly number[]>>;
}

/**
 * A document and a term's frequency in it, as one number: half the memory of two. Frequencies stop
 * at 255, far past where BM25 stops telling them apart.
 */
const FREQUENCY_LIMIT = 256;

function posting(doc: number, frequency: number): number {
  return doc * FREQUENCY_LIMIT + Math.min(frequency, FREQUENCY_LIMIT - 1);
}

function docOf(posting: number): number {
  return Math.floor(posting / FREQUENCY_LIMIT);
}

interface Field {
  /** Term → postings, doc numbers ascending because documents are only ever appended. */
  readonly postings: Map<string, number[]>;
  /** By doc number; 0 for removed documents. */
  readonly lengths: number[];
  totalLength: number;
}

export class Bm25Index {
  /** By doc number; undefined where a document was removed. Numbers are never reused. */
  private readonly ids: (string | undefined)[] = [];
  private readonly docs = new Map<string, number>();
  private readonly fields: Field[];
  private searcher: Bm25Searcher | undefined;

  constructor(private readonly settings: Bm25Settings) {
    this.fields = settings.fieldWeights.map(() => ({ postings: new Map(), lengths: [], totalLength: 0 }));
  }

  static fromJSON(data: Bm25IndexData, settings: Bm25Settings): Bm25Index {
    if (data.fields.length !== settings.fieldWeights.length) {
      throw new Error(`The index has ${data.fields.length} fields; these settings weigh ${settings.fieldWeights.length}.`);
    }
    const index = new Bm25Index(settings);
    data.ids.forEach((id, doc) => {
      index.ids.push(id);
      index.docs.set(id, doc);
    });
    data.fields.forEach((stored, f) => {
      const field = index.fields[f];
      // One push per length: spreading a million arguments overflows the stack.
      for (const length of stored.lengths) field.lengths.push(length);
      field.totalLength = stored.lengths.reduce((sum, length) => sum + length, 0);
      for (const [term, list] of Object.entries(stored.postings)) field.postings.set(term, [...list]);
    });
    return index;
  }

  get size(): number {
    return this.docs.size;
  }

  has(id: string): boolean {
    return this.docs.has(id);
  }

  /** Adds a document, replacing the one with the same id. `fields` holds each field's terms. */
  add(id: string, fields: readonly (readonly string[])[]): void {
    if (fields.length !== this.fields.length) throw new Error(`Expected ${this.fields.length} fields, got ${fields.length}.`);
    this.remove(id);
    const doc = this.ids.length;
    this.ids.push(id);
    this.docs.set(id, doc);
    fields.forEach((terms, f) => {
      const field = this.fields[f];
      field.lengths.push(terms.length);
      field.totalLength += terms.length;
      for (const [term, frequency] of termFrequencies(terms)) {
        const list = field.postings.get(term);
        if (list === undefined) field.postings.set(term, [posting(doc, frequency)]);
        else list.push(posting(doc, frequency));
      }
    });
  }

  /**
   * Removes a document, so that it neither ranks nor counts in term statistics. Looks the document up
   * in every posting list rather than keeping each document's terms, which would cost more memory than
   * the postings themselves; removal is rare next to search.
   */
  remove(id: string): boolean {
    const doc = this.docs.get(id);
    if (doc === undefined) return false;
    this.docs.delete(id);
    this.ids[doc] = undefined;
    for (const field of this.fields) {
      field.totalLength -= field.lengths[doc];
      field.lengths[doc] = 0;
      for (const [term, list] of field.postings) {
        const at = findDoc(list, doc);
        if (at < 0) continue;
        if (list.length === 1) field.postings.delete(term);
        else list.splice(at, 1);
      }
    }
    return true;
  }

  /** Inverse document frequency of a term in one field: high for rare terms, near 0 for common ones. */
  idf(term: string, field: number): number {
    return partsIdf([this.asPart()], term, field);
  }

  /** The `limit` best documents for query terms weighted by how often the query says them. */
  search(query: ReadonlyMap<string, number>, limit: number): Bm25Hit[] {
    this.searcher ??= new Bm25Searcher(this.settings);
    return this.searcher.search([this.asPart()], query, limit).map(({ doc, score }) => ({ id: this.ids[doc] as string, score }));
  }

  /** The index as one part of a search: removed documents have no postings, so none is dead. */
  asPart(): Bm25Part {
    const { fields } = this;
    return {
      rows: this.ids.length,
      live: this.docs.size,
      totalLengths: fields.map((field) => field.totalLength),
      lengths: (field) => fields[field].lengths,
      postings: (term, field) => fields[field].postings.get(term),
    };
  }

  /** The id of each doc number; undefined where a document was removed. */
  idAt(doc: number): string | undefined {
    return this.ids[doc];
  }

  /** Every term of every field. */
  *terms(): IterableIterator<string> {
    const seen = new Set<string>();
    for (const field of this.fields) {
      for (const term of field.postings.keys()) {
        if (seen.has(term)) continue;
        seen.add(term);
        yield term;
      }
    }
  }

  /** Renumbers documents densely, so removed documents leave nothing behind. */
  toJSON(): Bm25IndexData {
    const renumbered = new Int32Array(this.ids.length).fill(-1);
    const ids: string[] = [];
    this.ids.forEach((id, doc) => {
      if (id === undefined) return;
      renumbered[doc] = ids.length;
      ids.push(id);
    });
    const fields = this.fields.map((field) => {
      const postings: Record<string, number[]> = {};
      for (const [term, list] of field.postings) {
        postings[term] = list.map((entry) => posting(renumbered[docOf(entry)], entry % FREQUENCY_LIMIT));
      }
      return { lengths: field.lengths.filter((_, doc) => renumbered[doc] >= 0), postings };
    });
    return { ids, fields };
  }
}

/**
 * Documents a search reads: an index in memory, or a segment of the paper library on disk. Postings
 * are `posting` numbers, doc numbers ascending, each doc a row of the part.
 */
export interface Bm25Part {
  /** Doc numbers run from 0 to `rows` − 1. */
  readonly rows: number;
  /** Docs whose postings do not count (a later part holds their document again); absent when all count. */
  readonly dead?: Uint8Array;
  /** How many documents count. */
  readonly live: number;
  /** Each field's length summed over the documents that count. */
  readonly totalLengths: readonly number[];
  lengths(field: number): ArrayLike<number>;
  postings(term: string, field: number): ArrayLike<number> | undefined;
}

/** A document of a search over parts: its part's position in the list, and its doc number there. */
export interface PartHit {
  readonly part: number;
  readonly doc: number;
  readonly score: number;
}

/**
 * BM25 over parts as if they were one index: a term's document frequency, the document count and
 * the average lengths are those of the documents that count in all of them, so the scores are those
 * one index of the same documents, added in the same order, gives.
 */
export class Bm25Searcher {
  /** Scores of the query being ranked, by position across the parts; all zero between searches. */
  private scores = new Float64Array(0);
  /**
   * The positions the query being ranked has scored, in the order first scored, as long as `scores`:
   * reused by every search, where a list grown per search was a large part of the collector's work.
   */
  private touched = new Uint32Array(0);
  private readonly best = new BestDocs();

  constructor(private readonly settings: Bm25Settings) {}

  search(parts: readonly Bm25Part[], query: ReadonlyMap<string, number>, limit: number): PartHit[] {
    const bases: number[] = [];
    let rows = 0;
    for (const part of parts) {
      bases.push(rows);
      rows += part.rows;
    }
    if (this.scores.length < rows) {
      this.scores = new Float64Array(rows * 2);
      this.touched = new Uint32Array(rows * 2);
    }
    const { scores, touched } = this;
    let scored = 0;
    const { k1, b, fieldWeights } = this.settings;
    const count = parts.reduce((sum, part) => sum + part.live, 0);
    fieldWeights.forEach((fieldWeight, f) => {
      const totalLength = parts.reduce((sum, part) => sum + part.totalLengths[f], 0);
      if (totalLength === 0) return;
      // BM25's length normalisation k1·(1 − b + b·length/average), split into a constant and a slope.
      const base = k1 * (1 - b);
      const slope = (k1 * b * count) / totalLength;
      for (const [term, queryWeight] of query) {
        const lists = parts.map((part) => part.postings(term, f));
        const frequency = documentFrequency(parts, lists);
        if (frequency === 0) continue;
        const weight = queryWeight * fieldWeight * idf(frequency, count) * (k1 + 1);
        if (!(weight > 0)) continue;
        lists.forEach((list, p) => {
          if (list !== undefined) scored = accumulate(list, parts[p].dead, parts[p].lengths(f), bases[p], scores, touched, scored, { weight, base, slope });
        });
      }
    });
    const best = this.best.of(touched, scored, scores, limit, (doc, score) => {
      let p = parts.length - 1;
      while (bases[p] > doc) p--;
      return { part: p, doc: doc - bases[p], score };
    });
    for (let i = 0; i < scored; i++) scores[touched[i]] = 0;
    return best;
  }
}

/** A term's BM25 weight in one field and that field's length normalisation, `base + slope · length`. */
interface TermScoring {
  readonly weight: number;
  readonly base: number;
  readonly slope: number;
}

/**
 * Adds one posting list's contributions to `scores` from `offset` on, noting each document scored
 * for the first time in `touched` after the `scored` already there; returns how many it now holds.
 * A function of its own, so that V8 optimises the loop that most of a search's time goes to by
 * itself: written inline it took a fifth longer (100,000 papers).
 */
function accumulate(
  list: ArrayLike<number>,
  dead: Uint8Array | undefined,
  lengths: ArrayLike<number>,
  offset: number,
  scores: Float64Array,
  touched: Uint32Array,
  scored: number,
  { weight, base, slope }: TermScoring,
): number {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i];
    const tf = entry % FREQUENCY_LIMIT;
    const doc = (entry - tf) / FREQUENCY_LIMIT;
    if (dead !== undefined && dead[doc]) continue;
    const at = offset + doc;
    const before = scores[at];
    // Every contribution is positive, so a zero score means the document is not touched yet.
    if (before === 0) touched[scored++] = at;
    scores[at] = before + (weight * tf) / (tf + base + slope * lengths[doc]);
  }
  return scored;
}

/** Inverse document frequency of a term in one field over parts (see `Bm25Searcher`). */
export function partsIdf(parts: readonly Bm25Part[], term: string, field: number): number {
  const frequency = documentFrequency(
    parts,
    parts.map((part) => part.postings(term, field)),
  );
  return frequency === 0
    ? 0
    : idf(
        frequency,
        parts.reduce((sum, part) => sum + part.live, 0),
      );
}

function documentFrequency(parts: readonly Bm25Part[], lists: readonly (ArrayLike<number> | undefined)[]): number {
  let frequency = 0;
  lists.forEach((list, p) => {
    if (list === undefined) return;
    const { dead } = parts[p];
    if (dead === undefined) frequency += list.length;
    else for (let i = 0; i < list.length; i++) if (!dead[docOf(list[i])]) frequency++;
  });
  return frequency;
}

function idf(documentFrequency: number, documentCount: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** Index of `doc`'s posting in a list sorted by doc, or -1. */
function findDoc(list: readonly number[], doc: number): number {
  let low = 0;
  let high = list.length - 1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const found = docOf(list[mid]);
    if (found === doc) return mid;
    if (found < doc) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/**
 * The highest-scoring documents of a search, best first; ties go to the earlier-added document so a
 * ranking never depends on the order postings were visited. A min-heap of the best so far, in typed
 * arrays kept from one search to the next, keeps this linear in the number of matching documents and
 * makes an object only for each document returned: one per matching document, most of which could
 * never enter the heap, was a tenth of a search at 100,000 papers and much of its garbage.
 */
class BestDocs {
  private docs = new Uint32Array(0);
  private scores = new Float64Array(0);
  private size = 0;

  /** The `limit` best of the first `count` documents of `candidates`, each made into a hit by `hit`. */
  of<Hit>(candidates: Uint32Array, count: number, scores: Float64Array, limit: number, hit: (doc: number, score: number) => Hit): Hit[] {
    const capacity = limit > 0 ? Math.min(count, Math.ceil(limit)) : 0;
    if (this.docs.length < capacity) {
      this.docs = new Uint32Array(capacity);
      this.scores = new Float64Array(capacity);
    }
    this.size = 0;
    for (let i = 0; i < count; i++) {
      const doc = candidates[i];
      const score = scores[doc];
      if (this.size < capacity) this.push(doc, score);
      else if (capacity > 0 && this.beats(doc, score, 0)) this.replaceWorst(doc, score);
    }
    // Taking the worst off the heap until it is empty lists the documents worst first.
    const best = new Array<Hit>(this.size);
    for (let at = this.size - 1; at >= 0; at--) {
      best[at] = hit(this.docs[0], this.scores[0]);
      this.size--;
      this.replaceWorst(this.docs[this.size], this.scores[this.size]);
    }
    return best;
  }

  /** Whether `doc` scoring `score` ranks above the document at `at` in the heap. */
  private beats(doc: number, score: number, at: number): boolean {
    const other = this.scores[at];
    return score > other || (score === other && doc < this.docs[at]);
  }

  private push(doc: number, score: number): void {
    let at = this.size++;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (this.beats(doc, score, parent)) break;
      this.docs[at] = this.docs[parent];
      this.scores[at] = this.scores[parent];
      at = parent;
    }
    this.docs[at] = doc;
    this.scores[at] = score;
  }

  /** Puts `doc` where the worst document of the heap was, and sifts it down to its place. */
  private replaceWorst(doc: number, score: number): void {
    const size = this.size;
    let at = 0;
    for (;;) {
      const left = at * 2 + 1;
      if (left >= size) break;
      const right = left + 1;
      const worse = right < size && this.beats(this.docs[left], this.scores[left], right) ? right : left;
      if (!this.beats(doc, score, worse)) break;
      this.docs[at] = this.docs[worse];
      this.scores[at] = this.scores[worse];
      at = worse;
    }
    this.docs[at] = doc;
    this.scores[at] = score;
  }
}
