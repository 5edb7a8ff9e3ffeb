/**
 * PDFs made for the tests with pdf-lib: pages of one or two columns of Helvetica lines, with a
 * running header and a page number, as journals typeset them.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';

export interface PageSpec {
  readonly header?: string;
  /** Across both columns, at the top of the page. */
  readonly title?: string;
  /** One column, or two; each a list of lines, '' for the space between paragraphs. */
  readonly columns: readonly (readonly string[])[];
}

const WIDTH = 612;
const HEIGHT = 792;
const SIZE = 9;
const LEADING = 11;

export async function makePdf(pages: readonly PageSpec[], options: { useObjectStreams?: boolean } = {}): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  pages.forEach((spec, index) => {
    const page = doc.addPage([WIDTH, HEIGHT]);
    if (spec.header) page.drawText(spec.header, { x: 50, y: 760, size: 8, font });
    page.drawText(String(index + 1), { x: WIDTH / 2 - 3, y: 30, size: 8, font });
    let top = 730;
    if (spec.title) {
      page.drawText(spec.title, { x: 160, y: 715, size: 14, font });
      top = 690;
    }
    const xs = spec.columns.length === 2 ? [50, 320] : [50];
    spec.columns.forEach((lines, c) => {
      let y = top;
      for (const line of lines) {
        if (line !== '') page.drawText(line, { x: xs[c], y, size: SIZE, font });
        y -= LEADING;
      }
    });
  });
  return doc.save({ useObjectStreams: options.useObjectStreams ?? true });
}

/** A PDF whose only page is a drawn box: what a scan without OCR looks like to a text reader. */
export async function makeImageOnlyPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([WIDTH, HEIGHT]);
  page.drawRectangle({ x: 50, y: 50, width: 500, height: 600 });
  return doc.save();
}

/**
 * A PDF with a standard-security encryption dictionary whose user password is not empty: readers
 * must ask for a password. pdf-lib cannot encrypt, so the dictionary is written into the trailer.
 */
export async function makeEncryptedPdf(): Promise<Uint8Array> {
  const plain = Buffer.from(await makePdf([{ columns: [['Secret results.']] }], { useObjectStreams: false }));
  const text = plain.toString('latin1');
  const at = text.lastIndexOf('trailer');
  const open = text.indexOf('<<', at) + 2;
  const hex = (byte: string): string => byte.repeat(64);
  const encrypt = `\n/Encrypt << /Filter /Standard /V 1 /R 2 /O <${hex('a')}> /U <${hex('b')}> /P -44 >>\n/ID [<${hex('c').slice(0, 32)}> <${hex('c').slice(0, 32)}>]\n`;
  return Buffer.from(text.slice(0, open) + encrypt + text.slice(open), 'latin1');
}
