/** The store's file primitives: new files flushed before they are named, whole replacements, bounded reads, clean-up. */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, openSync, read, readSync, constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Paper } from '../../papers/paper';
import { LARGEST_TEXT_BYTES, openRegularFile } from '../../text/readFile';
import { openRegular, parsePaper, type SegmentWriter } from '../segment';
import { DamagedStore } from './damage';

/** Where a save keeps the papers files the rebuild it writes could not read in full. */
export const DAMAGED_FOLDER = 'damaged';

/** Data files are `g<generation>-<random>.<kind>`; nothing else in the folder is the store's. */
export const DATA_FILE = /^g(\d+)-[0-9a-f]{8}\.(?:papers\.jsonl|lexical\.bin|lexical\.jsonl|vectors\.f32|vector-ids\.json)$/;
export const TEMP_FILE = /^manifest\.json\.[0-9a-f]{8}\.tmp$/;

export async function papersFilesIn(dir: string): Promise<string[]> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const generation = (name: string): number => Number(DATA_FILE.exec(name)?.[1] ?? 0);
  return names.filter((name) => DATA_FILE.test(name) && name.endsWith('.papers.jsonl')).sort((a, b) => generation(a) - generation(b) || a.localeCompare(b));
}

/**
 * Deletes the data files that neither this manifest nor the previous one names (`keep`), and
 * temporary files of failed saves. The previous manifest's files stay for readers that read it just
 * before this save. Failures are ignored: a file left behind costs space, never correctness.
 */
export async function collectGarbage(dir: string, files: readonly string[]): Promise<void> {
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
export async function keepDamaged(dir: string, files: readonly string[]): Promise<void> {
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

/** Text produced a chunk at a time, so no file needs one string of its whole size. */
export type Content = Parameters<SegmentWriter>[1];

/** About a megabyte of text per write. */
export const CHUNK = 1 << 20;

/** Writes a file that must not exist yet, and flushes it to the disk before the manifest names it. */
export async function writeNew(file: string, content: Content): Promise<void> {
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
export async function replaceFile(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeNew(temp, [text]);
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

export async function readPapers(file: string, mode: 'strict' | 'lenient'): Promise<{ papers: Paper[]; skipped: number }> {
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

/**
 * Fills `target` with a regular file of exactly its length; anything else is damage. The file is
 * opened at once and its read begun before this returns.
 */
export async function readInto(dir: string, name: string, target: Uint8Array): Promise<void> {
  const { fd, size } = openRegular(dir, name);
  try {
    if (size !== target.length) throw new DamagedStore(`${name} holds ${size} bytes, not ${target.length}`);
    for (let done = 0; done < target.length;) {
      const bytesRead = await new Promise<number>((resolve, reject) =>
        read(fd, target, done, target.length - done, done, (error, count) => (error ? reject(error) : resolve(count))),
      );
      if (bytesRead === 0) throw new DamagedStore(`${name} ends early`);
      done += bytesRead;
    }
  } finally {
    closeSync(fd);
  }
}

/** A regular file of the store whole, no larger than text the library writes; anything else is damage. */
export function readWholeSync(file: string): Uint8Array {
  const fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new DamagedStore(`${path.basename(file)} is not a regular file`);
    if (stats.size > LARGEST_TEXT_BYTES) throw new DamagedStore(`${path.basename(file)} is ${stats.size} bytes, more than the library writes`);
    const bytes = new Uint8Array(stats.size);
    for (let done = 0; done < bytes.length;) {
      const read = readSync(fd, bytes, done, bytes.length - done, done);
      if (read === 0) throw new DamagedStore(`${path.basename(file)} ends early`);
      done += read;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}

/** A small file of the store, whole; one that is not a regular file, or larger than `maxBytes`, is damage. */
export async function readRegular(file: string, maxBytes: number): Promise<string> {
  const { handle, stats } = await openRegularFile(file);
  try {
    if (stats.size > maxBytes) throw new DamagedStore(`${path.basename(file)} is ${stats.size} bytes, more than the library writes`);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
