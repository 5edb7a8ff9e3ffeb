/**
 * The worker thread that reads one full text into passages (readerThread.ts starts it): a PDF's text
 * layer with pdf.js (`pdfjs-dist`, legacy build for Node), or the JATS, LaTeXML HTML or plain text a
 * service sent, so that a large or hostile one never stalls the extension host: it gets its own
 * thread, and the caller a time and memory limit.
 */
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import { UnreadableFileError } from '../text/decode';
import { FileTooLargeError, NotRegularFileError, readFileBounded } from '../text/readFile';
import { passagesFromJats } from './jats';
import { passagesFromLatexml } from './latexml';
import { passagesOfPdf } from './pdfLayout';
import type { FetchedTextAnswer, FetchedTextRequest, PdfAnswer, PdfPage, PdfRequest, PdfTextItem, ReaderAnswer, ReaderRequest } from './pdfProtocol';
import { passagesFromPlainText } from './prose';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

/**
 * pdf.js is an ES module; TypeScript's CommonJS output would turn `import()` into `require()`, which
 * older Node and Electron versions refuse for ES modules, so the import is kept as written.
 */
const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<PdfJs>;

async function read(request: PdfRequest): Promise<PdfAnswer> {
  // pdf.js inflates a page's content with DecompressionStream when there is one: in zlib's native
  // memory, which an ended worker leaves to the process (a Flate bomb's reader, ended at its limit,
  // kept about as much again). Without it pdf.js inflates in JavaScript, into memory the worker owns.
  Reflect.deleteProperty(globalThis, 'DecompressionStream');
  // By its resolved file: a bare specifier in an import() without a module around it resolves from
  // the process's folder, which in the editor is not the extension's.
  const pdfjs = await importModule(pathToFileURL(require.resolve('pdfjs-dist/legacy/build/pdf.mjs')).href);
  // Bounded: the file may have grown, or been swapped for a link to /proc, since its size was checked.
  const bytes = await readFileBounded(request.file, request.maxBytes);
  if (!bytes) return { ok: false, reason: 'the file is gone', lasting: false };
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let document;
  try {
    // No standardFontDataUrl: those fonts give glyph outlines for drawing; the text layer is the same without them, and the package leaves them out.
    document = await pdfjs.getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  } catch (error) {
    return failure(error);
  }
  try {
    const pages: PdfPage[] = [];
    const count = Math.min(document.numPages, request.maxPages);
    for (let number = 1; number <= count; number++) {
      const page = await document.getPage(number);
      const viewport = page.getViewport({ scale: 1 });
      const content = await page.getTextContent();
      const items: PdfTextItem[] = [];
      for (const item of content.items) {
        if (!('str' in item) || item.str === '') continue;
        const [a, b, , , x, y] = item.transform as number[];
        items.push({ text: item.str, x, y, width: item.width, size: Math.abs(item.height) || Math.hypot(a, b) });
      }
      pages.push({ width: viewport.width, height: viewport.height, items });
      page.cleanup();
    }
    return { ok: true, ...passagesOfPdf(pages) };
  } catch (error) {
    return failure(error);
  } finally {
    await document.destroy();
  }
}

/**
 * pdf.js names its failures; these are the user's words for them. Only what the file's bytes decide
 * lasts: an encrypted file, or one pdf.js cannot parse. Anything else (the file busy or unreadable for
 * now, too many open files, an error of the reader itself) may pass.
 */
function failure(error: unknown): PdfAnswer {
  if (error instanceof FileTooLargeError) return { ok: false, reason: 'the file grew past the size Attest reads while it was read', lasting: false };
  if (error instanceof NotRegularFileError) return { ok: false, reason: 'it is not a regular file', lasting: false };
  // Its message names the file first: "/p/paper.pdf could not be read: permission denied."
  if (error instanceof UnreadableFileError) return { ok: false, reason: `the PDF ${error.message.slice(error.file.length + 1).replace(/\.$/, '')}`, lasting: false };
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException') return { ok: false, reason: 'the PDF is encrypted with a password', lasting: true };
  if (name === 'InvalidPDFException' || name === 'FormatError') return { ok: false, reason: 'the file is not a readable PDF (damaged or truncated)', lasting: true };
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return { ok: false, reason: `the PDF could not be read (${code ?? (error instanceof Error ? error.message : String(error))})`, lasting: false };
}

function readFetched({ format, text }: FetchedTextRequest): FetchedTextAnswer {
  const read = format === 'jats' ? passagesFromJats(text) : format === 'latexml' ? passagesFromLatexml(text) : passagesFromPlainText(text);
  return { ok: true, read };
}

async function answer(request: ReaderRequest): Promise<ReaderAnswer> {
  return request.kind === 'fetched' ? readFetched(request) : read(request);
}

const port = parentPort;
if (port) {
  answer(workerData as ReaderRequest).then(
    (answer) => port.postMessage(answer),
    (error: unknown) => port.postMessage(failure(error)),
  );
}
