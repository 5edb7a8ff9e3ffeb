/** A save's parts outside the store's memory: the folder's write lock, the new files of a generation, merged segments. */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type * as Lockfile from 'proper-lockfile';
import type { Paper } from '../../papers/paper';
import type { DiskSegment, SegmentFiles, SegmentWriter } from '../segment';
import { StoreWriteError } from './errors';
import { writeNew } from './files';
import { SEGMENT_ROWS, openSegments, placesOf } from './places';

/** How long a writer waits for another to finish, and after what silence a lock counts as abandoned. */
const LOCK_WAIT_MS = 120_000;
const LOCK_RETRY_MS = 100;
const LOCK_STALE_MS = 10_000;
const LOCK_FILE = 'write.lock';

/**
 * Takes the write lock, waiting while another writer holds it. Only that is waited out: a folder
 * that may not be written, or a `write.lock` that is not the lock's, fails at once.
 */
export async function lockStore(dir: string): Promise<{ release: () => Promise<void>; compromised: () => Error | undefined }> {
  const lockPath = path.join(dir, LOCK_FILE);
  let compromised: Error | undefined;
  try {
    await fs.mkdir(dir, { recursive: true });
  } catch (error) {
    throw StoreWriteError.of(dir, error);
  }
  // Loaded by the first writer: a reader never takes the lock.
  const lockfile: typeof Lockfile = await import('proper-lockfile');
  const waitUntil = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const release = await lockfile.lock(dir, {
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
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw StoreWriteError.of(dir, error);
    }
    // A lock renewed with a clock ahead of this one's never looks abandoned: after the wait, the user decides.
    if (Date.now() >= waitUntil) {
      throw new StoreWriteError(
        dir,
        `another Attest has held its lock for over ${LOCK_WAIT_MS / 60_000} minutes`,
        `If no other Attest is adding papers to it (a lock can be left behind by a computer whose clock is ahead), delete ${lockPath} and add the papers again.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, LOCK_RETRY_MS));
  }
}

/**
 * The papers of `segments` from `from` on that no later one holds again, read from disk; the
 * segments of `kept` already open are read through, and stay open.
 */
export async function mergedPapers(dir: string, segments: readonly SegmentFiles[], from: number, kept: readonly DiskSegment[]): Promise<Iterable<Paper>> {
  const opened = await openSegments(dir, segments, kept);
  const { places } = placesOf(opened);
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

/**
 * Writes the data files of save `generation` under new names; `discard` deletes those written, when
 * the save fails before its manifest names them.
 */
export function generationWriter(dir: string, generation: number): { write: SegmentWriter; discard: () => Promise<void> } {
  const written: string[] = [];
  const write: SegmentWriter = async (suffix, content) => {
    const file = `g${String(generation).padStart(6, '0')}-${randomBytes(4).toString('hex')}.${suffix}`;
    written.push(file);
    await writeNew(path.join(dir, file), content);
    return file;
  };
  const discard = async (): Promise<void> => {
    await Promise.all(written.map((file) => fs.rm(path.join(dir, file), { force: true }).catch(() => undefined)));
  };
  return { write, discard };
}
