/**
 * The disk cache of source lookups, so a reference checked yesterday is not asked about again today
 * and a manuscript can be checked offline.
 *
 *   const cache = new LookupCache(directory);            // lifetimes default to 30 days / 7 days
 *   await cache.get(key)                                 // CachedAnswer | undefined (miss, expired, corrupt)
 *   await cache.get(key, { includeExpired: true })       // what offline mode serves
 *   await cache.set(key, { status: 200, body })          // or { status: 404, body: '' }
 *
 * Keys are request URLs without secrets (`HttpClient` builds them). One file per entry, in a
 * directory sharded by the key's hash; a file that cannot be read as an entry is a miss, and so is
 * one that is not a regular file (a FIFO would block the read, a link to /dev/zero never end it) or is
 * larger than any entry this cache writes: the next answer replaces it.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readFileBounded } from '../text/readFile';

/** A source's answer worth remembering: the work (200) or its absence (404). */
export interface CachedAnswer {
  readonly status: 200 | 404;
  /** The response body as text; empty for a 404. */
  readonly body: string;
}

export interface CacheLifetimes {
  readonly foundMs: number;
  /** Shorter, because a work missing today (a new DOI not yet indexed) may be found next week. */
  readonly notFoundMs: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const DEFAULT_LIFETIMES: CacheLifetimes = { foundMs: 30 * DAY_MS, notFoundMs: 7 * DAY_MS };

/**
 * The largest entry written or read. `HttpClient` reads no body over 20 MB, and JSON escaping of a
 * real answer adds far less than the rest; an answer whose entry would be larger is not kept.
 */
export const MAX_ENTRY_BYTES = 32 * 1024 * 1024;

interface StoredEntry extends CachedAnswer {
  /** Kept so two keys whose hashes collide are never confused, and so a person can read the file. */
  readonly key: string;
  readonly storedAt: number;
}

export class LookupCache {
  constructor(
    readonly directory: string,
    private readonly lifetimes: CacheLifetimes = DEFAULT_LIFETIMES,
  ) {}

  /** `maxAgeMs` shortens the entry's lifetime for this read: an answer read for a retraction status is kept a week. */
  async get(key: string, options: { includeExpired?: boolean; maxAgeMs?: number } = {}): Promise<CachedAnswer | undefined> {
    let entry: unknown;
    try {
      const bytes = await readFileBounded(this.fileFor(key), MAX_ENTRY_BYTES);
      if (!bytes) return undefined;
      entry = JSON.parse(bytes.toString('utf8'));
    } catch {
      return undefined;
    }
    if (!isStoredEntry(entry) || entry.key !== key) return undefined;
    const lifetime = Math.min(entry.status === 200 ? this.lifetimes.foundMs : this.lifetimes.notFoundMs, options.maxAgeMs ?? Infinity);
    if (!options.includeExpired && Date.now() - entry.storedAt > lifetime) return undefined;
    return { status: entry.status, body: entry.body };
  }

  async set(key: string, answer: CachedAnswer): Promise<void> {
    const file = this.fileFor(key);
    const entry = JSON.stringify({ key, status: answer.status, body: answer.body, storedAt: Date.now() } satisfies StoredEntry);
    if (Buffer.byteLength(entry) > MAX_ENTRY_BYTES) return;
    // Written aside and renamed, so a reader (or a crash) never sees half an entry.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(temp, entry);
      await fs.rename(temp, file);
    } catch {
      // A cache that cannot be written only costs a repeated lookup; the answer in hand is still good.
      await fs.rm(temp, { force: true }).catch(() => undefined);
    }
  }

  private fileFor(key: string): string {
    const hash = createHash('sha256').update(key).digest('hex');
    return path.join(this.directory, hash.slice(0, 2), `${hash}.json`);
  }
}

function isStoredEntry(value: unknown): value is StoredEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return typeof entry.key === 'string' && (entry.status === 200 || entry.status === 404) && typeof entry.body === 'string' && typeof entry.storedAt === 'number';
}
