/**
 * The paper library on disk: the papers, their lexical index and, once a sentence encoder has
 * embedded them, their vectors.
 *
 *   const { store, messages } = await PaperStore.open(dir);   // messages: what was repaired, for the user
 *   store.lexical.search('aspirin stroke', 10);
 *   await store.add(papers, { model: 'bge-small-en-v1.5', ids, vectors });
 *
 * A folder of immutable data files and one `manifest.json` naming the files that make up the
 * library now:
 *
 *   manifest.json                     { format, version, generation, segments, vectors? }
 *   g000003-1a2b3c4d.papers.jsonl     one Paper per line
 *   g000003-1a2b3c4d.lexical.bin      that segment's lexical index and where each line starts (segment.ts)
 *   g000003-1a2b3c4d.vectors.f32      unit vectors, little-endian float32, row by row
 *   g000003-1a2b3c4d.vector-ids.json  the papers' ids in the order of the rows
 *
 * Opening reads the manifest and, of each segment, its ids, line offsets, field lengths and terms;
 * a search reads the postings of its terms and the lines of the papers it returns, and the vectors
 * the first time it ranks by meaning. So a query on a library of 100,000 papers costs a fraction of a
 * second from a cold start, not the seconds of reading it whole (bench/libraryScale.bench.ts).
 *
 * Adding papers writes them (and their vectors) as one more segment, indexed on their own, and a new
 * manifest: a search over the segments weighs terms over all of them, leaving out the rows a later
 * segment holds again, so it ranks as one index of the library would. Past 32 segments a save merges
 * those after the largest into one. Memory holds the papers not saved yet, never the library: an
 * import streams through it a batch at a time.
 *
 * Format version 1 (one lexical snapshot as JSON lines, read whole) is still read, whole, and the next
 * save writes the library in this format.
 *
 * A save is atomic: data files are written under new names and flushed, then the manifest is written
 * to a temporary file and renamed over the old one, so a crash at any point leaves the previous
 * manifest and everything it names. Readers need no lock: the files of the previous generation are
 * kept until the next save, and a reader that still loses the race reads the new manifest again.
 *
 * Writers take a lock on the folder (proper-lockfile, which works across processes, so across VS Code
 * windows sharing the extension's storage and CLI runs), and build on the manifest they find on disk:
 * papers another process saved meanwhile are loaded first, never overwritten. Opening never writes or
 * deletes. A store whose files are provably damaged (not JSON, counts that disagree, a named file gone)
 * is rebuilt in memory from what can be read, and written back by the next writer, which first keeps
 * the papers files it could not read in full (a damaged line, not a file at all) in `damaged/`, named
 * as they were, for a person to mend: the save's clean-up would delete them. An error that may
 * pass (permission denied, too many open files, I/O) is reported as a `StoreReadError`, files untouched.
 * Something other than a regular file where the store keeps one (a FIFO, a link to a device) is
 * damage, never opened for reading. A save that fails (a full disk, a folder that may not be written,
 * a lock held for minutes) is a `StoreWriteError` saying what to do; only a lock held by another
 * writer is waited for.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, read, readSync, constants, promises as fs } from 'node:fs';
import { endianness } from 'node:os';
import * as path from 'node:path';
import type * as Lockfile from 'proper-lockfile';
import type { Paper } from '../papers/paper';
import { LARGEST_TEXT_BYTES, NotRegularFileError, openRegularFile } from '../text/readFile';
import { sameModel } from '../models/identity';
import { DenseIndex, type DenseIndexData } from './dense';
import { prepareScoring } from './scoring';
import { LexicalIndex, LexicalParts, type LexicalIndexData, type LexicalSearch } from './lexical';
import { DamagedSegment, DiskSegment, openRegular, parsePaper, writeSegment, type SegmentFiles, type SegmentWriter } from './segment';

/**
 * Bumped when the files change shape; a store of the earlier version is read and saved again in this
 * one, one of a version before that rebuilt from its papers, one of a newer version left alone.
 */
export const STORE_VERSION = 2;
const EARLIER_VERSION = 1;
const FORMAT = 'attest-paper-store';
const MANIFEST = 'manifest.json';
/** Where a save keeps the papers files the rebuild it writes could not read in full. */
const DAMAGED_FOLDER = 'damaged';
/** A manifest names a few dozen files: anything near this is not one. */
const MANIFEST_BYTES = 1024 * 1024;

/** The encoder whose vectors the store holds: vectors of different encoders are not comparable. */
export interface EncoderId {
  /** The model's name, e.g. `bge-small-en-v1.5`. */
  readonly model: string;
  readonly dimension: number;
}

/** Vectors for papers, one per id, all from one encoder. */
export interface VectorBatch {
  readonly model: string;
  readonly ids: readonly string[];
  readonly vectors: readonly Float32Array[];
}

export interface OpenedStore {
  readonly store: PaperStore;
  /** What was wrong with the store on disk and what was done about it; empty when nothing was. */
  readonly messages: readonly string[];
}

interface Segment {
  readonly file: string;
  readonly count: number;
}

interface VectorSegment extends Segment {
  readonly ids: string;
}

interface Manifest {
  readonly format: typeof FORMAT;
  readonly version: typeof STORE_VERSION;
  readonly generation: number;
  /** Later segments replace papers of earlier ones with the same id. */
  readonly segments: readonly SegmentFiles[];
  readonly vectors?: EncoderId & { readonly segments: readonly VectorSegment[] };
}

/** Format version 1: papers files, and one lexical snapshot over the first `lexical.segments` of them. */
interface EarlierManifest {
  readonly format: typeof FORMAT;
  readonly version: typeof EARLIER_VERSION;
  readonly generation: number;
  readonly papers: readonly Segment[];
  readonly lexical: { readonly file: string; readonly segments: number };
  readonly vectors?: EncoderId & { readonly segments: readonly VectorSegment[] };
}

/** Segments a search reads: a few syscalls each per query term, so a few dozen at most. */
const MAX_SEGMENTS = 32;
/** How often a load starts over because a save replaced the files it was reading. */
const LOAD_ATTEMPTS = 3;
/** Papers indexed between two turns of the event loop: about 50 ms of work. */
const INDEX_SLICE = 500;

/** How long a writer waits for another to finish, and after what silence a lock counts as abandoned. */
const LOCK_WAIT_MS = 120_000;
const LOCK_RETRY_MS = 100;
const LOCK_STALE_MS = 10_000;
const LOCK_FILE = 'write.lock';

/** What the user must hear about the paper library's files: nothing was changed or lost. */
export class StoreError extends Error {}

/**
 * The store could not be read for a reason that may pass (permissions, I/O, too many open files).
 * Nothing was changed; reading again later may succeed.
 */
export class StoreReadError extends StoreError {
  constructor(dir: string, cause: unknown, advice = "Check the folder's permissions and try again.") {
    super(`The paper library in ${dir} could not be read (${errorMessage(cause)}); it was left as it is. ${advice}`);
    this.name = 'StoreReadError';
  }
}

/**
 * A library written by a newer Attest, in a format this one does not know: shared with a colleague or
 * another installation, it is theirs to keep, so it is neither rebuilt nor written over.
 */
export class NewerStoreError extends StoreReadError {
  constructor(dir: string, version: number) {
    super(dir, `it is format version ${version}; this Attest reads version ${STORE_VERSION}`, 'Update Attest to use it.');
    this.name = 'NewerStoreError';
  }
}

/**
 * A save that could not be made (a full disk, a folder that may not be written, another writer that
 * holds the lock too long). The files hold what they held before; the papers stay in memory, and the
 * next save writes them.
 */
export class StoreWriteError extends StoreError {
  constructor(dir: string, what: string, advice: string) {
    super(`The paper library in ${dir} could not be saved (${what}); its files hold what they held before. ${advice}`);
    this.name = 'StoreWriteError';
  }

  static of(dir: string, error: unknown): StoreError {
    if (error instanceof StoreError) return error;
    return new StoreWriteError(dir, errorMessage(error), adviceFor((error as NodeJS.ErrnoException | undefined)?.code));
  }
}

function adviceFor(code: string | undefined): string {
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'Free some space on its disk and add the papers again.';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS' || code === 'ENOTDIR' || code === 'EEXIST') return 'Check that the folder, and its write.lock, can be written, and add the papers again.';
  return 'Add the papers again.';
}

/** What the files say is wrong with them: rebuilding from what can be read loses nothing readable. */
class DamagedStore extends Error {}

/** What one `add` changed, for a save that writes only that. */
interface Change {
  readonly papers: readonly Paper[];
  readonly vectors?: VectorBatch;
}

type Writer = SegmentWriter;

/**
 * Where a paper is: a row of a segment on disk, as one number (`segment × SEGMENT_ROWS + row`, no
 * object for each of 100,000 papers), or `IN_MEMORY`.
 */
type Place = number;
const IN_MEMORY = -1;
const SEGMENT_ROWS = 1 << 24;

const NO_SEGMENTS: readonly VectorSegment[] = [];

/** A read of vector segments into a dense index, and what it reads. */
interface DenseRead {
  readonly segments: readonly VectorSegment[];
  readonly dimension: number;
  readonly index: Promise<DenseIndex>;
}

/** The papers not in any segment on disk: unsaved ones, or all of a library read whole. */
class MemoryPart {
  readonly papers = new Map<string, Paper>();

  constructor(readonly index = new LexicalIndex()) {}
}

export class PaperStore {
  /** The segments of `manifest`, open. */
  private segments: DiskSegment[] = [];
  /** Per segment, the rows a later segment or memory holds again; undefined where none is. */
  private dead: (Uint8Array | undefined)[] = [];
  private places = new Map<string, Place>();
  private memory = new MemoryPart();
  /** Built at the first search after a change. */
  private view: LexicalParts | undefined;
  private vectorModel: string | undefined;
  private vectorDimension = 0;
  /** The papers with a vector of `vectorModel`, on disk or in memory; read at the first need (see `embedded`). */
  private vectorIds: Set<string> | undefined;
  /** The vectors, read at the first search by meaning. */
  private denseIndex: DenseIndex | undefined;
  /** Each vector segment's ids, as read from its file. */
  private readonly vectorIdsRead = new WeakMap<VectorSegment, readonly string[]>();
  /** Whether the vector segments listed no id twice, learnt when `embedded` read them. */
  private readonly distinctVectorIds = new WeakMap<readonly VectorSegment[], boolean>();
  /** The read of the vector segments under way for `dense`, and what it reads. */
  private denseRead: DenseRead | undefined;
  /** `countWithoutVectors`' last answer and the sets it counted, which only ever grow, at their sizes then. */
  private unembeddedCount: { places: Map<string, Place>; placesSize: number; ids: Set<string>; idsSize: number; count: number } | undefined;
  /** The vectors of the changes not saved yet, for a dense index read after them. */
  private vectorsUnsaved: VectorBatch[] = [];
  /** The vector segments on disk belong to another encoder than memory's: a save leaves them out. */
  private vectorsReplaced = false;
  /** What is on disk; undefined before the first save. */
  private manifest: Manifest | undefined;
  /** The data files the manifest on disk names, of whichever version: a save keeps them for readers that read it. */
  private diskFiles: readonly string[] = [];
  /** Memory holds papers no segment on disk has, besides the unsaved changes: the next save writes every paper. */
  private dirty = false;
  /** Changes in memory and not yet saved: re-applied when a save finds that another process wrote. */
  private unsaved: Change[] = [];
  /** Changes whose papers are all in memory: only those can be counted as saved by a save of memory. */
  private readonly applied = new WeakSet<Change>();
  /** Papers files the rebuild in memory could not read in full: the save that writes it keeps them. */
  private damaged: readonly string[] = [];
  private applying: Promise<void> = Promise.resolve();
  private writing: Promise<void> = Promise.resolve();

  private constructor(readonly dir: string) {}

  /**
   * Opens the store in `dir`; a folder without one gives an empty store. A damaged store is rebuilt
   * in memory from its papers files, and the message says so; the next save writes it back. Throws
   * `StoreReadError` when the files cannot be read now. Never writes or deletes anything.
   */
  static async open(dir: string): Promise<OpenedStore> {
    const store = new PaperStore(dir);
    const problem = await store.loadFromDisk();
    if (problem === undefined) return { store, messages: [] };
    if (problem === 'earlier-format') return { store, messages: [`The paper library in ${dir} was saved by an earlier Attest: it was read whole, which takes longer; it is saved in the current format, which reads only what a search needs, when papers are next added.`] };
    const what = `The paper library in ${dir} could not be read (${problem.reason})`;
    const lines = problem.skipped > 0 ? `, skipping ${problem.skipped} unreadable ${problem.skipped === 1 ? 'line' : 'lines'}` : '';
    const done = problem.readable === 0 ? 'started empty' : `rebuilt its index from ${store.size} papers${lines}`;
    const one = problem.damaged.length === 1;
    const kept = problem.damaged.length > 0 ? ` ${problem.damaged.join(', ')} could not be read in full: ${one ? 'it is' : 'they are'} then kept as ${one ? 'it was' : 'they were'} in ${path.join(dir, DAMAGED_FOLDER)}.` : '';
    return { store, messages: [`${what}; ${done}. The files are repaired when papers are next added.${kept}`] };
  }

  /**
   * Replaces what is in memory with what is on disk. Returns what was damaged when the store had to be
   * rebuilt from its papers files, or that it is of the earlier format; throws `StoreReadError` for
   * errors that may pass.
   */
  private async loadFromDisk(): Promise<{ reason: string; readable: number; skipped: number; damaged: readonly string[] } | 'earlier-format' | undefined> {
    let damage = '';
    for (let attempt = 0; attempt < LOAD_ATTEMPTS; attempt++) {
      this.clear();
      const read = await readManifest(this.dir);
      if (read.kind === 'none') return undefined;
      if (read.kind === 'unreadable') throw new StoreReadError(this.dir, read.error);
      if (read.kind === 'newer') throw new NewerStoreError(this.dir, read.version);
      if (read.kind === 'invalid') {
        damage = read.reason;
        break;
      }
      try {
        if (read.kind === 'earlier') {
          await this.loadEarlier(read.manifest);
          return 'earlier-format';
        }
        await this.openManifest(read.manifest, []);
        return undefined;
      } catch (error) {
        // A save that finished while this load ran deletes files older than the last generation.
        const again = await readManifest(this.dir);
        if (isMissingFile(error) && again.kind !== 'none' && JSON.stringify(again) !== JSON.stringify(read)) continue;
        if (!isDamage(error)) throw new StoreReadError(this.dir, error);
        damage = errorMessage(error);
        break;
      }
    }
    this.clear();
    return { reason: damage, ...(await this.rebuild()), damaged: this.damaged };
  }

  private clear(): void {
    for (const segment of this.segments) segment.close();
    this.segments = [];
    this.dead = [];
    this.places = new Map();
    this.memory = new MemoryPart();
    this.view = undefined;
    this.vectorModel = undefined;
    this.vectorDimension = 0;
    this.vectorIds = undefined;
    this.denseIndex = undefined;
    this.vectorsUnsaved = [];
    this.vectorsReplaced = false;
    this.manifest = undefined;
    this.diskFiles = [];
    this.damaged = [];
  }

  /**
   * Memory from the papers files alone: those the manifest names when it can be read, else every
   * papers file in the folder, oldest first. A bad line is skipped, a file gone too; any other error
   * stops the rebuild, so a file that cannot be read now is never left out of the next save. Vectors
   * are dropped: the encoder computes them again. The next save writes everything.
   */
  private async rebuild(): Promise<{ readable: number; skipped: number }> {
    const manifest = await readManifest(this.dir);
    const files = manifest.kind === 'valid' || manifest.kind === 'earlier' ? papersFilesOf(manifest.manifest) : await papersFilesIn(this.dir);
    let readable = 0;
    let skipped = 0;
    const damaged: string[] = [];
    for (const file of files) {
      let read: { papers: Paper[]; skipped: number };
      try {
        read = await readPapers(path.join(this.dir, file), 'lenient');
      } catch (error) {
        if (error instanceof NotRegularFileError) damaged.push(file);
        if (isMissingFile(error) || error instanceof NotRegularFileError) continue;
        throw new StoreReadError(this.dir, error);
      }
      for (const paper of read.papers) this.memory.papers.set(paper.id, paper);
      if (read.skipped > 0) damaged.push(file);
      skipped += read.skipped;
      readable++;
    }
    for (const paper of this.memory.papers.values()) {
      this.memory.index.add(paper);
      this.places.set(paper.id, IN_MEMORY);
    }
    this.damaged = damaged;
    this.dirty = true;
    return { readable, skipped };
  }

  get size(): number {
    return this.places.size;
  }

  /** The lexical side of the library: segments on disk, read as a search needs them, and memory. */
  get lexical(): LexicalSearch {
    this.view ??= new LexicalParts([
      ...this.segments.map((segment, at) => ({ bm25: segment.part(this.dead[at]), idAt: (row: number) => segment.ids[row] })),
      { bm25: this.memory.index.asPart(), idAt: (doc: number) => this.memory.index.idAt(doc) },
    ]);
    return this.view;
  }

  /**
   * Vectors of the papers embedded so far, read from disk at the first call; see `encoder` for whose.
   * The files are read by Node's I/O threads, so that the query's encoding goes on meanwhile.
   */
  async dense(): Promise<DenseIndex | undefined> {
    for (;;) {
      if (this.vectorModel === undefined) return undefined;
      if (this.denseIndex !== undefined) return this.denseIndex;
      const read = this.readDense();
      const index = await read.index;
      // Meanwhile a save, a reload or another encoder's vectors may have changed what is on disk: then it is read again.
      if (this.denseIndex === undefined && this.denseRead === read && this.isCurrent(read)) {
        for (const batch of this.vectorsUnsaved) batch.ids.forEach((id, at) => index.add(id, batch.vectors[at]));
        this.denseIndex = index;
        this.denseRead = undefined;
      }
    }
  }

  /** The read of the vector segments on disk, begun now unless one is under way. */
  private readDense(): DenseRead {
    if (this.denseRead !== undefined && this.isCurrent(this.denseRead)) return this.denseRead;
    const segments = this.vectorSegments();
    const ids = { of: (segment: VectorSegment) => this.vectorIdsOf(segment), distinct: () => this.distinctVectorIds.get(segments) === true };
    const read: DenseRead = { segments, dimension: this.vectorDimension, index: readDense(this.dir, segments, this.vectorDimension, ids) };
    // A failed read is tried again by the next search, not remembered.
    read.index.catch(() => this.denseRead === read && (this.denseRead = undefined));
    this.denseRead = read;
    return read;
  }

  private isCurrent(read: DenseRead): boolean {
    return read.segments === this.vectorSegments() && read.dimension === this.vectorDimension;
  }

  /** A vector segment's ids, read once: the count of papers without vectors and the dense index both need them. */
  private vectorIdsOf(segment: VectorSegment): readonly string[] {
    let ids = this.vectorIdsRead.get(segment);
    if (ids === undefined) this.vectorIdsRead.set(segment, (ids = readVectorIdsSync(this.dir, segment)));
    return ids;
  }

  /** The segments on disk that hold vectors of `vectorModel`. */
  private vectorSegments(): readonly VectorSegment[] {
    return this.vectorsReplaced ? NO_SEGMENTS : (this.manifest?.vectors?.segments ?? NO_SEGMENTS);
  }

  get encoder(): EncoderId | undefined {
    return this.vectorModel === undefined ? undefined : { model: this.vectorModel, dimension: this.vectorDimension };
  }

  has(id: string): boolean {
    return this.places.has(id);
  }

  /** The paper, read from its segment's file when it is on disk. */
  get(id: string): Paper | undefined {
    const place = this.places.get(id);
    if (place === undefined) return undefined;
    return place === IN_MEMORY ? this.memory.papers.get(id) : this.segments[Math.floor(place / SEGMENT_ROWS)].paperAt(place % SEGMENT_ROWS);
  }

  /**
   * Every paper from the `from`th on, read from the files a megabyte at a time, then those only in
   * memory. The papers before `from` are counted, not read.
   */
  *papers(from = 0): IterableIterator<Paper> {
    const { segments, dead, memory } = this;
    let skip = from;
    for (const [at, segment] of segments.entries()) yield* segment.papers((row) => !dead[at]?.[row] && skip-- <= 0);
    for (const paper of memory.papers.values()) if (skip-- <= 0) yield paper;
  }

  /** Papers that have no vector from `model`: all of them when the store holds another encoder's (see `sameModel`). */
  withoutVectors(model: string): Paper[] {
    // Read no paper when none lacks one: every search from the CLI asks.
    if (this.countWithoutVectors(model) === 0) return [];
    const ids = this.holdsVectorsOf(model) ? this.embedded() : new Set<string>();
    return [...this.papers()].filter((paper) => !ids.has(paper.id));
  }

  /**
   * How many papers have no vector from `model`. Every search by meaning asks, so the count is kept
   * until the papers or the vectors change: counting 100,000 ids took 20 ms a query.
   */
  countWithoutVectors(model: string): number {
    if (!this.holdsVectorsOf(model)) return this.size;
    const { places } = this;
    const ids = this.embedded();
    const last = this.unembeddedCount;
    // Both sets are replaced, never emptied, when the store reloads; otherwise they only grow.
    if (last?.places === places && last.placesSize === places.size && last.ids === ids && last.idsSize === ids.size) return last.count;
    let count = places.size;
    for (const id of ids) if (places.has(id)) count--;
    this.unembeddedCount = { places, placesSize: places.size, ids, idsSize: ids.size, count };
    return count;
  }

  /** The ids of the papers with a vector of `vectorModel`, read from the vector segments the first time. */
  private embedded(): Set<string> {
    if (this.vectorIds === undefined) {
      const ids = new Set<string>();
      const segments = this.vectorSegments();
      for (const segment of segments) for (const id of this.vectorIdsOf(segment)) ids.add(id);
      this.distinctVectorIds.set(segments, ids.size === segments.reduce((sum, segment) => sum + segment.count, 0));
      for (const batch of this.vectorsUnsaved) for (const id of batch.ids) ids.add(id);
      this.vectorIds = ids;
    }
    return this.vectorIds;
  }

  /**
   * Adds papers, replacing those with the same ids, and vectors for papers of the store or of this
   * call; then saves. Vectors of another encoder than the store's replace all the store's vectors.
   * The papers are indexed a slice at a time, letting the thread do other work between slices (an
   * import of 100,000 papers would otherwise hold the editor for seconds), and are searchable before
   * the save settles; a failed save rejects and leaves the files as they were, and the next save
   * writes everything.
   */
  async add(papers: readonly Paper[], vectors?: VectorBatch): Promise<void> {
    if (vectors) {
      const adding = new Set(papers.map((p) => p.id));
      checkVectors(vectors, (id) => this.places.has(id) || adding.has(id));
    }
    const change: Change = { papers: [...papers], vectors: vectors && vectors.ids.length > 0 ? vectors : undefined };
    this.unsaved.push(change);
    const applied = this.applying.then(() => this.applyInSlices(change));
    this.applying = applied;
    await applied;
    const save = this.writing.then(() => this.save(change));
    this.writing = save.catch(() => undefined);
    return save;
  }

  /** Applies `change` a slice at a time, letting searches and loads in between. */
  private async applyInSlices(change: Change): Promise<void> {
    const steps = this.applicationOf(change);
    while (!steps.next().done) await new Promise((resolve) => setImmediate(resolve));
  }

  /** Applies `change` at once: again, over what another store read, so that no search sees it half applied. */
  private apply(change: Change): void {
    const steps = this.applicationOf(change);
    while (!steps.next().done);
  }

  /** Indexes `change`'s papers a slice per step; the last step adds its vectors and counts it applied. */
  private *applicationOf(change: Change): Generator<void> {
    for (let start = 0; start < change.papers.length; start += INDEX_SLICE) {
      if (start > 0) yield;
      this.index(change.papers.slice(start, start + INDEX_SLICE));
    }
    if (change.vectors) this.addVectors(change.vectors);
    this.applied.add(change);
  }

  private index(papers: readonly Paper[]): void {
    for (const paper of papers) {
      const place = this.places.get(paper.id);
      if (place !== undefined && place !== IN_MEMORY) {
        const at = Math.floor(place / SEGMENT_ROWS);
        (this.dead[at] ??= new Uint8Array(this.segments[at].count))[place % SEGMENT_ROWS] = 1;
      }
      this.places.set(paper.id, IN_MEMORY);
      this.memory.papers.set(paper.id, paper);
      this.memory.index.add(paper);
    }
    this.view = undefined;
  }

  /**
   * Whether the vectors held are `model`'s. Those a store written before encoders were keyed by their
   * content names by the encoder's name alone: they are taken as the encoder of that name's, as they
   * were, and kept under its full key from the next vectors added.
   */
  private holdsVectorsOf(model: string): boolean {
    return this.vectorModel !== undefined && sameModel(this.vectorModel, model);
  }

  private addVectors(batch: VectorBatch): void {
    const dimension = batch.vectors[0].length;
    if (!this.holdsVectorsOf(batch.model) || this.vectorDimension !== dimension) {
      // The segments on disk hold the other encoder's vectors: the next save leaves them out.
      this.vectorsReplaced = this.manifest?.vectors !== undefined;
      this.vectorModel = batch.model;
      this.vectorDimension = dimension;
      this.vectorIds = new Set();
      this.vectorsUnsaved = [];
      this.denseIndex = new DenseIndex(dimension);
    }
    this.vectorModel = batch.model;
    for (const id of batch.ids) this.vectorIds?.add(id);
    this.vectorsUnsaved.push(batch);
    const dense = this.denseIndex;
    batch.ids.forEach((id, at) => dense?.add(id, batch.vectors[at]));
  }

  /**
   * Brings memory up to what is on disk when another process saved since this one last read or wrote:
   * its segments are opened, then this process's unsaved changes are applied again on top.
   */
  private async catchUp(): Promise<void> {
    const disk = await readManifest(this.dir);
    const current = this.manifest === undefined ? disk.kind === 'none' : disk.kind === 'valid' && JSON.stringify(disk.manifest) === JSON.stringify(this.manifest);
    if (current && !(this.manifest === undefined && this.dirty)) return;
    // Into a store of its own, so that searches meanwhile, and a failure, see memory as it was.
    const fresh = new PaperStore(this.dir);
    await fresh.loadFromDisk();
    this.takeOver(fresh);
    this.dirty ||= fresh.dirty;
    for (const change of this.unsaved) this.apply(change);
  }

  /** Memory becomes what `other` read; the segments this one had and that one has not are closed. */
  private takeOver(other: PaperStore): void {
    const kept = new Set(other.segments);
    for (const segment of this.segments) if (!kept.has(segment)) segment.close();
    this.segments = other.segments;
    this.dead = other.dead;
    this.places = other.places;
    this.memory = other.memory;
    this.view = undefined;
    this.vectorModel = other.vectorModel;
    this.vectorDimension = other.vectorDimension;
    this.vectorIds = other.vectorIds;
    this.denseIndex = other.denseIndex;
    this.vectorsUnsaved = other.vectorsUnsaved;
    this.vectorsReplaced = other.vectorsReplaced;
    this.manifest = other.manifest;
    this.diskFiles = other.diskFiles;
    this.damaged = other.damaged;
  }

  private async save(change: Change): Promise<void> {
    // An earlier save wrote it along with its own, after a failure had left it unsaved.
    if (!this.unsaved.includes(change)) return;
    const { release, compromised } = await this.lock();
    try {
      await this.catchUp();
      const saved = await this.saveLocked(compromised);
      this.unsaved = this.unsaved.filter((c) => !saved.includes(c));
      await this.reopenAfterSave();
    } catch (error) {
      throw StoreWriteError.of(this.dir, error);
    } finally {
      await release().catch(() => undefined);
    }
  }

  /**
   * Opens what this save wrote in place of the memory it came from, keeping the segments already
   * open and the dense index, which holds the vectors just saved; changes still unsaved stay in memory.
   */
  private async reopenAfterSave(): Promise<void> {
    const manifest = this.manifest as Manifest;
    const fresh = new PaperStore(this.dir);
    await fresh.openManifest(manifest, this.segments);
    const same = this.vectorModel === fresh.vectorModel && this.vectorDimension === fresh.vectorDimension;
    const dense = same ? this.denseIndex : undefined;
    const embedded = same ? this.vectorIds : undefined;
    this.takeOver(fresh);
    this.denseIndex = dense;
    this.vectorIds = embedded;
    for (const change of this.unsaved) this.apply(change);
  }

  /**
   * Takes the write lock, waiting while another writer holds it. Only that is waited out: a folder
   * that may not be written, or a `write.lock` that is not the lock's, fails at once.
   */
  private async lock(): Promise<{ release: () => Promise<void>; compromised: () => Error | undefined }> {
    const lockPath = path.join(this.dir, LOCK_FILE);
    let compromised: Error | undefined;
    try {
      await fs.mkdir(this.dir, { recursive: true });
    } catch (error) {
      throw StoreWriteError.of(this.dir, error);
    }
    // Loaded by the first writer: a reader never takes the lock.
    const lockfile: typeof Lockfile = await import('proper-lockfile');
    const waitUntil = Date.now() + LOCK_WAIT_MS;
    for (;;) {
      try {
        const release = await lockfile.lock(this.dir, {
          lockfilePath: lockPath,
          realpath: false,
          stale: LOCK_STALE_MS,
          retries: 0,
          onCompromised: (error) => {
            compromised = error;
          },
        });
        return { release, compromised: () => compromised };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw StoreWriteError.of(this.dir, error);
      }
      // A lock renewed with a clock ahead of this one's never looks abandoned: after the wait, the user decides.
      if (Date.now() >= waitUntil) {
        throw new StoreWriteError(
          this.dir,
          `another Attest has held its lock for over ${LOCK_WAIT_MS / 60_000} minutes`,
          `If no other Attest is adding papers to it (a lock can be left behind by a computer whose clock is ahead), delete ${lockPath} and add the papers again.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
    }
  }

  /**
   * Writes every unsaved change on top of the manifest on disk (those of failed saves too); the caller
   * holds the lock. Returns the changes now saved.
   */
  private async saveLocked(compromised: () => Error | undefined): Promise<readonly Change[]> {
    const previous = this.diskFiles;
    const generation = (this.manifest?.generation ?? 0) + 1;
    const written: string[] = [];
    const write: Writer = async (suffix, content) => {
      const file = `g${String(generation).padStart(6, '0')}-${randomBytes(4).toString('hex')}.${suffix}`;
      written.push(file);
      await writeNew(path.join(this.dir, file), content);
      return file;
    };
    const saved = this.unsaved.filter((c) => this.applied.has(c));
    try {
      await keepDamaged(this.dir, this.damaged);
      const segments = await this.writeSegments(write);
      const next: Manifest = { format: FORMAT, version: STORE_VERSION, generation, segments, ...(await this.writeVectorSegments(write)) };
      const lost = compromised();
      if (lost) throw new Error(`another process took over the paper library's lock while this one was saving (${lost.message}); nothing was saved`);
      await replaceFile(path.join(this.dir, MANIFEST), JSON.stringify(next, null, 1));
      this.manifest = next;
      this.diskFiles = filesOf(next);
      this.damaged = [];
      this.dirty = false;
      this.vectorsReplaced = false;
    } catch (error) {
      await Promise.all(written.map((file) => fs.rm(path.join(this.dir, file), { force: true }).catch(() => undefined)));
      throw error;
    }
    await collectGarbage(this.dir, [...this.diskFiles, ...previous]);
    return saved;
  }

  /**
   * The segments of the next manifest: memory as one more segment; every paper as one when memory
   * holds more than the changes (a rebuilt or earlier-format library); and past `MAX_SEGMENTS`, the
   * segments after the largest merged into one, so a merge rewrites the papers added since it.
   */
  private async writeSegments(write: Writer): Promise<SegmentFiles[]> {
    if (this.dirty || this.manifest === undefined) return this.size === 0 ? [] : [await writeSegment(this.papers(), write)];
    const segments = this.segments.map((segment) => segment.files);
    if (this.memory.papers.size > 0) segments.push(await writeSegment(this.memory.papers.values(), write));
    if (segments.length <= MAX_SEGMENTS) return segments;
    const largest = segments.reduce((best, segment, at) => (segment.count > segments[best].count ? at : best), 0);
    const from = largest === segments.length - 1 ? 0 : largest + 1;
    const merged = await this.mergedPapers(segments, from);
    return [...segments.slice(0, from), await writeSegment(merged, write)];
  }

  /** The papers of `segments` from `from` on that no later one holds again, read from disk. */
  private async mergedPapers(segments: readonly SegmentFiles[], from: number): Promise<Iterable<Paper>> {
    const opened = await openSegments(this.dir, segments, this.segments);
    const { places } = placesOf(opened);
    const kept = this.segments;
    return (function* (): Iterable<Paper> {
      try {
        for (let at = from; at < opened.length; at++) {
          const segment = opened[at];
          yield* segment.papers((row) => places.get(segment.ids[row]) === at * SEGMENT_ROWS + row);
        }
      } finally {
        for (const segment of opened) if (!kept.includes(segment)) segment.close();
      }
    })();
  }

  /** The vectors part of the next manifest: the segments on disk and one of the unsaved vectors, or all as one past `MAX_SEGMENTS`. */
  private async writeVectorSegments(write: Writer): Promise<Pick<Manifest, 'vectors'>> {
    const encoder = this.encoder;
    if (encoder === undefined) return {};
    const previous = this.vectorsReplaced ? [] : this.manifest?.vectors?.segments ?? [];
    let segments = [...previous];
    const rows = unitRows(this.vectorsUnsaved, encoder.dimension);
    if (rows) segments.push(await writeVectors(rows, write));
    if (segments.length > MAX_SEGMENTS) segments = [await writeVectors(((await this.dense()) as DenseIndex).toData(), write)];
    return segments.length === 0 ? {} : { vectors: { ...encoder, segments } };
  }

  /**
   * Opens the manifest's segments, reusing those of `open` already open, and reads which papers have
   * vectors. Throws when a file is missing, truncated or inconsistent with the manifest.
   */
  private async openManifest(manifest: Manifest, open: readonly DiskSegment[]): Promise<void> {
    this.segments = await openSegments(this.dir, manifest.segments, open);
    ({ places: this.places, dead: this.dead } = placesOf(this.segments));
    if (manifest.vectors) {
      // Their ids are read at the first search that needs them: a search by words needs none.
      for (const segment of manifest.vectors.segments) {
        const stats = await fs.stat(path.join(this.dir, segment.file));
        if (!stats.isFile()) throw new DamagedStore(`${segment.file} is not a regular file`);
        if (stats.size !== segment.count * manifest.vectors.dimension * 4) throw new DamagedStore(`${segment.file} holds ${stats.size} bytes, not ${segment.count} vectors of ${manifest.vectors.dimension} floats`);
      }
      this.vectorModel = manifest.vectors.model;
      this.vectorDimension = manifest.vectors.dimension;
    }
    this.manifest = manifest;
    this.diskFiles = filesOf(manifest);
  }

  /** A library of format version 1, read whole into memory; the next save writes it in this format. */
  private async loadEarlier(manifest: EarlierManifest): Promise<void> {
    const { papers, lexical } = await readEarlier(this.dir, manifest);
    this.memory = new MemoryPart(lexical);
    for (const paper of papers) {
      this.memory.papers.set(paper.id, paper);
      this.places.set(paper.id, IN_MEMORY);
    }
    if (manifest.vectors) {
      const { model, dimension, segments } = manifest.vectors;
      for (const segment of segments) {
        const ids = await readVectorIds(this.dir, segment);
        if (ids.some((id) => !this.places.has(id))) throw new DamagedStore(`${segment.ids} has a vector for a paper that is in no papers file`);
      }
      this.vectorModel = model;
      this.vectorDimension = dimension;
      // The vector files are as this version writes them: the next manifest names them again.
      this.manifest = { format: FORMAT, version: STORE_VERSION, generation: manifest.generation, segments: [], vectors: manifest.vectors };
    } else this.manifest = { format: FORMAT, version: STORE_VERSION, generation: manifest.generation, segments: [] };
    this.diskFiles = earlierFilesOf(manifest);
    this.dirty = true;
  }
}

function checkVectors(batch: VectorBatch, known: (id: string) => boolean): void {
  if (batch.ids.length !== batch.vectors.length) throw new RangeError(`${batch.ids.length} ids but ${batch.vectors.length} vectors`);
  const unknown = batch.ids.find((id) => !known(id));
  if (unknown !== undefined) throw new Error(`A vector for '${unknown}', which is not in the store.`);
  const dimension = batch.vectors[0]?.length;
  if (batch.vectors.some((v) => v.length !== dimension || v.length === 0)) throw new RangeError('The vectors of one batch must have one dimension.');
}

// ---------------------------------------------------------------------------------------
// The manifest

type ManifestRead =
  | { readonly kind: 'none' }
  | { readonly kind: 'unreadable'; readonly error: unknown }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'newer'; readonly version: number }
  | { readonly kind: 'earlier'; readonly manifest: EarlierManifest }
  | { readonly kind: 'valid'; readonly manifest: Manifest };

async function readManifest(dir: string): Promise<ManifestRead> {
  let text: string;
  try {
    text = await readRegular(path.join(dir, MANIFEST), MANIFEST_BYTES);
  } catch (error) {
    if (!isMissingFile(error)) return isDamage(error) ? { kind: 'invalid', reason: errorMessage(error) } : { kind: 'unreadable', error };
    return (await papersFilesIn(dir)).length > 0 ? { kind: 'invalid', reason: `${MANIFEST} is missing` } : { kind: 'none' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: `${MANIFEST} is not JSON` };
  }
  if (!isObject(json) || json.format !== FORMAT) return { kind: 'invalid', reason: `${MANIFEST} is not an Attest paper library's` };
  if (typeof json.version === 'number' && json.version > STORE_VERSION) return { kind: 'newer', version: json.version };
  if (json.version === EARLIER_VERSION) return isEarlierManifest(json) ? { kind: 'earlier', manifest: json } : { kind: 'invalid', reason: `${MANIFEST} is incomplete` };
  if (json.version !== STORE_VERSION) return { kind: 'invalid', reason: `it is format version ${String(json.version)}; this Attest reads versions ${EARLIER_VERSION} and ${STORE_VERSION}` };
  return isManifest(json) ? { kind: 'valid', manifest: json } : { kind: 'invalid', reason: `${MANIFEST} is incomplete` };
}

function isManifest(json: Record<string, unknown>): json is Record<string, unknown> & Manifest {
  const { generation, segments, vectors } = json;
  const isFiles = (s: unknown): boolean => isObject(s) && typeof s.papers === 'string' && typeof s.lexical === 'string' && isCount(s.count);
  return isCount(generation) && Array.isArray(segments) && segments.every(isFiles) && isVectors(vectors);
}

function isEarlierManifest(json: Record<string, unknown>): json is Record<string, unknown> & EarlierManifest {
  const { generation, papers, lexical, vectors } = json;
  if (!isCount(generation) || !Array.isArray(papers) || !papers.every(isSegment) || !isObject(lexical)) return false;
  return typeof lexical.file === 'string' && isCount(lexical.segments) && lexical.segments <= papers.length && isVectors(vectors);
}

function isVectors(vectors: unknown): boolean {
  if (vectors === undefined) return true;
  return (
    isObject(vectors) &&
    typeof vectors.model === 'string' &&
    isCount(vectors.dimension) &&
    vectors.dimension > 0 &&
    Array.isArray(vectors.segments) &&
    vectors.segments.every((s) => isSegment(s) && isObject(s) && typeof s.ids === 'string')
  );
}

function isSegment(value: unknown): value is Segment {
  return isObject(value) && typeof value.file === 'string' && isCount(value.count);
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Data files are `g<generation>-<random>.<kind>`; nothing else in the folder is the store's. */
const DATA_FILE = /^g(\d+)-[0-9a-f]{8}\.(?:papers\.jsonl|lexical\.bin|lexical\.jsonl|vectors\.f32|vector-ids\.json)$/;
const TEMP_FILE = /^manifest\.json\.[0-9a-f]{8}\.tmp$/;

async function papersFilesIn(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const generation = (name: string): number => Number(DATA_FILE.exec(name)?.[1] ?? 0);
  return names.filter((name) => DATA_FILE.test(name) && name.endsWith('.papers.jsonl')).sort((a, b) => generation(a) - generation(b) || a.localeCompare(b));
}

/**
 * Deletes the data files that neither this manifest nor the previous one names (`keep`), and
 * temporary files of failed saves. The previous manifest's files stay for readers that read it just
 * before this save. Failures are ignored: a file left behind costs space, never correctness.
 */
async function collectGarbage(dir: string, files: readonly string[]): Promise<void> {
  const keep = new Set(files);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const doomed = names.filter((name) => (DATA_FILE.test(name) && !keep.has(name)) || TEMP_FILE.test(name));
  await Promise.all(doomed.map((name) => fs.rm(path.join(dir, name), { force: true }).catch(() => undefined)));
}

/**
 * Keeps papers files a rebuild could not read in full in `damaged/`, as they were named, before the
 * save that leaves them out, whose clean-up would delete them. By a hard link, so that they also stay
 * where they are for readers of the current manifest and should this save fail; moved where the
 * file system has no links. A name already kept is this file, kept by a save that then failed.
 */
async function keepDamaged(dir: string, files: readonly string[]): Promise<void> {
  if (files.length === 0) return;
  const folder = path.join(dir, DAMAGED_FOLDER);
  await fs.mkdir(folder, { recursive: true });
  for (const file of files) {
    try {
      await fs.link(path.join(dir, file), path.join(folder, file));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOENT') continue;
      await fs.rename(path.join(dir, file), path.join(folder, file));
    }
  }
}

function filesOf(manifest: Manifest): string[] {
  return [...manifest.segments.flatMap((s) => [s.papers, s.lexical]), ...vectorFilesOf(manifest)];
}

function earlierFilesOf(manifest: EarlierManifest): string[] {
  return [...manifest.papers.map((s) => s.file), manifest.lexical.file, ...vectorFilesOf(manifest)];
}

function vectorFilesOf(manifest: Manifest | EarlierManifest): string[] {
  return manifest.vectors?.segments.flatMap((s) => [s.file, s.ids]) ?? [];
}

function papersFilesOf(manifest: Manifest | EarlierManifest): string[] {
  return manifest.version === STORE_VERSION ? manifest.segments.map((s) => s.papers) : manifest.papers.map((s) => s.file);
}

// ---------------------------------------------------------------------------------------
// Segments

/** The segments the files name, open; those of `open` are reused, the rest opened now. */
async function openSegments(dir: string, files: readonly SegmentFiles[], open: readonly DiskSegment[]): Promise<DiskSegment[]> {
  const byFile = new Map(open.map((segment) => [segment.files.lexical, segment]));
  const segments: DiskSegment[] = [];
  try {
    for (const file of files) {
      const reused = byFile.get(file.lexical);
      segments.push(reused && reused.files.papers === file.papers && reused.count === file.count ? reused : await DiskSegment.open(dir, file));
    }
  } catch (error) {
    for (const segment of segments) if (!open.includes(segment)) segment.close();
    throw error;
  }
  return segments;
}

/**
 * Where each paper is, the last segment that holds it, and per segment the rows a later one holds
 * again (undefined for a segment without any).
 */
function placesOf(segments: readonly DiskSegment[]): { places: Map<string, Place>; dead: (Uint8Array | undefined)[] } {
  const places = new Map<string, Place>();
  const dead: (Uint8Array | undefined)[] = segments.map(() => undefined);
  segments.forEach((segment, at) => {
    const base = at * SEGMENT_ROWS;
    segment.ids.forEach((id, row) => {
      const earlier = places.get(id);
      if (earlier !== undefined) {
        const where = Math.floor(earlier / SEGMENT_ROWS);
        (dead[where] ??= new Uint8Array(segments[where].count))[earlier % SEGMENT_ROWS] = 1;
      }
      places.set(id, base + row);
    });
  });
  return { places, dead };
}

// ---------------------------------------------------------------------------------------
// Files

/** Text produced a chunk at a time, so no file needs one string of its whole size. */
type Content = Parameters<SegmentWriter>[1];

/** About a megabyte of text per write. */
const CHUNK = 1 << 20;

/** Writes a file that must not exist yet, and flushes it to the disk before the manifest names it. */
async function writeNew(file: string, content: Content): Promise<void> {
  const handle = await fs.open(file, 'wx');
  try {
    if (content instanceof Uint8Array) await handle.write(content);
    else {
      let chunk = '';
      for (const text of content) {
        chunk += text;
        if (chunk.length >= CHUNK) {
          await handle.write(chunk);
          chunk = '';
        }
      }
      if (chunk !== '') await handle.write(chunk);
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces a file whole: readers see the old text or the new, never part of one. */
async function replaceFile(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeNew(temp, [text]);
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

async function readPapers(file: string, mode: 'strict' | 'lenient'): Promise<{ papers: Paper[]; skipped: number }> {
  const papers: Paper[] = [];
  let skipped = 0;
  let number = 0;
  const { handle } = await openRegularFile(file);
  try {
    for await (const line of handle.readLines()) {
      number++;
      if (line === '') continue;
      const paper = parsePaper(line);
      if (paper !== undefined) papers.push(paper);
      else if (mode === 'lenient') skipped++;
      else throw new DamagedStore(`${path.basename(file)} line ${number} is not a paper`);
    }
  } finally {
    await handle.close();
  }
  return { papers, skipped };
}

async function readLexical(file: string): Promise<LexicalIndexData> {
  let ids: string[] | undefined;
  const fields: { lengths: number[]; postings: Record<string, number[]> }[] = [];
  const { handle } = await openRegularFile(file);
  try {
    for await (const line of handle.readLines()) {
      if (line === '') continue;
      const json: unknown = JSON.parse(line);
      if (Array.isArray(json) && typeof json[0] === 'string' && Array.isArray(json[1]) && fields.length > 0) {
        fields[fields.length - 1].postings[json[0]] = json[1] as number[];
      } else if (isObject(json) && Array.isArray(json.lengths) && ids !== undefined) {
        fields.push({ lengths: json.lengths as number[], postings: {} });
      } else if (isObject(json) && Array.isArray(json.ids) && ids === undefined) {
        ids = json.ids as string[];
      } else throw new DamagedStore(`${path.basename(file)} is not a lexical index`);
    }
  } finally {
    await handle.close();
  }
  if (ids === undefined || fields.some((f) => f.lengths.length !== ids?.length)) throw new DamagedStore(`${path.basename(file)} is incomplete`);
  return { ids, fields };
}

async function writeVectors(data: DenseIndexData, write: Writer): Promise<VectorSegment> {
  const file = await write('vectors.f32', littleEndian(data.vectors));
  const ids = await write('vector-ids.json', [JSON.stringify(data.ids)]);
  return { file, ids, count: data.ids.length };
}

/**
 * The vector segments as one dense index: each file is read straight into its rows of one array,
 * which the index keeps, so 100,000 vectors cost their 150 MB once, not twice. The reads are under
 * way on Node's I/O threads when this returns; the ids are parsed and the scoring made ready meanwhile.
 */
async function readDense(
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

/**
 * Fills `target` with a regular file of exactly its length; anything else is damage. The file is
 * opened at once and its read begun before this returns.
 */
async function readInto(dir: string, name: string, target: Uint8Array): Promise<void> {
  const { fd, size } = openRegular(dir, name);
  try {
    if (size !== target.length) throw new DamagedStore(`${name} holds ${size} bytes, not ${target.length}`);
    for (let done = 0; done < target.length; ) {
      const bytesRead = await new Promise<number>((resolve, reject) => read(fd, target, done, target.length - done, done, (error, count) => (error ? reject(error) : resolve(count))));
      if (bytesRead === 0) throw new DamagedStore(`${name} ends early`);
      done += bytesRead;
    }
  } finally {
    closeSync(fd);
  }
}

/** The ids of a vector segment, checked against its count. */
async function readVectorIds(dir: string, segment: VectorSegment): Promise<string[]> {
  return vectorIds(await readRegular(path.join(dir, segment.ids), LARGEST_TEXT_BYTES), segment);
}

function readVectorIdsSync(dir: string, segment: VectorSegment): string[] {
  return vectorIds(Buffer.from(readWholeSync(path.join(dir, segment.ids))).toString('utf8'), segment);
}

function vectorIds(text: string, segment: VectorSegment): string[] {
  const ids: unknown = JSON.parse(text);
  if (!Array.isArray(ids) || ids.length !== segment.count || !ids.every((id) => typeof id === 'string')) throw new DamagedStore(`${segment.ids} does not list ${segment.count} ids`);
  return ids as string[];
}

/** A regular file of the store whole, no larger than text the library writes; anything else is damage. */
function readWholeSync(file: string): Uint8Array {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new DamagedStore(`${path.basename(file)} is not a regular file`);
    if (stats.size > LARGEST_TEXT_BYTES) throw new DamagedStore(`${path.basename(file)} is ${stats.size} bytes, more than the library writes`);
    const bytes = new Uint8Array(stats.size);
    for (let done = 0; done < bytes.length; ) {
      const read = readSync(fd, bytes, done, bytes.length - done, done);
      if (read === 0) throw new DamagedStore(`${path.basename(file)} ends early`);
      done += read;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** The unsaved vectors as unit rows, the last of an id winning; undefined when there are none. */
function unitRows(batches: readonly VectorBatch[], dimension: number): DenseIndexData | undefined {
  const rows = new DenseIndex(dimension);
  for (const batch of batches) batch.ids.forEach((id, at) => rows.add(id, batch.vectors[at]));
  return rows.size === 0 ? undefined : rows.toData();
}

/**
 * A library of format version 1, whole: the papers of the segments its lexical snapshot covers,
 * the snapshot, then the papers of later segments indexed on top. Throws when they disagree.
 */
async function readEarlier(dir: string, manifest: EarlierManifest): Promise<{ papers: Paper[]; lexical: LexicalIndex }> {
  const byId = new Map<string, Paper>();
  const segment = async (s: Segment): Promise<Paper[]> => {
    const { papers } = await readPapers(path.join(dir, s.file), 'strict');
    if (papers.length !== s.count) throw new DamagedStore(`${s.file} holds ${papers.length} papers, not ${s.count}`);
    return papers;
  };
  const covered = manifest.papers.slice(0, manifest.lexical.segments);
  for (const s of covered) for (const paper of await segment(s)) byId.set(paper.id, paper);
  const lexical = LexicalIndex.fromJSON(await readLexical(path.join(dir, manifest.lexical.file)));
  if (lexical.size !== byId.size || [...byId.keys()].some((id) => !lexical.has(id))) {
    throw new DamagedStore(`${manifest.lexical.file} does not index the papers of ${covered.map((s) => s.file).join(', ')}`);
  }
  for (const s of manifest.papers.slice(manifest.lexical.segments)) {
    for (const paper of await segment(s)) {
      byId.set(paper.id, paper);
      lexical.add(paper);
    }
  }
  return { papers: [...byId.values()], lexical };
}

/** The file is little-endian whatever machine wrote it, so a library can move between machines. */
function littleEndian(vectors: Float32Array): Uint8Array {
  const bytes = new Uint8Array(vectors.length * 4);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < vectors.length; i++) view.setFloat32(i * 4, vectors[i], true);
  return bytes;
}

/** A small file of the store, whole; one that is not a regular file, or larger than `maxBytes`, is damage. */
async function readRegular(file: string, maxBytes: number): Promise<string> {
  const { handle, stats } = await openRegularFile(file);
  try {
    if (stats.size > maxBytes) throw new DamagedStore(`${path.basename(file)} is ${stats.size} bytes, more than the library writes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * What the files say, or a file the manifest names gone for good, or something other than a file
 * where the library keeps one (a FIFO, a link to a device): not an error that may pass.
 */
function isDamage(error: unknown): boolean {
  return error instanceof DamagedStore || error instanceof DamagedSegment || error instanceof SyntaxError || error instanceof NotRegularFileError || isMissingFile(error);
}

function isMissingFile(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
