/**
 * Builds the plain text of a manuscript while remembering, for every UTF-16 unit, the source offset it
 * came from, so that a sentence found in the plain text can be mapped back to its source range.
 * Whitespace is collapsed as it is appended, and a space left by removed markup before punctuation is
 * dropped, so "shown \citep{x}." reads "shown.".
 *
 * Units and offsets live in typed arrays grown by doubling: a manuscript appends a few million
 * characters one at a time, and arrays of one-character strings cost most of its parsing time.
 */
export class PlainTextBuilder {
  private units: Uint16Array;
  private offsets: Uint32Array;
  /** Units appended; a pending space is not among them. */
  private size = 0;
  /**
   * A space is held back until something other than a space follows: a sentence break or closing
   * punctuation drops it, so it never has to be taken back out.
   */
  private pendingSpace = false;
  private pendingSpaceOffset = 0;
  /** Plain-text positions where a sentence must end regardless of punctuation (paragraphs, headings). */
  private readonly hardBreaks: number[] = [];
  /** While set, nothing is appended: for parts of a source that are not prose, such as a LaTeX preamble. */
  muted = false;

  /** `capacity`: the units expected, such as the source's length, so the arrays seldom grow. */
  constructor(capacity = 1024) {
    this.units = new Uint16Array(Math.max(capacity, 16));
    this.offsets = new Uint32Array(this.units.length);
  }

  /** The length of the text so far, a space waiting for the next word included. */
  get length(): number {
    return this.pendingSpace ? this.size + 1 : this.size;
  }

  /**
   * Where a citation at the current point attaches: before a trailing space, which may yet be removed
   * by a sentence break and which separates the citation from what follows rather than what precedes.
   */
  anchor(): number {
    return this.size;
  }

  append(text: string, sourceOffset: number): void {
    for (let i = 0; i < text.length; i++) this.appendUnit(text.charCodeAt(i), sourceOffset + i);
  }

  /** Appends characters that all stand for one source span (e.g. `\&` for "&"). */
  appendReplacement(text: string, sourceOffset: number): void {
    for (let i = 0; i < text.length; i++) this.appendUnit(text.charCodeAt(i), sourceOffset);
  }

  /** Appends one UTF-16 unit of the source (`ch` is a single unit). */
  appendChar(ch: string, sourceOffset: number): void {
    this.appendUnit(ch.charCodeAt(0), sourceOffset);
  }

  appendUnit(unit: number, sourceOffset: number): void {
    if (this.muted) return;
    if (isSpace(unit)) {
      this.appendSpace(sourceOffset);
      return;
    }
    if (this.pendingSpace) {
      this.pendingSpace = false;
      if (!isClosingPunctuation(unit)) this.push(SPACE, this.pendingSpaceOffset);
    }
    this.push(unit, sourceOffset);
  }

  appendSpace(sourceOffset: number): void {
    if (this.muted || this.size === 0 || this.pendingSpace || this.hardBreaks[this.hardBreaks.length - 1] === this.size) return;
    this.pendingSpace = true;
    this.pendingSpaceOffset = sourceOffset;
  }

  /** Ends the current sentence here: a paragraph break, a heading, a list item, a float's caption. */
  breakSentence(): void {
    this.pendingSpace = false;
    if (this.hardBreaks[this.hardBreaks.length - 1] !== this.size) this.hardBreaks.push(this.size);
  }

  build(): PlainText {
    const parts: string[] = [];
    for (let at = 0; at < this.size; at += DECODE_CHUNK) {
      parts.push(fromUnits(this.units.subarray(at, Math.min(at + DECODE_CHUNK, this.size))));
    }
    return { text: parts.join(''), offsets: this.offsets.subarray(0, this.size), hardBreaks: this.hardBreaks };
  }

  private push(unit: number, sourceOffset: number): void {
    if (this.size === this.units.length) this.grow();
    this.units[this.size] = unit;
    this.offsets[this.size] = sourceOffset;
    this.size++;
  }

  private grow(): void {
    const units = new Uint16Array(this.units.length * 2);
    units.set(this.units);
    this.units = units;
    const offsets = new Uint32Array(this.offsets.length * 2);
    offsets.set(this.offsets);
    this.offsets = offsets;
  }
}

export interface PlainText {
  readonly text: string;
  /** The source offset of each UTF-16 unit of `text`. */
  readonly offsets: Uint32Array;
  readonly hardBreaks: readonly number[];
}

/** Units per `String.fromCharCode` call, well under the engine's limit on arguments. */
const DECODE_CHUNK = 8192;
const SPACE = 0x20;

/**
 * The string of some UTF-16 units. `String.fromCharCode.apply` takes any array-like (a lone surrogate
 * stays as it is, which `TextDecoder` would replace); TypeScript's signature only says arrays.
 */
function fromUnits(units: Uint16Array): string {
  return String.fromCharCode.apply(null, units as unknown as number[]);
}

/** `. , ; : ! ? ) ]` */
function isClosingPunctuation(unit: number): boolean {
  return unit === 0x2e || unit === 0x2c || unit === 0x3b || unit === 0x3a || unit === 0x21 || unit === 0x3f || unit === 0x29 || unit === 0x5d;
}

/** Space, line feed, tab, carriage return, form feed, no-break space. */
function isSpace(unit: number): boolean {
  return unit === 0x20 || unit === 0x0a || unit === 0x09 || unit === 0x0d || unit === 0x0c || unit === 0xa0;
}
