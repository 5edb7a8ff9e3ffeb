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
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Paper } from '../../papers/paper';
import { NotRegularFileError } from '../../text/readFile';
import { sameModel } from '../../models/identity';
import { DenseIndex } from '../dense';
import { LexicalIndex, LexicalParts, type LexicalSearch } from '../lexical';
import { DiskSegment, writeSegment, type SegmentFiles, type SegmentWriter } from '../segment';
import { DamagedStore, errorMessage, isDamage, isMissingFile } from './damage';
import { NewerStoreError, StoreReadError, StoreWriteError } from './errors';
import { DAMAGED_FOLDER, collectGarbage, keepDamaged, papersFilesIn, readPapers, replaceFile } from './files';
import { readEarlier } from './format1';
import {
  FORMAT,
  MANIFEST,
  STORE_VERSION,
  earlierFilesOf,
  filesOf,
  papersFilesOf,
  readManifest,
  type EarlierManifest,
  type EncoderId,
  type Manifest,
  type VectorSegment,
} from './manifest';
import { IN_MEMORY, SEGMENT_ROWS, openSegments, placesOf, type Place } from './places';
import { checkVectors, readDense, readVectorIds, readVectorIdsSync, unitRows, writeVectors, type VectorBatch } from './vectors';
import { generationWriter, lockStore, mergedPapers } from './writer';

export { STORE_VERSION, type EncoderId } from './manifest';
export { NewerStoreError, StoreError, StoreReadError, StoreWriteError } from './errors';
export type { VectorBatch } from './vectors';

export interface OpenedStore {
  readonly store: PaperStore;
  /** What was wrong with the store on disk and what was done about it; empty when nothing was. */
  readonly messages: readonly string[];
}

/** Segments a search reads: a few syscalls each per query term, so a few dozen at most. */
const MAX_SEGMENTS = 32;
/** How often a load starts over because a save replaced the files it was reading. */
const LOAD_ATTEMPTS = 3;
/** Papers indexed between two turns of the event loop: about 50 ms of work. */
const INDEX_SLICE = 500;

/** What one `add` changed, for a save that writes only that. */
interface Change {
  readonly papers: readonly Paper[];
  readonly vectors?: VectorBatch;
}

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
    if (problem === 'earlier-format')
      return {
        store,
        messages: [
          `The paper library in ${dir} was saved by an earlier Attest: it was read whole, which takes longer; it is saved in the current format, which reads only what a search needs, when papers are next added.`,
        ],
      };
    const what = `The paper library in ${dir} could not be read (${problem.reason})`;
    const lines = problem.skipped > 0 ? `, skipping ${problem.skipped} unreadable ${problem.skipped === 1 ? 'line' : 'lines'}` : '';
    const done = problem.readable === 0 ? 'started empty' : `rebuilt its index from ${store.size} papers${lines}`;
    const one = problem.damaged.length === 1;
    const kept =
      problem.damaged.length > 0
        ? ` ${problem.damaged.join(', ')} could not be read in full: ${one ? 'it is' : 'they are'} then kept as ${one ? 'it was' : 'they were'} in ${path.join(dir, DAMAGED_FOLDER)}.`
        : '';
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
    const { release, compromised } = await lockStore(this.dir);
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
   * Writes every unsaved change on top of the manifest on disk (those of failed saves too); the caller
   * holds the lock. Returns the changes now saved.
   */
  private async saveLocked(compromised: () => Error | undefined): Promise<readonly Change[]> {
    const previous = this.diskFiles;
    const generation = (this.manifest?.generation ?? 0) + 1;
    const { write, discard } = generationWriter(this.dir, generation);
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
      await discard();
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
  private async writeSegments(write: SegmentWriter): Promise<SegmentFiles[]> {
    if (this.dirty || this.manifest === undefined) return this.size === 0 ? [] : [await writeSegment(this.papers(), write)];
    const segments = this.segments.map((segment) => segment.files);
    if (this.memory.papers.size > 0) segments.push(await writeSegment(this.memory.papers.values(), write));
    if (segments.length <= MAX_SEGMENTS) return segments;
    const largest = segments.reduce((best, segment, at) => (segment.count > segments[best].count ? at : best), 0);
    const from = largest === segments.length - 1 ? 0 : largest + 1;
    const merged = await mergedPapers(this.dir, segments, from, this.segments);
    return [...segments.slice(0, from), await writeSegment(merged, write)];
  }

  /** The vectors part of the next manifest: the segments on disk and one of the unsaved vectors, or all as one past `MAX_SEGMENTS`. */
  private async writeVectorSegments(write: SegmentWriter): Promise<Pick<Manifest, 'vectors'>> {
    const encoder = this.encoder;
    if (encoder === undefined) return {};
    const previous = this.vectorsReplaced ? [] : (this.manifest?.vectors?.segments ?? []);
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
        if (stats.size !== segment.count * manifest.vectors.dimension * 4)
          throw new DamagedStore(`${segment.file} holds ${stats.size} bytes, not ${segment.count} vectors of ${manifest.vectors.dimension} floats`);
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
