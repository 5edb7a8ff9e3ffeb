import { doubled } from './doubled';

/** Zero-based line and UTF-16 column, as VS Code and LSP count them. */
export interface Position {
  readonly line: number;
  readonly character: number;
}

export interface Range {
  readonly start: Position;
  readonly end: Position;
}

/** Converts between string offsets and line/column positions of one text. */
export class LineIndex {
  /**
   * The offset each line starts at, typed and grown by doubling: a megabyte of short lines has a
   * quarter of a million, and pushing them onto an array cost more than the scan that found them.
   */
  private readonly lineStarts: Uint32Array;
  /** The line of the last offset looked up: parsers ask in source order, mostly about that line or the next. */
  private recentLine = 0;

  /**
   * A line ends at LF, at CRLF, and at a lone CR, as VS Code counts them. The breaks are found with
   * `indexOf`, several times faster than reading each character (a .bib parse spent 7% here), the
   * next LF and the next CR each searched for again only once passed: a text without CR looks for
   * one once.
   */
  constructor(private readonly text: string) {
    let starts: Uint32Array = new Uint32Array(64);
    let count = 1;
    let lf = text.indexOf('\n');
    let cr = text.indexOf('\r');
    while (lf >= 0 || cr >= 0) {
      let start: number;
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        start = cr + 1;
        // CRLF is one break.
        if (lf === start) lf = text.indexOf('\n', ++start);
        cr = text.indexOf('\r', start);
      } else {
        start = lf + 1;
        lf = text.indexOf('\n', start);
      }
      if (count === starts.length) starts = doubled(starts);
      starts[count++] = start;
    }
    this.lineStarts = starts.subarray(0, count);
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  positionAt(offset: number): Position {
    const clamped = this.clamp(offset);
    const line = this.lineOf(clamped);
    return { line, character: clamped - this.lineStarts[line] };
  }

  /**
   * Writes the line and character of `offset` to `into[at]` and `into[at + 1]`: a position made
   * without an object, for the packed ranges of a parsed file, which has half a million of them at worst.
   */
  writePosition(offset: number, into: Uint32Array, at: number): void {
    const clamped = this.clamp(offset);
    const line = this.lineOf(clamped);
    into[at] = line;
    into[at + 1] = clamped - this.lineStarts[line];
  }

  offsetAt(position: Position): number {
    if (position.line < 0) return 0;
    if (position.line >= this.lineStarts.length) return this.text.length;
    return Math.min(this.lineStarts[position.line] + position.character, this.text.length);
  }

  rangeOf(start: number, end: number): Range {
    return { start: this.positionAt(start), end: this.positionAt(end) };
  }

  private clamp(offset: number): number {
    return Math.max(0, Math.min(offset, this.text.length));
  }

  /** The line holding `offset`, which is within the text. */
  private lineOf(offset: number): number {
    const starts = this.lineStarts;
    const recent = this.recentLine;
    if (starts[recent] <= offset && (recent + 1 === starts.length || offset < starts[recent + 1])) return recent;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    this.recentLine = lo;
    return lo;
  }
}
