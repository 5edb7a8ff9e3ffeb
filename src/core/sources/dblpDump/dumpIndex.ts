/**
 * DBLP's dump indexed once in a folder of the host's storage, and searched there offline.
 *
 *   index.json          { format, version, dump: { path, size, mtimeMs }, generation, publications, runs, … }
 *   <gen>.records       one publication a line (JSON: key, title, authors, year, venue, doi, ee)
 *   <gen>.offsets       float64 × (publications + 1): where each line starts, and the end
 *   <gen>.lengths       uint8 × publications: each title's length in terms (titleIndex.ts)
 *   <gen>.lexical       the titles' words (titleIndex.ts)
 *
 * The index is current while its version is this Attest's and the dump has the path, size and
 * modification time recorded: a dump replaced by a newer download is indexed again, an unchanged one
 * is not. A build writes a new generation's files, then the manifest to a temporary file renamed over
 * the old one, so a reader sees the old index or the new, whole; then it deletes the older files.
 * Builds are serialised across processes (two windows, a window and the CLI) by a lock on the folder,
 * and one that finds, once it holds the lock, that another has just built the index is done.
 *
 * Memory while building: one run of the title index and a chunk of the file; the publications go to
 * disk as they are read. While searching: the title lengths (a byte a publication) and a sample of
 * the terms; a result's line is read from the file. An index open in a process stays as it was
 * opened: a dump downloaded anew is indexed when the source is next made (settings changed, a new run).
 */
import { randomBytes } from 'node:crypto';
import { closeSync, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import type * as Lockfile from 'proper-lockfile';
import { openRegular } from '../../index/segment';
import { replaceFile } from '../../index/store/files';
import { isObject, isStringList, parseJson, text } from '../../json';
import { NotRegularFileError } from '../../text/readFile';
import { isDblpKey, type DblpPublication } from '../dblp';
import { bytesOf, DamagedIndex, float64s, readAt, TitleIndex, TitleIndexWriter, titleTerms, type RunPlace } from './titleIndex';
import { DblpDumpError, readDblpDump, type DumpProgress } from './xml';

export { DamagedIndex } from './titleIndex';

/** Raised whenever what is written changes, so that an index of an earlier layout is built again. */
export const INDEX_VERSION = 1;
const FORMAT = 'attest-dblp-index';
const MANIFEST = 'index.json';
const LOCK_FILE = 'build.lock';
const DATA_FILE = /^([0-9a-f]{8})\.(?:records|offsets|lengths|lexical)$/;
/** A manifest is a few kilobytes; more is not one. */
const MAX_MANIFEST_BYTES = 1 << 20;
const LOCK_RETRY_MS = 500;
const LOCK_STALE_MS = 10_000;
/** A line of the records file: DBLP's longest records are a few hundred kilobytes. */
const MAX_RECORD_BYTES = 1 << 22;

/** Which dump an index was built from. */
export interface DumpIdentity {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

interface Manifest {
  readonly format: typeof FORMAT;
  readonly version: number;
  readonly dump: DumpIdentity;
  readonly generation: string;
  readonly publications: number;
  readonly recordsBytes: number;
  readonly lexicalBytes: number;
  readonly runs: readonly RunPlace[];
}

/** The dump's path (resolved), size and modification time; `DblpDumpError` when it cannot be read. */
export async function dumpIdentity(file: string): Promise<DumpIdentity> {
  const resolved = path.resolve(file);
  try {
    const stat = await fs.stat(resolved);
    if (stat.isFile()) return { path: resolved, size: stat.size, mtimeMs: stat.mtimeMs };
  } catch (error) {
    throw new DblpDumpError(
      `DBLP's dump ${resolved} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); set attest.sources.dblp.dumpFile to dblp.xml or dblp.xml.gz as downloaded from https://dblp.org/xml/.`,
    );
  }
  throw new DblpDumpError(`DBLP's dump ${resolved} is not a file; set attest.sources.dblp.dumpFile to dblp.xml or dblp.xml.gz as downloaded from https://dblp.org/xml/.`);
}

export interface BuildOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: DumpProgress) => void;
}

/**
 * Indexes the dump at `file` into `folder` unless the index there is already of this dump. Throws
 * `DblpDumpError` for a dump that cannot be read in full (the index is then left as it was), an
 * `AbortError` when cancelled, and the file system's error when the folder cannot be written.
 */
export async function buildDumpIndex(file: string, folder: string, options: BuildOptions = {}): Promise<void> {
  const dump = await dumpIdentity(file);
  await fs.mkdir(folder, { recursive: true });
  const release = await lock(folder, options.signal);
  try {
    if ((await readManifest(folder, dump)) !== undefined) return;
    const generation = randomBytes(4).toString('hex');
    const manifest = await writeGeneration(dump, folder, generation, options);
    await replaceFile(path.join(folder, MANIFEST), JSON.stringify(manifest));
    await removeOtherGenerations(folder, generation);
  } finally {
    await release();
  }
}

async function writeGeneration(dump: DumpIdentity, folder: string, generation: string, { signal, onProgress }: BuildOptions): Promise<Manifest> {
  const names = ['records', 'offsets', 'lengths', 'lexical'].map((suffix) => path.join(folder, `${generation}.${suffix}`));
  const handles: FileHandle[] = [];
  try {
    for (const name of names) handles.push(await fs.open(name, 'wx'));
    const [records, offsets, lengths, lexical] = handles;
    const titles = new TitleIndexWriter(lexical);
    let recordsBytes = 0;
    let lines: string[] = [];
    let starts: number[] = [0];
    let sizes: number[] = [];
    let doc = 0;
    const flush = async (): Promise<void> => {
      await records.write(lines.join(''));
      await offsets.write(bytesOf(Float64Array.from(starts.slice(1))));
      await lengths.write(Uint8Array.from(sizes));
      lines = [];
      starts = [recordsBytes];
      sizes = [];
      if (titles.full) await titles.flush();
    };
    await offsets.write(bytesOf(Float64Array.of(0)));
    const publications = await readDblpDump(
      dump.path,
      (publication) => {
        const line = `${JSON.stringify(publication)}\n`;
        const terms = titleTerms(publication.title);
        titles.add(doc++, terms);
        lines.push(line);
        recordsBytes += Buffer.byteLength(line);
        starts.push(recordsBytes);
        sizes.push(Math.min(terms.length, 255));
      },
      {
        signal,
        afterChunk: async (progress) => {
          await flush();
          onProgress?.(progress);
        },
      },
    );
    await flush();
    const { runs, bytes } = await titles.finish();
    for (const handle of handles) await handle.sync();
    return { format: FORMAT, version: INDEX_VERSION, dump, generation, publications, recordsBytes, lexicalBytes: bytes, runs };
  } catch (error) {
    // Closed first: Windows deletes no open file.
    await closeAll(handles);
    await Promise.all(names.map((name) => fs.rm(name, { force: true }).catch(() => undefined)));
    throw error;
  } finally {
    await closeAll(handles);
  }
}

async function closeAll(handles: FileHandle[]): Promise<void> {
  for (const handle of handles.splice(0)) await handle.close().catch(() => undefined);
}

/** Deletes the files of other generations: a reader that still has one open keeps reading it (on Windows, the file stays until the next build). */
async function removeOtherGenerations(folder: string, generation: string): Promise<void> {
  for (const name of await fs.readdir(folder)) {
    const match = DATA_FILE.exec(name);
    if (match && match[1] !== generation) await fs.rm(path.join(folder, name), { force: true }).catch(() => undefined);
  }
}

/** Waits for the folder's build lock: another process building the same index is waited out, however long. */
async function lock(folder: string, signal: AbortSignal | undefined): Promise<() => Promise<void>> {
  // Loaded by the first build: a search never takes the lock.
  const lockfile: typeof Lockfile = await import('proper-lockfile');
  for (;;) {
    signal?.throwIfAborted();
    try {
      return await lockfile.lock(folder, { lockfilePath: path.join(folder, LOCK_FILE), realpath: false, stale: LOCK_STALE_MS, retries: 0, onCompromised: () => undefined });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

/** The manifest in `folder` when it is this version's and of `dump`; undefined otherwise. */
async function readManifest(folder: string, dump: DumpIdentity): Promise<Manifest | undefined> {
  let raw: string;
  try {
    const file = path.join(folder, MANIFEST);
    if ((await fs.stat(file)).size > MAX_MANIFEST_BYTES) return undefined;
    raw = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const json = parseJson(raw);
  if (!isManifest(json)) return undefined;
  const same = json.dump.path === dump.path && json.dump.size === dump.size && json.dump.mtimeMs === dump.mtimeMs;
  return json.version === INDEX_VERSION && same ? json : undefined;
}

function isManifest(json: unknown): json is Manifest {
  const whole = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
  if (!isObject(json) || json.format !== FORMAT || !whole(json.version) || !isObject(json.dump) || !Array.isArray(json.runs)) return false;
  const { dump } = json;
  return (
    typeof dump.path === 'string' &&
    whole(dump.size) &&
    typeof dump.mtimeMs === 'number' &&
    typeof json.generation === 'string' &&
    /^[0-9a-f]{8}$/.test(json.generation) &&
    whole(json.publications) &&
    whole(json.recordsBytes) &&
    whole(json.lexicalBytes) &&
    json.runs.every(
      (run) => isObject(run) && ['terms', 'termsAt', 'termsBytes', 'samplesAt', 'samplesBytes', 'blocksAt', 'tableAt', 'postingsAt', 'postings'].every((k) => whole(run[k])),
    )
  );
}

/** The files of an open index, closed once nothing can read them. */
const openFiles = new FinalizationRegistry<readonly number[]>((fds) => fds.forEach((fd) => closeSync(fd)));

/** An index open for searching. */
export class DblpDumpIndex {
  private constructor(
    private readonly titles: TitleIndex,
    private readonly offsetsFd: number,
    private readonly recordsFd: number,
    /** How many publications it holds. */
    readonly size: number,
  ) {}

  /**
   * The index in `folder` when it is current for `dump`; undefined when there is none, it is of
   * another dump or version, or its files do not agree with its manifest: then it is built again.
   */
  static async open(folder: string, dump: DumpIdentity): Promise<DblpDumpIndex | undefined> {
    const manifest = await readManifest(folder, dump);
    if (manifest === undefined) return undefined;
    const fds: number[] = [];
    const openFile = (suffix: string, bytes: number): number => {
      const { fd, size } = openRegular(folder, `${manifest.generation}.${suffix}`);
      fds.push(fd);
      if (size !== bytes) throw new DamagedIndex(`${manifest.generation}.${suffix} is not the size its manifest says`);
      return fd;
    };
    try {
      const records = openFile('records', manifest.recordsBytes);
      const offsets = openFile('offsets', (manifest.publications + 1) * 8);
      const lengthsFd = openFile('lengths', manifest.publications);
      const lexical = openFile('lexical', manifest.lexicalBytes);
      const lengths = readAt(lengthsFd, manifest.publications, 0);
      const index = new DblpDumpIndex(TitleIndex.open(lexical, manifest.runs, lengths), offsets, records, manifest.publications);
      openFiles.register(index, fds);
      return index;
    } catch (error) {
      for (const fd of fds) closeSync(fd);
      if (error instanceof DamagedIndex || error instanceof NotRegularFileError || (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** The publications whose titles best match `title`, best first. Throws `DamagedIndex` where the files disagree. */
  search(title: string, limit: number): DblpPublication[] {
    return this.titles.search(title, limit).map((doc) => this.publicationAt(doc));
  }

  private publicationAt(doc: number): DblpPublication {
    if (doc >= this.size) throw new DamagedIndex('the title index names a publication past the last');
    const [start, end] = float64s(readAt(this.offsetsFd, 16, doc * 8));
    if (!(end > start) || end - start > MAX_RECORD_BYTES) throw new DamagedIndex('a publication of the index has no line');
    const publication = parsePublication(Buffer.from(readAt(this.recordsFd, end - start, start)).toString('utf8'));
    if (publication === undefined) throw new DamagedIndex('a line of the index is not a publication');
    return publication;
  }
}

/** A records line read back, each field checked: the file is outside this process's memory. */
function parsePublication(line: string): DblpPublication | undefined {
  const json = parseJson(line);
  if (!isObject(json)) return undefined;
  const key = text(json.key);
  const title = text(json.title);
  const optional = (value: unknown): value is string | undefined => value === undefined || typeof value === 'string';
  if (key === undefined || !isDblpKey(key) || title === undefined || !isStringList(json.authors) || !isStringList(json.ee)) return undefined;
  if (!optional(json.year) || !optional(json.venue) || !optional(json.doi)) return undefined;
  return { key, title, authors: json.authors, year: json.year, venue: json.venue, doi: json.doi, ee: json.ee };
}
