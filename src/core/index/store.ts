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
 *   manifest.json                 { format, version, generation, papers, lexical, vectors? }
 *   g000003-1a2b3c4d.papers.jsonl   one Paper per line
 *   g000003-1a2b3c4d.lexical.jsonl  LexicalIndex.toJSON(), a line at a time (see lexicalLines)
 *   g000003-1a2b3c4d.vectors.f32    unit vectors, little-endian float32, row by row
 *   g000003-1a2b3c4d.vector-ids.json  the papers' ids in the order of the rows
 *
 * Adding papers writes only the new papers (and vectors) as one more segment and a new manifest; the
 * lexical index stays as saved and the load adds the papers of later segments to it. Once those are
 * many, a save compacts: one papers file, one vectors file, a new lexical snapshot. So saving the few
 * papers a live search found costs milliseconds at any size, and opening a large library never
 * re-indexes it (at 100,000 papers indexing takes about 20 s, loading 4 to 5 s; bench/retrieval.bench.ts).
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
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import type { Paper } from '../papers/paper';
import { LARGEST_TEXT_BYTES, NotRegularFileError, openRegularFile } from '../text/readFile';
import { DenseIndex, type DenseIndexData } from './dense';
import { LexicalIndex, type LexicalIndexData } from './lexical';

/** Bumped when the files change shape; a store of an older version is rebuilt from its papers, one of a newer version left alone. */
export const STORE_VERSION = 1;
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
  readonly papers: readonly Segment[];
  /** A snapshot of the lexical index over the papers of the first `segments` segments. */
  readonly lexical: { readonly file: string; readonly segments: number };
  readonly vectors?: EncoderId & { readonly segments: readonly VectorSegment[] };
}

/**
 * Papers outside the lexical snapshot are indexed again at every load: past 1,000 of them (a fifth of
 * a second) or a tenth of the library, a save compacts. Past 32 segments too, so the folder stays small.
 */
const TAIL_PAPERS = 1000;
const TAIL_SHARE = 0.1;
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

/** Writes a data file of this save's generation, named by `suffix`; returns its name. */
type Writer = (suffix: string, content: Content) => Promise<string>;

export class PaperStore {
  private byId = new Map<string, Paper>();
  private lexicalIndex = new LexicalIndex();
  private denseIndex: DenseIndex | undefined;
  private vectorModel: string | undefined;
  /** What is on disk; undefined before the first save. */
  private manifest: Manifest | undefined;
  /** Memory holds something the segments on disk do not: the next save writes everything. */
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
   * Loads the store in `dir`; a folder without one gives an empty store. A damaged store is rebuilt
   * in memory from its papers files, and the message says so; the next save writes it back. Throws
   * `StoreReadError` when the files cannot be read now. Never writes or deletes anything.
   */
  static async open(dir: string): Promise<OpenedStore> {
    const store = new PaperStore(dir);
    const problem = await store.loadFromDisk();
    if (problem === undefined) return { store, messages: [] };
    const what = `The paper library in ${dir} could not be read (${problem.reason})`;
    const lines = problem.skipped > 0 ? `, skipping ${problem.skipped} unreadable ${problem.skipped === 1 ? 'line' : 'lines'}` : '';
    const done = problem.readable === 0 ? 'started empty' : `rebuilt its index from ${store.size} papers${lines}`;
    const one = problem.damaged.length === 1;
    const kept = problem.damaged.length > 0 ? ` ${problem.damaged.join(', ')} could not be read in full: ${one ? 'it is' : 'they are'} then kept as ${one ? 'it was' : 'they were'} in ${path.join(dir, DAMAGED_FOLDER)}.` : '';
    return { store, messages: [`${what}; ${done}. The files are repaired when papers are next added.${kept}`] };
  }

  /**
   * Replaces what is in memory with what is on disk. Returns what was damaged when the store had to be
   * rebuilt from its papers files; throws `StoreReadError` for errors that may pass.
   */
  private async loadFromDisk(): Promise<{ reason: string; readable: number; skipped: number; damaged: readonly string[] } | undefined> {
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
        await this.load(read.manifest);
        return undefined;
      } catch (error) {
        // A save that finished while this load ran deletes files older than the last generation.
        const again = await readManifest(this.dir);
        if (isMissingFile(error) && again.kind === 'valid' && JSON.stringify(again.manifest) !== JSON.stringify(read.manifest)) continue;
        if (!isDamage(error)) throw new StoreReadError(this.dir, error);
        damage = errorMessage(error);
        break;
      }
    }
    this.clear();
    return { reason: damage, ...(await this.rebuild()), damaged: this.damaged };
  }

  private clear(): void {
    this.byId.clear();
    this.lexicalIndex = new LexicalIndex();
    this.denseIndex = undefined;
    this.vectorModel = undefined;
    this.manifest = undefined;
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
    const files = manifest.kind === 'valid' ? manifest.manifest.papers.map((s) => s.file) : await papersFilesIn(this.dir);
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
      for (const paper of read.papers) this.byId.set(paper.id, paper);
      if (read.skipped > 0) damaged.push(file);
      skipped += read.skipped;
      readable++;
    }
    for (const paper of this.byId.values()) this.lexicalIndex.add(paper);
    this.damaged = damaged;
    this.dirty = true;
    return { readable, skipped };
  }

  get size(): number {
    return this.byId.size;
  }

  get lexical(): LexicalIndex {
    return this.lexicalIndex;
  }

  /** Vectors of the papers embedded so far; see `encoder` for whose. */
  get dense(): DenseIndex | undefined {
    return this.denseIndex;
  }

  get encoder(): EncoderId | undefined {
    return this.denseIndex && this.vectorModel !== undefined ? { model: this.vectorModel, dimension: this.denseIndex.dimension } : undefined;
  }

  get(id: string): Paper | undefined {
    return this.byId.get(id);
  }

  papers(): IterableIterator<Paper> {
    return this.byId.values();
  }

  /** Papers that have no vector from `model`: all of them when the store holds another encoder's. */
  withoutVectors(model: string): Paper[] {
    const dense = this.vectorModel === model ? this.denseIndex : undefined;
    return [...this.byId.values()].filter((paper) => !dense?.has(paper.id));
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
      checkVectors(vectors, (id) => this.byId.has(id) || adding.has(id));
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

  private async applyInSlices(change: Change): Promise<void> {
    for (let start = 0; start < change.papers.length; start += INDEX_SLICE) {
      if (start > 0) await new Promise((resolve) => setImmediate(resolve));
      this.index(change.papers.slice(start, start + INDEX_SLICE));
    }
    if (change.vectors) this.addVectors(change.vectors);
    this.applied.add(change);
  }

  private apply(change: Change): void {
    this.index(change.papers);
    if (change.vectors) this.addVectors(change.vectors);
    this.applied.add(change);
  }

  private index(papers: readonly Paper[]): void {
    for (const paper of papers) {
      this.byId.set(paper.id, paper);
      this.lexicalIndex.add(paper);
    }
  }

  private addVectors(batch: VectorBatch): void {
    const dimension = batch.vectors[0].length;
    if (this.denseIndex === undefined || this.vectorModel !== batch.model || this.denseIndex.dimension !== dimension) {
      // The segments on disk hold the other encoder's vectors: only a full save drops them.
      if (this.denseIndex !== undefined) this.dirty = true;
      this.denseIndex = new DenseIndex(dimension);
      this.vectorModel = batch.model;
    }
    const dense = this.denseIndex;
    batch.ids.forEach((id, at) => dense.add(id, batch.vectors[at]));
  }

  /** These papers' vectors as the dense index keeps them (unit length), for a save to write. */
  private rowsOf(ids: readonly string[]): DenseIndexData | undefined {
    const dense = this.denseIndex;
    const unique = [...new Set(ids)].filter((id) => dense?.has(id));
    if (!dense || unique.length === 0) return undefined;
    const rows = new Float32Array(unique.length * dense.dimension);
    unique.forEach((id, at) => rows.set(dense.vector(id) as Float32Array, at * dense.dimension));
    return { ids: unique, vectors: rows };
  }

  /**
   * Brings memory up to what is on disk when another process saved since this one last read or wrote:
   * its papers are loaded, then this process's unsaved changes are applied again on top.
   */
  private async catchUp(): Promise<void> {
    const disk = await readManifest(this.dir);
    const current = this.manifest === undefined ? disk.kind === 'none' : disk.kind === 'valid' && JSON.stringify(disk.manifest) === JSON.stringify(this.manifest);
    if (current && !(this.manifest === undefined && this.dirty)) return;
    // Into a store of its own, so that searches meanwhile, and a failure, see memory as it was.
    const fresh = new PaperStore(this.dir);
    await fresh.loadFromDisk();
    this.byId = fresh.byId;
    this.lexicalIndex = fresh.lexicalIndex;
    this.denseIndex = fresh.denseIndex;
    this.vectorModel = fresh.vectorModel;
    this.manifest = fresh.manifest;
    this.damaged = fresh.damaged;
    this.dirty ||= fresh.dirty;
    for (const change of this.unsaved) this.apply(change);
  }

  private async save(change: Change): Promise<void> {
    // An earlier save wrote it along with its own, after a failure had left it unsaved.
    if (!this.unsaved.includes(change)) return;
    const { release, compromised } = await this.lock();
    try {
      await this.catchUp();
      const saved = await this.saveLocked(compromised);
      this.unsaved = this.unsaved.filter((c) => !saved.includes(c));
    } catch (error) {
      throw StoreWriteError.of(this.dir, error);
    } finally {
      await release().catch(() => undefined);
    }
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
    const previous = this.manifest;
    const generation = (previous?.generation ?? 0) + 1;
    const prefix = `g${String(generation).padStart(6, '0')}-${randomBytes(4).toString('hex')}`;
    const written: string[] = [];
    const write: Writer = async (suffix, content) => {
      const file = `${prefix}.${suffix}`;
      written.push(file);
      await writeNew(path.join(this.dir, file), content);
      return file;
    };
    const compact = previous === undefined || this.dirty || this.needsCompaction(previous);
    const saved = this.unsaved.filter((c) => this.applied.has(c));
    try {
      await keepDamaged(this.dir, this.damaged);
      const next = compact ? await this.writeAll(generation, write) : await this.writeSegment(previous, generation, saved, write);
      const lost = compromised();
      if (lost) throw new Error(`another process took over the paper library's lock while this one was saving (${lost.message}); nothing was saved`);
      await replaceFile(path.join(this.dir, MANIFEST), JSON.stringify(next, null, 1));
      this.manifest = next;
      this.damaged = [];
      this.dirty = false;
    } catch (error) {
      this.dirty = true;
      await Promise.all(written.map((file) => fs.rm(path.join(this.dir, file), { force: true }).catch(() => undefined)));
      throw error;
    }
    await collectGarbage(this.dir, [this.manifest, previous]);
    return saved;
  }

  private needsCompaction(manifest: Manifest): boolean {
    const tail = manifest.papers.slice(manifest.lexical.segments).reduce((sum, segment) => sum + segment.count, 0);
    return tail > Math.max(TAIL_PAPERS, this.size * TAIL_SHARE) || manifest.papers.length >= MAX_SEGMENTS || (manifest.vectors?.segments.length ?? 0) >= MAX_SEGMENTS;
  }

  /** Everything in memory, taken now so that additions during the writes wait for the next save. */
  private async writeAll(generation: number, write: Writer): Promise<Manifest> {
    const papers = [...this.byId.values()];
    const lexical = this.lexicalIndex.toJSON();
    const vectors = this.denseIndex?.toData();
    const encoder = this.encoder;
    const papersFile = await write('papers.jsonl', paperLines(papers));
    const lexicalFile = await write('lexical.jsonl', lexicalLines(lexical));
    return {
      format: FORMAT,
      version: STORE_VERSION,
      generation,
      papers: [{ file: papersFile, count: papers.length }],
      lexical: { file: lexicalFile, segments: 1 },
      ...(encoder && vectors && { vectors: { ...encoder, segments: [await writeVectors(vectors, write)] } }),
    };
  }

  private async writeSegment(previous: Manifest, generation: number, changes: readonly Change[], write: Writer): Promise<Manifest> {
    const added = new Map<string, Paper>();
    for (const change of changes) for (const paper of change.papers) added.set(paper.id, paper);
    const papers = added.size === 0 ? [] : [{ file: await write('papers.jsonl', paperLines([...added.values()])), count: added.size }];
    const encoder = this.encoder;
    const rows = this.rowsOf(changes.flatMap((change) => (change.vectors && change.vectors.model === this.vectorModel ? change.vectors.ids : [])));
    const vectorSegments = rows ? [await writeVectors(rows, write)] : [];
    return {
      ...previous,
      generation,
      papers: [...previous.papers, ...papers],
      ...(encoder && { vectors: { ...encoder, segments: [...(previous.vectors?.segments ?? []), ...vectorSegments] } }),
    };
  }

  /** Throws when a file is missing, truncated or inconsistent with the manifest. */
  private async load(manifest: Manifest): Promise<void> {
    const covered = manifest.papers.slice(0, manifest.lexical.segments);
    const tail = manifest.papers.slice(manifest.lexical.segments);
    for (const segment of covered) for (const paper of await this.readSegment(segment)) this.byId.set(paper.id, paper);
    this.lexicalIndex = LexicalIndex.fromJSON(await readLexical(path.join(this.dir, manifest.lexical.file)));
    if (this.lexicalIndex.size !== this.byId.size || [...this.byId.keys()].some((id) => !this.lexicalIndex.has(id))) {
      throw new DamagedStore(`${manifest.lexical.file} does not index the papers of ${covered.map((s) => s.file).join(', ')}`);
    }
    for (const segment of tail) {
      for (const paper of await this.readSegment(segment)) {
        this.byId.set(paper.id, paper);
        this.lexicalIndex.add(paper);
      }
    }
    if (manifest.vectors) {
      const dense = new DenseIndex(manifest.vectors.dimension);
      for (const segment of manifest.vectors.segments) {
        const data = await readVectors(this.dir, segment, manifest.vectors.dimension);
        const stray = data.ids.find((id) => !this.byId.has(id));
        if (stray !== undefined) throw new DamagedStore(`${segment.ids} has a vector for '${stray}', which is in no papers file`);
        dense.addAll(data);
      }
      this.denseIndex = dense;
      this.vectorModel = manifest.vectors.model;
    }
    this.manifest = manifest;
  }

  private async readSegment(segment: Segment): Promise<Paper[]> {
    const { papers } = await readPapers(path.join(this.dir, segment.file), 'strict');
    if (papers.length !== segment.count) throw new DamagedStore(`${segment.file} holds ${papers.length} papers, not ${segment.count}`);
    return papers;
  }
}

/** Throws before anything changes when a batch of vectors cannot be added. */
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
  if (json.version !== STORE_VERSION) return { kind: 'invalid', reason: `it is format version ${String(json.version)}; this Attest reads version ${STORE_VERSION}` };
  return isManifest(json) ? { kind: 'valid', manifest: json } : { kind: 'invalid', reason: `${MANIFEST} is incomplete` };
}

function isManifest(json: Record<string, unknown>): json is Record<string, unknown> & Manifest {
  const { generation, papers, lexical, vectors } = json;
  if (!isCount(generation) || !Array.isArray(papers) || !papers.every(isSegment) || !isObject(lexical)) return false;
  if (typeof lexical.file !== 'string' || !isCount(lexical.segments) || lexical.segments > papers.length) return false;
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
const DATA_FILE = /^g(\d+)-[0-9a-f]{8}\.(?:papers\.jsonl|lexical\.jsonl|vectors\.f32|vector-ids\.json)$/;
const TEMP_FILE = /^manifest\.json\.[0-9a-f]{8}\.tmp$/;

async function papersFilesIn(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const generation = (name: string): number => Number(DATA_FILE.exec(name)?.[1] ?? 0);
  return names.filter((name) => DATA_FILE.test(name) && name.endsWith('.papers.jsonl')).sort((a, b) => generation(a) - generation(b) || a.localeCompare(b));
}

/**
 * Deletes the data files that neither this manifest nor the previous one names, and temporary
 * files of failed saves. The previous manifest's files stay for readers that read it just before
 * this save. Failures are ignored: a file left behind costs space, never correctness.
 */
async function collectGarbage(dir: string, manifests: readonly (Manifest | undefined)[]): Promise<void> {
  const keep = new Set(manifests.flatMap((m) => (m === undefined ? [] : filesOf(m))));
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
  return [...manifest.papers.map((s) => s.file), manifest.lexical.file, ...(manifest.vectors?.segments.flatMap((s) => [s.file, s.ids]) ?? [])];
}

// ---------------------------------------------------------------------------------------
// Files

/** Text produced a chunk at a time, so no file needs one string of its whole size. */
type Content = Iterable<string> | Uint8Array;

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

function* paperLines(papers: readonly Paper[]): Iterable<string> {
  for (const paper of papers) yield `${JSON.stringify(paper)}\n`;
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

function parsePaper(line: string): Paper | undefined {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!isObject(json) || typeof json.id !== 'string' || json.id === '' || typeof json.title !== 'string' || !Array.isArray(json.authors)) return undefined;
  return json as unknown as Paper;
}

/**
 * The lexical index as lines: its ids, then each field's lengths followed by one line per term's
 * postings. One `JSON.stringify` of the whole index would pass V8's largest string (about 512 MB)
 * near 450,000 abstracts.
 */
function* lexicalLines(data: LexicalIndexData): Iterable<string> {
  yield `${JSON.stringify({ ids: data.ids })}\n`;
  for (const field of data.fields) {
    yield `${JSON.stringify({ lengths: field.lengths })}\n`;
    for (const [term, postings] of Object.entries(field.postings)) yield `${JSON.stringify([term, postings])}\n`;
  }
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

async function readVectors(dir: string, segment: VectorSegment, dimension: number): Promise<DenseIndexData> {
  const ids: unknown = JSON.parse(await readRegular(path.join(dir, segment.ids), LARGEST_TEXT_BYTES));
  if (!Array.isArray(ids) || ids.length !== segment.count || !ids.every((id) => typeof id === 'string')) throw new DamagedStore(`${segment.ids} does not list ${segment.count} ids`);
  const { handle, stats } = await openRegularFile(path.join(dir, segment.file));
  let bytes: Buffer;
  try {
    if (stats.size !== segment.count * dimension * 4) throw new DamagedStore(`${segment.file} holds ${stats.size} bytes, not ${segment.count} vectors of ${dimension} floats`);
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  const vectors = new Float32Array(segment.count * dimension);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  for (let i = 0; i < vectors.length; i++) vectors[i] = view.getFloat32(i * 4, true);
  return { ids: ids as string[], vectors };
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
  return error instanceof DamagedStore || error instanceof SyntaxError || error instanceof NotRegularFileError || isMissingFile(error);
}

function isMissingFile(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
