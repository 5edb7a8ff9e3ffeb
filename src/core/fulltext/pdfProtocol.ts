/**
 * What the reader's worker (pdfWorker.ts) is asked and answers: a PDF of the writer's, or a full text
 * a service sent, read into passages, or why there are none.
 */
import type { Passage } from './types';

export type ReaderRequest = ({ readonly kind: 'pdf' } & PdfRequest) | FetchedTextRequest;
export type ReaderAnswer = PdfAnswer | FetchedTextAnswer;

/** Europe PMC's JATS, arXiv's LaTeXML HTML, CORE's plain `fullText`. */
export type FetchedFormat = 'jats' | 'latexml' | 'plain';

export interface FetchedTextRequest {
  readonly kind: 'fetched';
  readonly format: FetchedFormat;
  readonly text: string;
}

export interface FetchedTextAnswer {
  readonly ok: true;
  readonly read: { readonly passages: Passage[] } | { readonly reason: string };
}

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
