/**
 * File names that are not UTF-8. Node gives a name as a string decoded from UTF-8, every byte that is
 * not UTF-8 made U+FFFD, and a path so decoded names no file: Attest, reading files by such strings,
 * cannot open them. These tell such a name apart and write it so the user can find it.
 */
import { isUtf8 } from 'node:buffer';
import { promises as fs } from 'node:fs';

const REPLACEMENT = '\uFFFD';

/** Said of a file not found by a name with U+FFFD in it. */
export const notUtf8Note =
  ' by this name, in which \uFFFD stands for bytes that are not UTF-8: Attest opens files by UTF-8 names only, so a file named so must be renamed to be read';

/** Whether a name as Node gives it may have lost bytes that are not UTF-8 (or holds U+FFFD itself). */
export function mayNotBeUtf8(name: string): boolean {
  return name.includes(REPLACEMENT);
}

/**
 * The names in `folder` that are not UTF-8, each with its name as Node gives it (for the entry's kind)
 * and as the user should see it, a byte that is not UTF-8 written `\xE9`.
 */
export async function namesNotUtf8(folder: string): Promise<{ readonly decoded: string; readonly shown: string }[]> {
  const raw = await fs.readdir(folder, { encoding: 'buffer' });
  return raw.filter((name) => !isUtf8(name)).map((name) => ({ decoded: name.toString('utf8'), shown: shownName(name) }));
}

/** A name's bytes, UTF-8 where they are, each other byte as `\xNN`. */
export function shownName(name: Buffer): string {
  let shown = '';
  for (let i = 0; i < name.length;) {
    const length = sequenceLength(name[i]);
    if (length > 0 && i + length <= name.length && isUtf8(name.subarray(i, i + length))) {
      shown += name.subarray(i, i + length).toString('utf8');
      i += length;
    } else {
      shown += `\\x${name[i].toString(16).toUpperCase().padStart(2, '0')}`;
      i++;
    }
  }
  return shown;
}

/** The length of the UTF-8 sequence a lead byte starts, or 0 for a byte no sequence starts with. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}
