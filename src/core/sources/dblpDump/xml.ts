/**
 * DBLP's XML dump (https://dblp.org/xml/: `dblp.xml`, or `dblp.xml.gz` as it is downloaded) read in
 * one streaming pass, a publication at a time: the file is about 4 GB, gzipped about 900 MB, and is
 * never held whole.
 *
 *   <?xml version="1.0" encoding="ISO-8859-1"?>
 *   <!DOCTYPE dblp SYSTEM "dblp.dtd">
 *   <dblp>
 *   <inproceedings mdate="2023-03-30" key="conf/cvpr/HeZRS16">
 *   <author>Kaiming He</author> … <title>Deep Residual Learning for Image Recognition.</title>
 *   <booktitle>CVPR</booktitle> <year>2016</year> <ee>https://doi.org/10.1109/CVPR.2016.90</ee>
 *   </inproceedings>
 *   …
 *   </dblp>
 *
 * The records are the children of `dblp` that dblp.dtd lists (`article`, `inproceedings`,
 * `proceedings`, `book`, `incollection`, `phdthesis`, `mastersthesis`, `www`, `person`, `data`);
 * persons (`person`, and `www` records of `homepages/` keys) are not publications and are skipped.
 * A title may hold markup (`<i>`, `<sub>`, `<sup>`, `<tt>`), whose text is kept.
 *
 * htmlparser2 parses it (xmlMode: element names as written, no HTML rules such as a `title` whose
 * content is raw text). In xmlMode it decodes only XML's five entities, while the dump writes every
 * non-ASCII letter as an entity dblp.dtd takes from HTML (`&uuml;`, `&eacute;`): so each field's text
 * is kept raw and, where it has an `&`, decoded whole by htmlparser2 in HTML mode, once, so that
 * `&amp;uuml;` stays the text "&uuml;".
 */
import { createReadStream, promises as fs } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import type * as Htmlparser2 from 'htmlparser2';
import { isDblpKey, type DblpPublication } from '../dblp';

/** The dump could not be read as DBLP's XML; the message names the file and says what to do. */
export class DblpDumpError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DblpDumpError';
  }
}

/** How far a read has come: bytes of the file (compressed, for a .gz) and publications read. */
export interface DumpProgress {
  readonly bytesRead: number;
  readonly totalBytes: number;
  readonly publications: number;
}

export interface DumpReadOptions {
  readonly signal?: AbortSignal;
  /** After each chunk of the file, and waited for: where what was read is written out. */
  readonly afterChunk?: (progress: DumpProgress) => Promise<void> | void;
}

const PUBLICATIONS = new Set(['article', 'inproceedings', 'proceedings', 'book', 'incollection', 'phdthesis', 'mastersthesis', 'www', 'data']);
const PERSON_KEY = /^homepages\//;
/** The fields read; the others (pages, volume, url, …) are not needed to tell a work. */
const FIELDS = new Set(['title', 'author', 'editor', 'year', 'journal', 'booktitle', 'ee']);
/**
 * Bounds on one record, so that a damaged or hostile file cannot grow memory: DBLP's longest titles
 * are a few hundred characters, its longest author lists a few thousand names.
 */
const MAX_FIELD_CHARACTERS = 4000;
const MAX_NAMES = 5000;
const MAX_LINKS = 50;
const READ_CHUNK = 1 << 20;
/**
 * htmlparser2 keeps the text of a tag, comment or declaration until it ends: this many characters
 * without one ending is not DBLP's XML, and is not held any longer.
 */
const MAX_UNBROKEN = 1 << 24;
const GZIP_MAGIC = [0x1f, 0x8b];
const DOWNLOAD = 'https://dblp.org/xml/';

/** A record being read: the fields as raw text, decoded when it ends. */
interface OpenRecord {
  readonly key: string;
  readonly fields: Map<string, string[]>;
  /** The field being read and its raw text so far, with the depth its element opened at. */
  field?: { readonly name: string; readonly depth: number; text: string };
}

/**
 * Reads every publication of the dump at `file` into `onPublication`, in the file's order, and returns
 * how many there were. Throws `DblpDumpError` for a file that is not all of a DBLP dump (not XML of a
 * `dblp` root, gzip or XML that ends early), and an `AbortError` once `signal` is aborted.
 */
export async function readDblpDump(file: string, onPublication: (publication: DblpPublication) => void, options: DumpReadOptions = {}): Promise<number> {
  const { signal, afterChunk } = options;
  const { size, gzipped } = await inspect(file);
  const input = createReadStream(file, { highWaterMark: READ_CHUNK, signal });
  const stream = gzipped ? input.pipe(createGunzip({ chunkSize: READ_CHUNK })) : input;
  if (stream !== input) input.on('error', (error) => stream.destroy(error));
  const parse = dumpParser(file, onPublication);
  let decoder: StringDecoder | undefined;
  const chunks = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    for (;;) {
      let next: IteratorResult<Buffer>;
      try {
        next = await chunks.next();
      } catch (error) {
        if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : error;
        const what = gzipped ? 'the gzip file is damaged or incomplete' : 'the file is damaged';
        throw new DblpDumpError(`DBLP's dump ${file} could not be read to its end (${(error as Error).message}): ${what}; download it again from ${DOWNLOAD}.`);
      }
      if (next.done) break;
      const chunk = next.value;
      // The dump declares ISO-8859-1 (and writes ASCII, every other letter as an entity); UTF-8 otherwise.
      decoder ??= new StringDecoder(/encoding\s*=\s*["']iso-8859-1["']/i.test(chunk.subarray(0, 200).toString('latin1')) ? 'latin1' : 'utf8');
      parse.write(decoder.write(chunk));
      await afterChunk?.({ bytesRead: input.bytesRead, totalBytes: size, publications: parse.count() });
    }
  } finally {
    input.destroy();
    if (stream !== input) stream.destroy();
  }
  if (decoder) parse.write(decoder.end());
  return parse.end();
}

/** The file's size and whether it is gzip, by its first bytes rather than its name. */
async function inspect(file: string): Promise<{ size: number; gzipped: boolean }> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    throw new DblpDumpError(
      `DBLP's dump ${file} cannot be opened (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); set attest.sources.dblp.dumpFile to dblp.xml or dblp.xml.gz as downloaded from ${DOWNLOAD}.`,
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new DblpDumpError(`DBLP's dump ${file} is not a file; set attest.sources.dblp.dumpFile to dblp.xml or dblp.xml.gz as downloaded from ${DOWNLOAD}.`);
    const head = Buffer.alloc(2);
    const { bytesRead } = await handle.read(head, 0, 2, 0);
    return { size: stat.size, gzipped: bytesRead === 2 && head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1] };
  } finally {
    await handle.close();
  }
}

interface DumpParser {
  write(text: string): void;
  /** Ends the read; throws when the XML ended before its `dblp` root did. Returns the publications read. */
  end(): number;
  count(): number;
}

function dumpParser(file: string, onPublication: (publication: DblpPublication) => void): DumpParser {
  // Loaded on first use, as elsewhere in core: with its entity tables it is a sixth of the extension's bundle.
  const { Parser } = require('htmlparser2') as typeof Htmlparser2;
  const decode = entityDecoder(Parser);
  let depth = 0;
  let rootSeen = false;
  let rootClosed = false;
  /** An element the XML never closed, closed by htmlparser2 at the end: the file stops short. */
  let cutShort = false;
  let record: OpenRecord | undefined;
  let count = 0;
  const notDblp = (what: string): DblpDumpError =>
    new DblpDumpError(`${file} is not DBLP's XML dump (${what}); set attest.sources.dblp.dumpFile to dblp.xml or dblp.xml.gz as downloaded from ${DOWNLOAD}.`);
  let failure: DblpDumpError | undefined;
  /** Characters written since the parser last reported something. */
  let unbroken = 0;

  const parser = new Parser(
    {
      onprocessinginstruction() {
        unbroken = 0;
      },
      oncomment() {
        unbroken = 0;
      },
      onopentag(name, attributes) {
        unbroken = 0;
        depth++;
        if (depth === 1) {
          if (rootSeen) failure ??= notDblp('it has more than one root element');
          else if (name !== 'dblp') failure ??= notDblp(`its root element is <${name}>, not <dblp>`);
          rootSeen = true;
        } else if (depth === 2) {
          const key = attributes.key ?? '';
          record = PUBLICATIONS.has(name) && isDblpKey(key) && !PERSON_KEY.test(key) ? { key, fields: new Map() } : undefined;
        } else if (depth === 3 && record && FIELDS.has(name)) {
          record.field = { name, depth, text: '' };
        }
      },
      ontext(text) {
        unbroken = 0;
        const field = record?.field;
        if (field && field.text.length < MAX_FIELD_CHARACTERS) field.text += text;
      },
      onclosetag(_name, isImplied) {
        unbroken = 0;
        if (isImplied && depth <= 2) {
          // A record or the root closed by another's end tag, or by the end of the text.
          cutShort = true;
          record = undefined;
        } else if (record?.field?.depth === depth) {
          const { name, text } = record.field;
          const list = record.fields.get(name) ?? [];
          if (list.length < MAX_NAMES) list.push(text);
          record.fields.set(name, list);
          record.field = undefined;
        } else if (depth === 2 && record) {
          const publication = publicationOf(record, decode);
          record = undefined;
          if (publication) {
            count++;
            onPublication(publication);
          }
        } else if (depth === 1) {
          rootClosed = true;
        }
        depth--;
      },
    },
    { xmlMode: true, decodeEntities: false },
  );
  return {
    write(text) {
      if (failure) throw failure;
      parser.write(text);
      unbroken += text.length;
      if (unbroken > MAX_UNBROKEN) failure ??= notDblp(`${MAX_UNBROKEN} characters go by without a tag ending`);
      if (failure) throw failure;
    },
    end() {
      parser.end();
      if (failure) throw failure;
      if (!rootSeen) throw notDblp('it holds no <dblp> element');
      if (!rootClosed || cutShort) {
        throw new DblpDumpError(`${file} is cut short or damaged: a record or its <dblp> root is never closed (after ${count} publications); download it again from ${DOWNLOAD}.`);
      }
      return count;
    },
    count: () => count,
  };
}

/** The publication a record describes, its fields decoded; undefined for one without a title. */
function publicationOf(record: OpenRecord, decode: (raw: string) => string): DblpPublication | undefined {
  const first = (name: string): string | undefined => {
    const raw = record.fields.get(name)?.[0];
    const value = raw === undefined ? '' : clean(decode(raw));
    return value === '' ? undefined : value;
  };
  const all = (name: string, limit: number): string[] => {
    const values: string[] = [];
    for (const raw of record.fields.get(name) ?? []) {
      const value = clean(decode(raw));
      if (value !== '') values.push(value);
      if (values.length === limit) break;
    }
    return values;
  };
  const title = first('title');
  if (title === undefined) return undefined;
  const ee = all('ee', MAX_LINKS);
  const authors = all('author', MAX_NAMES);
  return {
    key: record.key,
    title,
    // A volume of proceedings has editors, whom DBLP's search lists as its authors.
    authors: authors.length > 0 ? authors : all('editor', MAX_NAMES),
    year: first('year'),
    venue: first('journal') ?? first('booktitle'),
    doi: ee.find((link) => /^https?:\/\/(?:dx\.)?doi\.org\/10\./i.test(link)),
    ee: ee.filter((link) => /arxiv\.org\/abs\//i.test(link)),
  };
}

/** Whitespace that is not one space: rare in the dump, so most texts are only trimmed. */
const UNEVEN_SPACE = /\s\s|[^\S ]/;

function clean(text: string): string {
  return (UNEVEN_SPACE.test(text) ? text.replace(/\s+/g, ' ') : text).trim();
}

/**
 * HTML's entities decoded by htmlparser2 in HTML mode: raw XML text has no `<`, so the parser sees only
 * text and entities. One parser, reset for each text, and only for text with an `&`.
 */
function entityDecoder(Parser: typeof Htmlparser2.Parser): (raw: string) => string {
  let decoded = '';
  const parser = new Parser(
    {
      ontext(text) {
        decoded += text;
      },
    },
    { decodeEntities: true },
  );
  return (raw) => {
    if (!raw.includes('&')) return raw;
    decoded = '';
    parser.reset();
    parser.end(raw);
    return decoded;
  };
}
