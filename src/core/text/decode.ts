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

/** The encodings a file's text is read in; writers use the same one so a file keeps its encoding. */
export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
  /** Bytes before the text (a byte-order mark), kept by writers. */
  bomLength: number;
}

const REPLACEMENT = '\uFFFD';
const ENCODED_REPLACEMENT = Buffer.from(REPLACEMENT, 'utf8');

/**
 * Decodes a file's bytes as text. UTF-8 is expected, and a stray bad byte becomes one replacement
 * character so the rest of the file keeps its characters and columns. Only when most non-ASCII
 * sequences are not UTF-8 is the file taken for Latin-1 / Windows-1252, as older .bib files are.
 * A byte-order mark selects UTF-16; one of UTF-32 is refused. A NUL byte in the first 8 KiB of a file without one means it is
 * binary, as git decides.
 */
export function decodeText(bytes: Uint8Array, file: string): string {
  return decodeTextWithEncoding(bytes, file).text;
}

export function decodeTextWithEncoding(bytes: Uint8Array, file: string): DecodedText {
  const utf32 = utf32Of(bytes);
  if (utf32) throw new UnreadableFileError(file, `${file} is encoded as ${utf32}, which Attest (and VS Code) cannot read: save it as UTF-8.`);
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le', bomLength: 2 };
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be', bomLength: 2 };
  if (bytes.subarray(0, 8192).includes(0)) {
    throw new UnreadableFileError(file, `${file} is a binary file, not text.`);
  }
  const bomLength = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = bytes.subarray(bomLength);
  const text = new TextDecoder('utf-8').decode(body);
  const replaced = count(text, REPLACEMENT) - countBytes(body, ENCODED_REPLACEMENT);
  if (replaced > 0 && replaced > nonAscii(text) - replaced) {
    return { text: new TextDecoder('windows-1252').decode(body), encoding: 'windows-1252', bomLength };
  }
  return { text, encoding: 'utf-8', bomLength };
}

/**
 * The UTF-32 a byte-order mark announces. Checked before UTF-16, whose little-endian mark begins UTF-32LE's.
 * Refused rather than decoded: VS Code has no UTF-32 either, so the writer could not see the text Attest checked.
 */
function utf32Of(bytes: Uint8Array): 'UTF-32LE' | 'UTF-32BE' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe && bytes[2] === 0 && bytes[3] === 0) return 'UTF-32LE';
  if (bytes[0] === 0 && bytes[1] === 0 && bytes[2] === 0xfe && bytes[3] === 0xff) return 'UTF-32BE';
  return undefined;
}

function count(text: string, char: string): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1; i = text.indexOf(char, i + 1)) n++;
  return n;
}

function countBytes(bytes: Uint8Array, needle: Buffer): number {
  const haystack = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let n = 0;
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}

function nonAscii(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) n++;
  return n;
}
