import { constants, promises as fs, type Stats } from 'node:fs';
import { decodeTextWithEncoding, UnreadableFileError, type DecodedText } from './decode';
import { mayNotBeUtf8, notUtf8Note } from './fileNames';

const CHUNK = 1024 * 1024;

/** Inputs such as paper collections to import: V8 holds no longer string. */
export const LARGEST_TEXT_BYTES = 500 * 1024 * 1024;
/** Settings, lists and model descriptions: far more than any real one. */
export const SMALL_FILE_BYTES = 64 * 1024 * 1024;

/**
 * The one way Attest reads a file. It refuses what is not a regular file (a FIFO, device or folder
 * named as a bibliography would block or never end), and counts bytes as they arrive instead of
 * trusting the size the file system reports, which is 0 for /proc files that never end.
 * Returns undefined when there is no such file.
 */
export async function readFileBounded(file: string, maxBytes: number): Promise<Buffer | undefined> {
  const opened = await openToRead(file);
  if (opened === undefined) return undefined;
  const { handle, stats } = opened;
  try {
    if (stats.size > maxBytes) throw tooLarge(file, maxBytes, `is ${megabytes(stats.size)} MB, over`);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      // Whole chunks: some /proc files (pagemap) refuse reads of other sizes.
      const buffer = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(file, maxBytes, 'is over');
      chunks.push(bytesRead === buffer.length ? buffer : buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks, total);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw error;
    throw new UnreadableFileError(file, `${file} could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  } finally {
    await handle.close();
  }
}

/** A file's text, read as `readFileBounded` does and decoded as `decodeText` does. */
export async function readTextFile(file: string, maxBytes: number): Promise<DecodedText | undefined> {
  const bytes = await readFileBounded(file, maxBytes);
  return bytes && decodeTextWithEncoding(bytes, file);
}

/** The file opened by `openRegularFile`, undefined when there is none; other failures said as `UnreadableFileError`. */
async function openToRead(file: string): Promise<OpenedFile | undefined> {
  try {
    return await openRegularFile(file);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new UnreadableFileError(file, openFailure(file, code, error));
  }
}

interface OpenedFile {
  readonly handle: fs.FileHandle;
  readonly stats: Stats;
}

/**
 * Opens a file to read, refusing (`NotRegularFileError`) what is not a regular file; errors of the
 * open itself (ENOENT, EACCES, …) are thrown as they are, for the caller to tell apart.
 */
export async function openRegularFile(file: string): Promise<OpenedFile> {
  // Non-blocking, so that opening a FIFO with no writer returns at once and is then refused.
  const handle = await fs.open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    const kind = notRegularKind(stats);
    if (kind) throw new NotRegularFileError(file, `${file} is ${kind}, not a regular file; Attest reads only regular files.`);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Like `readTextFile`, for a file the user named: its absence is an error too. */
export async function readNamedTextFile(file: string, maxBytes: number): Promise<string> {
  const read = await readTextFile(file, maxBytes);
  if (!read) throw new UnreadableFileError(file, `${file} does not exist${mayNotBeUtf8(file) ? notUtf8Note : ''}.`);
  return read.text;
}

/**
 * A file the user named, a line at a time (split at line feeds, as `text.split('\n')` splits), for
 * inputs too large to hold as one string, such as a collection of papers to import. Read as
 * `readFileBounded` reads, to `maxBytes` at most. UTF-8 is decoded as it comes, its BOM dropped; a file
 * whose first megabyte is not UTF-8 (UTF-16 with a BOM, Windows-1252, binary) is read and decoded
 * whole by `readNamedTextFile`, which tells which.
 */
export async function* readNamedTextLines(file: string, maxBytes: number): AsyncIterableIterator<string> {
  const opened = await openToRead(file);
  if (opened === undefined) throw new UnreadableFileError(file, `${file} does not exist.`);
  const { handle, stats } = opened;
  let whole = false;
  try {
    if (stats.size > maxBytes) throw tooLarge(file, maxBytes, `is ${megabytes(stats.size)} MB, over`);
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
    let total = 0;
    let pending = '';
    for (let first = true; ; first = false) {
      const buffer = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(file, maxBytes, 'is over');
      let text: string;
      try {
        text = decoder.decode(buffer.subarray(0, bytesRead), { stream: bytesRead > 0 });
      } catch {
        if (!first) throw new UnreadableFileError(file, `${file} is not UTF-8 throughout; save it as UTF-8 and import it again.`);
        whole = true;
        break;
      }
      if (first && text.includes('\0')) {
        whole = true;
        break;
      }
      const lines = (pending + text).split('\n');
      pending = lines.pop() ?? '';
      yield* lines;
      if (bytesRead === 0) break;
    }
    if (!whole && pending !== '') yield pending;
  } catch (error) {
    if (error instanceof UnreadableFileError) throw error;
    throw new UnreadableFileError(file, `${file} could not be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  } finally {
    await handle.close();
  }
  if (whole) yield* (await readNamedTextFile(file, maxBytes)).split('\n');
}

/** A FIFO, device, socket or folder where a file was expected. */
export class NotRegularFileError extends UnreadableFileError {}

/** A file over the size limit; the editor names the setting that sets it. */
export class FileTooLargeError extends UnreadableFileError {}

function tooLarge(file: string, maxBytes: number, what: string): FileTooLargeError {
  return new FileTooLargeError(file, `${file} ${what} the ${megabytes(maxBytes)} MB limit for files Attest reads; it was not read.`);
}

/** What a file that is not a regular file is, in words ("a named pipe (FIFO)"); undefined for a regular file. */
export function notRegularKind(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'a folder';
  if (stats.isFIFO()) return 'a named pipe (FIFO)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  return 'a special file';
}

function openFailure(file: string, code: string | undefined, error: unknown): string {
  if (code === 'EACCES' || code === 'EPERM') return `${file} could not be read: permission denied.`;
  if (code === 'EISDIR') return `${file} is a folder, not a regular file; Attest reads only regular files.`;
  return `${file} could not be opened (${code ?? String(error)}).`;
}

function megabytes(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}
