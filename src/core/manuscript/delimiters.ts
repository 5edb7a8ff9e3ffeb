import { doubled } from '../text/doubled';

/**
 * Where each `{`, `[` and `(` of a text closes, found in one pass so that a parser asking about many
 * openers (a document full of half-typed `\cite{`) stays linear. Braces bind tighter than brackets and
 * parentheses: a `]` inside `{…}` is text, and closing a brace abandons brackets opened inside it. No
 * group crosses a paragraph break (an empty line), as TeX and pandoc both refuse.
 */
export class DelimiterIndex {
  /**
   * One more than the index of the delimiter closing the one at each offset, 0 where none closes:
   * a lookup per offset, where a map of hundreds of thousands of entries kept the collector busy.
   */
  private readonly closers: Uint32Array;

  constructor(text: string, options: { readonly latexComments: boolean }) {
    const closers = new Uint32Array(text.length);
    /**
     * Open delimiters, innermost last, up to `top`: a stack that is cut back by moving `top`, never by
     * resizing. Typed and grown by doubling: a text of openers only, pushed onto an array, was most of its parse.
     */
    let stack: Uint32Array = new Uint32Array(INITIAL_DEPTH);
    let top = 0;
    /** Positions in `stack` that hold a `{`, so a `}` finds its brace without searching. */
    let braces: Uint32Array = new Uint32Array(INITIAL_DEPTH);
    let braceTop = 0;
    const comments = options.latexComments;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const kind = c < 128 ? KINDS[c] : Kind.Other;
      if (kind === Kind.Other) continue;
      switch (kind) {
        case Kind.Escape:
          // `\`: the next character is escaped.
          i++;
          break;
        case Kind.Brace:
          if (braceTop === braces.length) braces = doubled(braces);
          braces[braceTop++] = top;
          if (top === stack.length) stack = doubled(stack);
          stack[top++] = i;
          break;
        case Kind.Opener:
          if (top === stack.length) stack = doubled(stack);
          stack[top++] = i;
          break;
        case Kind.BraceCloser:
          // A `}` closes the innermost `{`, abandoning brackets opened inside it.
          if (braceTop > 0) {
            top = braces[--braceTop];
            closers[stack[top]] = i + 1;
          }
          break;
        case Kind.Closer: {
          // A `]` or `)` closes only a matching opener directly on top; inside braces it is text.
          const open = top > 0 ? stack[top - 1] : -1;
          if (open >= 0 && text.charCodeAt(open) === (c === 0x5d ? 0x5b : 0x28)) {
            top--;
            closers[open] = i + 1;
          }
          break;
        }
        case Kind.Percent:
          if (comments) {
            // `%` starts a comment that runs to the end of the line.
            const end = text.indexOf('\n', i);
            i = end < 0 ? text.length : end - 1;
          }
          break;
        case Kind.LineFeed:
          if (isParagraphBreak(text, i)) {
            top = 0;
            braceTop = 0;
          }
          break;
      }
    }
    this.closers = closers;
  }

  /** The index of the delimiter closing the one at `open`, or -1 when it is not closed. */
  closeOf(open: number): number {
    return open >= 0 && open < this.closers.length ? this.closers[open] - 1 : -1;
  }
}

/** 16 entries of 4 bytes: V8 makes a typed array of up to 64 bytes on its heap, a larger one outside it at more cost, and a math span makes an index of its own. */
const INITIAL_DEPTH = 16;

const enum Kind {
  Other,
  Escape,
  Brace,
  Opener,
  BraceCloser,
  Closer,
  Percent,
  LineFeed,
}

/**
 * What each ASCII character is to the scan, so that the common character, which is none of them, costs
 * one lookup rather than a comparison with each: about a fifth less time for the pass over a manuscript.
 */
const KINDS = new Uint8Array(128);
KINDS[0x5c] = Kind.Escape; // \
KINDS[0x7b] = Kind.Brace; // {
KINDS[0x5b] = Kind.Opener; // [
KINDS[0x28] = Kind.Opener; // (
KINDS[0x7d] = Kind.BraceCloser; // }
KINDS[0x5d] = Kind.Closer; // ]
KINDS[0x29] = Kind.Closer; // )
KINDS[0x25] = Kind.Percent; // %
KINDS[0x0a] = Kind.LineFeed;

function isParagraphBreak(text: string, newline: number): boolean {
  for (let j = newline + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return true;
    if (c !== ' ' && c !== '\t' && c !== '\r') return false;
  }
  return false;
}
