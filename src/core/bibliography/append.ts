import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { decodeTextWithEncoding, encodeText } from '../text/decode';
import { LARGEST_TEXT_BYTES, readFileBounded } from '../text/readFile';

/**
 * What to insert at the end of a .bib file's text to add `entryText` as a new entry: separated from
 * what is there by a blank line, in the file's own line endings, ending with a line break.
 */
export function textToAppend(existingText: string, entryText: string): string {
  const eol = /\r\n|\n/.exec(existingText)?.[0] ?? '\n';
  const entry = entryText.trim().replace(/\r?\n/g, eol) + eol;
  let end = existingText.length;
  while (end > 0 && /\s/.test(existingText[end - 1])) end--;
  if (end === 0) return entry;
  const trailingBreaks = existingText.slice(end).split('\n').length - 1;
  return eol.repeat(Math.max(0, 2 - trailingBreaks)) + entry;
}

/**
 * Appends an entry to a .bib file, all or nothing: the new content is written and flushed to a
 * temporary file beside the real one, which then replaces it in one rename. A reader never sees half
 * an entry, and a failure leaves the file as it was. The existing bytes are kept as they are, so a
 * Latin-1 file or a byte-order mark survives, and a UTF-16 file gets UTF-16. A file that does not exist
 * yet is created; a FIFO, device or folder is refused.
 */
export async function appendEntry(file: string, entryText: string): Promise<void> {
  const target = await resolveLinks(file);
  const current = await readIfExists(target);
  const existing = current?.bytes ?? Buffer.alloc(0);
  const decoded = decodeTextWithEncoding(existing, target);
  const addition = encodeText(textToAppend(decoded.text, entryText), decoded.encoding);
  const dir = path.dirname(target);
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await fs.open(temp, 'wx');
    try {
      if (current) await handle.chmod(current.mode);
      await handle.writeFile(Buffer.concat([existing, addition]));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, target);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

/** Replacing a symbolic link would cut it from the shared library it points to: write where it points. */
async function resolveLinks(file: string): Promise<string> {
  try {
    return await fs.realpath(file);
  } catch (error) {
    if (isMissing(error)) return file;
    throw error;
  }
}

async function readIfExists(file: string): Promise<{ bytes: Buffer; mode: number } | undefined> {
  const bytes = await readFileBounded(file, LARGEST_TEXT_BYTES);
  return bytes && { bytes, mode: (await fs.stat(file)).mode & 0o7777 };
}

/**
 * Makes the rename itself survive a crash. Only an improvement: the entry is already in place, so a
 * directory that cannot be opened (always so on Windows) is no reason to report a failure.
 */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await fs.open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Nothing to undo; see above.
  }
}

function isMissing(error: unknown): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === 'ENOENT';
}
