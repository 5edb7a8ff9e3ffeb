/**
 * The words of DBLP's titles, indexed on disk so that a title finds its publications with a few small
 * reads and little memory: about seven million titles, where the paper library's segments
 * (`index/segment.ts`, `index/store/`) hold every paper's id, line offset and field lengths in memory
 * (some 60–80 bytes a paper: half a gigabyte at DBLP's size, in the editor's process) and score into
 * an array as long as the collection. Terms are those of the library's analyser (`index/analyzer.ts`),
 * so a title is read the same way everywhere.
 *
 * The index is written in runs, each of the titles that came while its postings stayed under
 * `RUN_POSTINGS`, so building it never holds more than one run in memory. Each run, in the file one
 * after another:
 *
 *   terms      each term and a line feed, sorted (JavaScript's string order)
 *   samples    every `BLOCK`th term, one a line: the only terms held in memory
 *   blocks     uint32 × (blocks + 1): where each block of `BLOCK` terms starts in `terms`, and its end
 *   table      uint32 × (terms + 1): where each term's postings start in `postings`, and their end
 *   postings   uint32 doc numbers, ascending, term after term
 *
 * A term is found by halves among the samples in memory, then in its block read from the file; its
 * postings are the runs' lists one after the other, in doc order since runs are.
 */
import { readSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { analyze } from '../../index/analyzer';
import { doubled } from '../../text/doubled';

/** Terms per block: a block read is a few hundred bytes to a few kilobytes. */
const BLOCK = 64;
/** Postings per run: the words of about half a million titles. */
const RUN_POSTINGS = 4_000_000;
/**
 * A record whose title holds less than this share of the query's weight (idf) is no candidate: the
 * title of the work cited holds nearly all of it, and a lower bar only makes the search read longer
 * lists. The terms that must be read to find every such record are then the rarest, whose weight
 * sums past the rest.
 */
const LEAST_SHARE = 0.5;
/** Per title word the query lacks: a longer title that holds the query's words ranks below the title itself. */
const EXTRA_WORD_COST = 0.01;
const LITTLE_ENDIAN = endianness() === 'LE';

/** Where one run's sections are in the index file, as the manifest records them. */
export interface RunPlace {
  readonly terms: number;
  readonly termsAt: number;
  readonly termsBytes: number;
  readonly samplesAt: number;
  readonly samplesBytes: number;
  readonly blocksAt: number;
  readonly tableAt: number;
  readonly postingsAt: number;
  readonly postings: number;
}

/** A title's terms, as indexed and searched. */
export function titleTerms(title: string): string[] {
  return analyze(title);
}

/**
 * Builds the runs into `file` from its current end, a title at a time in doc order. A run in memory is
 * its terms' numbers and a pair of typed arrays, (term, doc) for each posting, sorted by term when it
 * is written: some 8 bytes a posting, where a list per term took several times that.
 */
export class TitleIndexWriter {
  private terms = new Map<string, number>();
  private termOf: Uint32Array = new Uint32Array(1 << 16);
  private docOf: Uint32Array = new Uint32Array(1 << 16);
  private postings = 0;
  private readonly runs: RunPlace[] = [];

  constructor(
    private readonly file: FileHandle,
    private at = 0,
  ) {}

  /** Indexes the title terms of doc `doc`; docs come in ascending order. */
  add(doc: number, terms: readonly string[]): void {
    for (const term of new Set(terms)) {
      let id = this.terms.get(term);
      if (id === undefined) this.terms.set(term, (id = this.terms.size));
      if (this.postings === this.termOf.length) {
        this.termOf = doubled(this.termOf);
        this.docOf = doubled(this.docOf);
      }
      this.termOf[this.postings] = id;
      this.docOf[this.postings++] = doc;
    }
  }

  /** Whether the run in memory is due to be written. */
  get full(): boolean {
    return this.postings >= RUN_POSTINGS;
  }

  /** Writes the run in memory, if it holds anything. */
  async flush(): Promise<void> {
    if (this.terms.size === 0) return;
    const terms = [...this.terms.keys()].sort();
    const termsText = Buffer.from(terms.map((term) => `${term}\n`).join(''));
    const blocks = new Uint32Array(Math.ceil(terms.length / BLOCK) + 1);
    const samples: string[] = [];
    // Each term's postings start where the terms before it in order end: counted, then placed, docs staying ascending.
    const table = new Uint32Array(terms.length + 1);
    const rank = new Uint32Array(terms.length);
    let byte = 0;
    terms.forEach((term, t) => {
      if (t % BLOCK === 0) {
        blocks[t / BLOCK] = byte;
        samples.push(term);
      }
      byte += Buffer.byteLength(term) + 1;
      rank[this.terms.get(term) as number] = t;
    });
    blocks[blocks.length - 1] = byte;
    for (let p = 0; p < this.postings; p++) table[rank[this.termOf[p]] + 1]++;
    for (let t = 0; t < terms.length; t++) table[t + 1] += table[t];
    const next = table.slice(0, terms.length);
    const postings = new Uint32Array(this.postings);
    for (let p = 0; p < this.postings; p++) postings[next[rank[this.termOf[p]]]++] = this.docOf[p];
    const samplesText = Buffer.from(samples.join('\n'));
    const sections = [termsText, samplesText, bytesOf(blocks), bytesOf(table), bytesOf(postings)];
    const starts: number[] = [];
    for (const section of sections) {
      starts.push(this.at);
      await this.file.write(section, 0, section.length, this.at);
      this.at += section.length;
    }
    this.runs.push({
      terms: terms.length,
      termsAt: starts[0],
      termsBytes: termsText.length,
      samplesAt: starts[1],
      samplesBytes: samplesText.length,
      blocksAt: starts[2],
      tableAt: starts[3],
      postingsAt: starts[4],
      postings: postings.length,
    });
    this.terms = new Map();
    this.postings = 0;
  }

  /** Writes what is left; returns every run's place and the file's length. */
  async finish(): Promise<{ runs: readonly RunPlace[]; bytes: number }> {
    await this.flush();
    return { runs: this.runs, bytes: this.at };
  }
}

/** A run open for searching: its samples and block starts in memory, the rest read as needed. */
interface OpenRun {
  readonly place: RunPlace;
  readonly samples: readonly string[];
  readonly blocks: Uint32Array;
}

/** Thrown when the index file disagrees with its manifest: the index is built again. */
export class DamagedIndex extends Error {}

/** The titles' index, open on a file descriptor the caller keeps open. */
export class TitleIndex {
  private constructor(
    private readonly fd: number,
    private readonly runs: readonly OpenRun[],
    /** Each title's length in terms, at most 255, by doc number. */
    private readonly lengths: Uint8Array,
  ) {}

  static open(fd: number, runs: readonly RunPlace[], lengths: Uint8Array): TitleIndex {
    const open = runs.map((place): OpenRun => {
      const samples =
        place.samplesBytes === 0
          ? []
          : Buffer.from(readAt(fd, place.samplesBytes, place.samplesAt))
              .toString('utf8')
              .split('\n');
      const blocks = uint32s(readAt(fd, (Math.ceil(place.terms / BLOCK) + 1) * 4, place.blocksAt));
      if (samples.length !== blocks.length - 1 || blocks[blocks.length - 1] !== place.termsBytes) throw new DamagedIndex('a run of the title index does not match its manifest');
      return { place, samples, blocks };
    });
    return new TitleIndex(fd, open, lengths);
  }

  /**
   * The docs whose titles best match `title`, best first, at most `limit`: those holding at least
   * half the query's weight, by the share they hold, less a little for each word they have beyond it.
   */
  search(title: string, limit: number): number[] {
    const written = titleTerms(title);
    const query = [...new Set(written)];
    if (query.length === 0 || limit <= 0) return [];
    const count = this.lengths.length;
    const terms = query.map((term) => {
      const lists = this.runs.map((run) => this.postings(run, term)).filter((list): list is Uint32Array => list !== undefined);
      const frequency = lists.reduce((sum, list) => sum + list.length, 0);
      return { lists, frequency, weight: Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5)) };
    });
    const total = terms.reduce((sum, term) => sum + term.weight, 0);
    const present = terms.filter((term) => term.frequency > 0).sort((a, b) => a.frequency - b.frequency);
    const held = present.reduce((sum, term) => sum + term.weight, 0);
    // A record without any of the rarest terms read holds at most the weight of the others: read until that is too little.
    const needed: Uint32Array[] = [];
    let weight = 0;
    for (const term of present) {
      if (held - weight < LEAST_SHARE * total) break;
      needed.push(...term.lists);
      weight += term.weight;
    }
    const candidates = union(needed);
    const scores = new Float64Array(candidates.length);
    for (const term of present) for (const list of term.lists) addWhereHeld(list, candidates, scores, term.weight);
    return best(candidates, scores, limit, (doc, score) => {
      const share = score / total;
      return share < LEAST_SHARE ? undefined : share - EXTRA_WORD_COST * Math.max(0, this.lengths[doc] - written.length);
    });
  }

  /** A term's postings in one run, read from the file; undefined where the run lacks it. */
  private postings(run: OpenRun, term: string): Uint32Array | undefined {
    const block = lastAtMost(run.samples, term);
    if (block < 0) return undefined;
    const { place, blocks } = run;
    const text = Buffer.from(readAt(this.fd, blocks[block + 1] - blocks[block], place.termsAt + blocks[block])).toString('utf8');
    const at = text.split('\n').indexOf(term);
    if (at < 0) return undefined;
    const t = block * BLOCK + at;
    if (t >= place.terms) throw new DamagedIndex('a term of the title index is past its table');
    const [start, end] = uint32s(readAt(this.fd, 8, place.tableAt + t * 4));
    if (end < start || end > place.postings) throw new DamagedIndex('the title index points past its postings');
    return end === start ? undefined : uint32s(readAt(this.fd, (end - start) * 4, place.postingsAt + start * 4));
  }
}

/** The position of the last of the sorted `samples` not after `term`; -1 when all are after it. */
function lastAtMost(samples: readonly string[], term: string): number {
  let low = 0;
  let high = samples.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (samples[middle] <= term) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found;
}

/** The sorted doc numbers of all the sorted lists, each once. */
function union(lists: readonly Uint32Array[]): Uint32Array {
  if (lists.length === 1) return lists[0];
  const all = new Uint32Array(lists.reduce((sum, list) => sum + list.length, 0));
  let at = 0;
  for (const list of lists) {
    all.set(list, at);
    at += list.length;
  }
  all.sort();
  let kept = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[kept++] = all[i];
  return all.subarray(0, kept);
}

/** Adds `weight` to the score of each candidate the sorted `list` holds: one walk along both. */
function addWhereHeld(list: Uint32Array, candidates: Uint32Array, scores: Float64Array, weight: number): void {
  if (list.length === 0) return;
  let i = 0;
  // A run's list covers its own docs only: start at the first candidate it can hold.
  let j = 0;
  for (let high = candidates.length; j < high;) {
    const middle = (j + high) >>> 1;
    if (candidates[middle] < list[0]) j = middle + 1;
    else high = middle;
  }
  while (i < list.length && j < candidates.length) {
    if (list[i] < candidates[j]) i++;
    else if (list[i] > candidates[j]) j++;
    else {
      scores[j] += weight;
      i++;
      j++;
    }
  }
}

/** The `limit` candidates of highest rank, best first; ties to the lower doc number. `rank` leaves out a candidate by giving undefined. */
function best(candidates: Uint32Array, scores: Float64Array, limit: number, rank: (doc: number, score: number) => number | undefined): number[] {
  const kept: { doc: number; rank: number }[] = [];
  for (let j = 0; j < candidates.length; j++) {
    const value = rank(candidates[j], scores[j]);
    if (value === undefined || (kept.length === limit && value <= kept[kept.length - 1].rank)) continue;
    let at = kept.length;
    while (at > 0 && kept[at - 1].rank < value) at--;
    kept.splice(at, 0, { doc: candidates[j], rank: value });
    if (kept.length > limit) kept.pop();
  }
  return kept.map((entry) => entry.doc);
}

/** `length` bytes at `position`, in memory of their own; short is damage. */
export function readAt(fd: number, length: number, position: number): Uint8Array {
  const bytes = new Uint8Array(new ArrayBuffer(length));
  let done = 0;
  while (done < length) {
    const read = readSync(fd, bytes, done, length - done, position + done);
    if (read === 0) throw new DamagedIndex('an index file ends early');
    done += read;
  }
  return bytes;
}

/** Little-endian float64s read from the file, in memory of their own. */
export function float64s(bytes: Uint8Array): Float64Array {
  if (!LITTLE_ENDIAN) Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).swap64();
  return new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8);
}

function uint32s(bytes: Uint8Array): Uint32Array {
  if (!LITTLE_ENDIAN) Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).swap32();
  return new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
}

/** A typed array's bytes, little-endian whatever machine writes them. */
export function bytesOf(array: Uint32Array | Float64Array): Buffer {
  const bytes = Buffer.from(array.buffer, array.byteOffset, array.byteLength);
  if (LITTLE_ENDIAN) return bytes;
  const copy = Buffer.from(bytes);
  return array instanceof Float64Array ? copy.swap64() : copy.swap32();
}
