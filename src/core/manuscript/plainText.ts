/**
 * Builds the plain text of a manuscript while remembering, for every character, the source offset it
 * came from, so that a sentence found in the plain text can be mapped back to its source range.
 * Whitespace is collapsed as it is appended, and a space left by removed markup before punctuation is
 * dropped, so "shown \citep{x}." reads "shown.".
 */
export class PlainTextBuilder {
  private readonly chars: string[] = [];
  private readonly offsets: number[] = [];
  /** Plain-text positions where a sentence must end regardless of punctuation (paragraphs, headings). */
  private readonly hardBreaks: number[] = [];
  /** While set, nothing is appended: for parts of a source that are not prose, such as a LaTeX preamble. */
  muted = false;

  get length(): number {
    return this.chars.length;
  }

  /**
   * Where a citation at the current point attaches: before a trailing space, which may yet be removed
   * by a sentence break and which separates the citation from what follows rather than what precedes.
   */
  anchor(): number {
    return this.chars[this.chars.length - 1] === ' ' ? this.chars.length - 1 : this.chars.length;
  }

  append(text: string, sourceOffset: number): void {
    for (let i = 0; i < text.length; i++) this.appendChar(text[i], sourceOffset + i);
  }

  /** Appends characters that all stand for one source span (e.g. `\&` for "&"). */
  appendReplacement(text: string, sourceOffset: number): void {
    for (const ch of text) this.appendChar(ch, sourceOffset);
  }

  appendChar(ch: string, sourceOffset: number): void {
    if (this.muted) return;
    if (isSpace(ch)) {
      this.appendSpace(sourceOffset);
      return;
    }
    if (CLOSING_PUNCTUATION.has(ch) && this.chars[this.chars.length - 1] === ' ') {
      this.chars.pop();
      this.offsets.pop();
    }
    this.chars.push(ch);
    this.offsets.push(sourceOffset);
  }

  appendSpace(sourceOffset: number): void {
    if (this.muted) return;
    const last = this.chars[this.chars.length - 1];
    if (last === undefined || last === ' ' || this.hardBreaks[this.hardBreaks.length - 1] === this.chars.length) return;
    this.chars.push(' ');
    this.offsets.push(sourceOffset);
  }

  /** Ends the current sentence here: a paragraph break, a heading, a list item, a float's caption. */
  breakSentence(): void {
    if (this.chars[this.chars.length - 1] === ' ') {
      this.chars.pop();
      this.offsets.pop();
    }
    if (this.hardBreaks[this.hardBreaks.length - 1] !== this.chars.length) this.hardBreaks.push(this.chars.length);
  }

  build(): PlainText {
    return { text: this.chars.join(''), offsets: this.offsets, hardBreaks: this.hardBreaks };
  }
}

export interface PlainText {
  readonly text: string;
  readonly offsets: readonly number[];
  readonly hardBreaks: readonly number[];
}

const CLOSING_PUNCTUATION = new Set(['.', ',', ';', ':', '!', '?', ')', ']']);

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\n' || ch === '\t' || ch === '\r' || ch === '\f' || ch === '\u00a0';
}
