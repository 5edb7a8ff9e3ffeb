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
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) {
        // `\`: the next character is escaped.
        i++;
      } else if (c === 0x7b) {
        // `{`
        if (braceTop === braces.length) braces = doubled(braces);
        braces[braceTop++] = top;
        if (top === stack.length) stack = doubled(stack);
        stack[top++] = i;
      } else if (c === 0x5b || c === 0x28) {
        // `[`, `(`
        if (top === stack.length) stack = doubled(stack);
        stack[top++] = i;
      } else if (c === 0x7d) {
        // A `}` closes the innermost `{`, abandoning brackets opened inside it.
        if (braceTop > 0) {
          top = braces[--braceTop];
          closers[stack[top]] = i + 1;
        }
      } else if (c === 0x5d || c === 0x29) {
        // A `]` or `)` closes only a matching opener directly on top; inside braces it is text.
        const open = top > 0 ? stack[top - 1] : -1;
        if (open >= 0 && text.charCodeAt(open) === (c === 0x5d ? 0x5b : 0x28)) {
          top--;
          closers[open] = i + 1;
        }
      } else if (c === 0x25 && options.latexComments) {
        // `%` starts a comment that runs to the end of the line.
        const end = text.indexOf('\n', i);
        i = end < 0 ? text.length : end - 1;
      } else if (c === 0x0a && isParagraphBreak(text, i)) {
        top = 0;
        braceTop = 0;
      }
    }
    this.closers = closers;
  }

  /** The index of the delimiter closing the one at `open`, or -1 when it is not closed. */
  closeOf(open: number): number {
    return open >= 0 && open < this.closers.length ? this.closers[open] - 1 : -1;
  }
}

const INITIAL_DEPTH = 64;

function isParagraphBreak(text: string, newline: number): boolean {
  for (let j = newline + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return true;
    if (c !== ' ' && c !== '\t' && c !== '\r') return false;
  }
  return false;
}
