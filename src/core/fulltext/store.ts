/**
 * Full texts kept on disk between checks, read into passages, under a size cap: when a new one would
 * pass it, the least recently used go. A full text is never sent anywhere; it is the user's cache.
 *
 *   const store = new FullTextStore(directory, 200 * 1024 * 1024);
 *   await store.get('europepmc:PMC7000001')   // FullTextResult | undefined (miss, expired, damaged)
 *   await store.set('europepmc:PMC7000001', { fullText })
 *
 * An answer that there is no full text (a reason) is kept for a week, since a paper may open up, or
 * until its `retryAt` if that comes sooner; failures to reach a service, and reasons that may pass (`transient`), are never stored.
 *
 * Several processes share the folder (VS Code windows, CLI runs). Writers take a lock on it
 * (proper-lockfile, as the paper library does), so that one's eviction never races another's write;
 * each entry is written to a temporary file and renamed, so a reader sees a whole entry or none, and
 * an entry that does not read back is a miss, as is one that is not a regular file (a FIFO or a link to
 * /dev/zero would hold the read forever) or is larger than the whole store may be. Readers never write or delete: what a process read is
 * remembered in memory and marked as used on disk by its next write, for the least-recently-used order.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import { readFileBounded } from '../text/readFile';
import type { FullTextResult } from './types';

const DAY_MS = 24 * 60 * 60 * 1000;
const FOUND_MS = 90 * DAY_MS;
const NONE_MS = 7 * DAY_MS;

/**
 * A cache write is not worth a long wait: past this the entry is not stored, and the full text is
 * read again next time. A lock not refreshed for LOCK_STALE_MS belongs to a process that died.
 */
const LOCK_WAIT_MS = 10_000;
const LOCK_RETRY_MS = 50;
const LOCK_STALE_MS = 10_000;
const LOCK_FILE = 'write.lock';

interface StoredFullText {
  readonly key: string;
  readonly storedAt: number;
  readonly result: FullTextResult;
}

export class FullTextStore {
  /** Entries this process read since its last write, with when: the next write marks them used on disk. */
  private readonly used = new Map<string, Date>();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly directory: string,
    private readonly maxBytes: number,
  ) {}

  async get(key: string): Promise<FullTextResult | undefined> {
    const file = this.fileFor(key);
    let stored: StoredFullText;
    try {
      const bytes = await readFileBounded(file, this.maxBytes);
      if (!bytes) return undefined;
      stored = JSON.parse(bytes.toString('utf8')) as StoredFullText;
    } catch {
      return undefined;
    }
    if (stored?.key !== key || !isResult(stored.result) || isTransient(stored.result)) return undefined;
    const lifetime = 'fullText' in stored.result ? FOUND_MS : NONE_MS;
    if (Date.now() - stored.storedAt > lifetime) return undefined;
    if ('reason' in stored.result && typeof stored.result.retryAt === 'number' && Date.now() >= stored.result.retryAt) return undefined;
    this.used.set(file, new Date());
    return stored.result;
  }

  /** Stores `result` under `key`; a reason that may pass is not stored. Never throws: a store that cannot be written only costs reading again. */
  async set(key: string, result: FullTextResult): Promise<void> {
    if (isTransient(result)) return;
    const body = JSON.stringify({ key, storedAt: Date.now(), result } satisfies StoredFullText);
    if (Buffer.byteLength(body) > this.maxBytes) return;
    // One write of this process at a time: the others would only wait for the lock in turn.
    const write = this.writing.then(() => this.write(this.fileFor(key), body));
    this.writing = write.catch(() => undefined);
    await this.writing;
  }

  private async write(file: string, body: string): Promise<void> {
    await fs.mkdir(this.directory, { recursive: true });
    const release = await lockfile.lock(this.directory, {
      lockfilePath: path.join(this.directory, LOCK_FILE),
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: { retries: LOCK_WAIT_MS / LOCK_RETRY_MS, factor: 1, minTimeout: LOCK_RETRY_MS, maxTimeout: LOCK_RETRY_MS },
      // Losing the lock (a stalled process) costs at most an eviction decided on an old listing.
      onCompromised: () => undefined,
    });
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temp, body);
      await fs.rename(temp, file);
      await this.markUsed();
      await this.evict(file);
    } finally {
      await fs.rm(temp, { force: true }).catch(() => undefined);
      await release().catch(() => undefined);
    }
  }

  /** Gives the entries this process read their time of use, as modification times, for the eviction order. */
  private async markUsed(): Promise<void> {
    const used = [...this.used];
    this.used.clear();
    for (const [file, when] of used) await fs.utimes(file, when, when).catch(() => undefined);
  }

  /**
   * Removes the least recently used entries until the store fits its cap, never the one just written;
   * and temporary files of writers that died, which no live writer can own while this one holds the lock.
   */
  private async evict(keep: string): Promise<void> {
    const entries: { file: string; size: number; used: number }[] = [];
    for (const name of await fs.readdir(this.directory)) {
      const file = path.join(this.directory, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (!stat?.isFile()) continue;
      if (name.endsWith('.tmp') && Date.now() - stat.mtimeMs > LOCK_STALE_MS) await fs.rm(file, { force: true });
      else if (name.endsWith('.json')) entries.push({ file, size: stat.size, used: stat.mtimeMs });
    }
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    entries.sort((a, b) => a.used - b.used);
    for (const entry of entries) {
      if (total <= this.maxBytes) break;
      if (entry.file === keep) continue;
      await fs.rm(entry.file, { force: true });
      total -= entry.size;
    }
  }

  private fileFor(key: string): string {
    return path.join(this.directory, `${createHash('sha256').update(key).digest('hex')}.json`);
  }
}

function isTransient(result: FullTextResult): boolean {
  return 'reason' in result && result.transient === true;
}

function isResult(value: unknown): value is FullTextResult {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as Record<string, unknown>;
  if (typeof result.reason === 'string') return true;
  const fullText = result.fullText as Record<string, unknown> | undefined;
  return typeof fullText === 'object' && fullText !== null && typeof fullText.source === 'string' && Array.isArray(fullText.passages);
}
