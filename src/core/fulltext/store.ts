/**
 * Full texts kept on disk between checks, read into passages, under a size cap: when a new one would
 * pass it, the least recently used go. A full text is never sent anywhere; it is the user's cache.
 *
 *   const store = new FullTextStore(directory, 200 * 1024 * 1024);
 *   await store.get('europepmc:PMC7000001')   // FullTextResult | undefined (miss, expired, damaged)
 *   await store.set('europepmc:PMC7000001', { fullText })
 *
 * An answer that there is no full text (a reason) is kept for a week, since a paper may open up;
 * failures to reach a service are never stored.
 */
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { FullTextResult } from './types';

const DAY_MS = 24 * 60 * 60 * 1000;
const FOUND_MS = 90 * DAY_MS;
const NONE_MS = 7 * DAY_MS;

interface StoredFullText {
  readonly key: string;
  readonly storedAt: number;
  readonly result: FullTextResult;
}

export class FullTextStore {
  constructor(
    readonly directory: string,
    private readonly maxBytes: number,
  ) {}

  async get(key: string): Promise<FullTextResult | undefined> {
    const file = this.fileFor(key);
    let stored: StoredFullText;
    try {
      stored = JSON.parse(await fs.readFile(file, 'utf8')) as StoredFullText;
    } catch {
      return undefined;
    }
    if (stored?.key !== key || !isResult(stored.result)) return undefined;
    const lifetime = 'fullText' in stored.result ? FOUND_MS : NONE_MS;
    if (Date.now() - stored.storedAt > lifetime) return undefined;
    // The file's modification time is its last use, for the least-recently-used eviction.
    const now = new Date();
    await fs.utimes(file, now, now).catch(() => undefined);
    return stored.result;
  }

  async set(key: string, result: FullTextResult): Promise<void> {
    const file = this.fileFor(key);
    const body = JSON.stringify({ key, storedAt: Date.now(), result } satisfies StoredFullText);
    if (Buffer.byteLength(body) > this.maxBytes) return;
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await fs.mkdir(this.directory, { recursive: true });
      await fs.writeFile(temp, body);
      await fs.rename(temp, file);
      await this.evict(file);
    } catch {
      // A store that cannot be written only costs reading the full text again.
      await fs.rm(temp, { force: true }).catch(() => undefined);
    }
  }

  /** Removes the least recently used entries until the store fits its cap, never the one just written. */
  private async evict(keep: string): Promise<void> {
    const names = (await fs.readdir(this.directory)).filter((name) => name.endsWith('.json'));
    const entries: { file: string; size: number; used: number }[] = [];
    for (const name of names) {
      const file = path.join(this.directory, name);
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat) entries.push({ file, size: stat.size, used: stat.mtimeMs });
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

function isResult(value: unknown): value is FullTextResult {
  if (typeof value !== 'object' || value === null) return false;
  const result = value as Record<string, unknown>;
  if (typeof result.reason === 'string') return true;
  const fullText = result.fullText as Record<string, unknown> | undefined;
  return typeof fullText === 'object' && fullText !== null && typeof fullText.source === 'string' && Array.isArray(fullText.passages);
}
