/** What the PDF worker sends back: each page's text pieces where pdf.js placed them. */

export interface PdfTextItem {
  readonly text: string;
  /** Left edge and baseline, in PDF points from the page's bottom left. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  /** The font size, near enough: the item's height. */
  readonly size: number;
}

export interface PdfPage {
  readonly width: number;
  readonly height: number;
  readonly items: readonly PdfTextItem[];
}

export interface PdfRequest {
  readonly file: string;
  readonly maxPages: number;
}

/** `lasting`: the file itself is the reason (encrypted, not a PDF, damaged), so reading this version again gives the same. */
export type PdfAnswer = { readonly ok: true; readonly pages: readonly PdfPage[]; readonly pageCount: number } | { readonly ok: false; readonly reason: string; readonly lasting: boolean };
