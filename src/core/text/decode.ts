/** Why a file could not be read as text; the message says what to do about it. */
export class UnreadableFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'UnreadableFileError';
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const windows1252 = new TextDecoder('windows-1252');

/**
 * Decodes a file's bytes as text. UTF-8 is expected; older .bib and .tex files are often Latin-1 or
 * Windows-1252, which read correctly that way instead of as replacement characters. A NUL byte in the
 * first 8 KiB means the file is binary, as git decides.
 */
export function decodeText(bytes: Uint8Array, file: string): string {
  if (bytes.subarray(0, 8192).includes(0)) {
    throw new UnreadableFileError(file, `${file} is a binary file, not text.`);
  }
  const withoutBom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes;
  try {
    return utf8.decode(withoutBom);
  } catch {
    return windows1252.decode(withoutBom);
  }
}
