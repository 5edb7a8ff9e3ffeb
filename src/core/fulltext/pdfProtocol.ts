/** What the PDF worker is asked and answers: the passages it read, or why there are none. */
import type { Passage } from './types';

/** Each page's text pieces where pdf.js placed them, which the worker reads into passages. */

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
  /** The worker reads no more of the file than this, whatever its size said when it was asked. */
  readonly maxBytes: number;
}

/** `lasting`: the file itself is the reason (encrypted, not a PDF, damaged), so reading this version again gives the same. */
export type PdfAnswer = ({ readonly ok: true } & PdfPassages) | { readonly ok: false; readonly reason: string; readonly lasting: boolean };

/** A PDF's passages, after the title page's front matter; none when it has no text layer to speak of. */
export interface PdfPassages {
  readonly passages: readonly Passage[];
  readonly hasTextLayer: boolean;
}
