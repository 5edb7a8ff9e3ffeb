const PAIRS: Record<string, string> = { '}': '{', ']': '[', ')': '(' };

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
  /** Open delimiters, innermost last. */
  private readonly stack: number[] = [];
  /** Positions in `stack` that hold a `{`, so a `}` finds its brace without searching. */
  private readonly braces: number[] = [];

  constructor(
    private readonly text: string,
    options: { readonly latexComments: boolean },
  ) {
    this.closers = new Uint32Array(text.length);
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (c === '\\') {
        i++;
      } else if (c === '{') {
        this.braces.push(this.stack.length);
        this.stack.push(i);
      } else if (c === '[' || c === '(') {
        this.stack.push(i);
      } else if (c === '}') {
        this.closeBrace(i);
      } else if (c === ']' || c === ')') {
        this.closeOther(PAIRS[c], i);
      } else if (c === '%' && options.latexComments) {
        const end = text.indexOf('\n', i);
        i = end < 0 ? text.length : end - 1;
      } else if (c === '\n' && isParagraphBreak(text, i)) {
        this.stack.length = 0;
        this.braces.length = 0;
      }
    }
  }

  /** The index of the delimiter closing the one at `open`, or -1 when it is not closed. */
  closeOf(open: number): number {
    return open >= 0 && open < this.closers.length ? this.closers[open] - 1 : -1;
  }

  /** A `}` closes the innermost `{`, abandoning brackets opened inside it. */
  private closeBrace(at: number): void {
    const slot = this.braces.pop();
    if (slot === undefined) return;
    this.closers[this.stack[slot]] = at + 1;
    this.stack.length = slot;
  }

  /** A `]` or `)` closes only a matching opener directly on top; inside braces it is text. */
  private closeOther(opener: string, at: number): void {
    const top = this.stack[this.stack.length - 1];
    if (top === undefined || this.text[top] !== opener) return;
    this.stack.pop();
    this.closers[top] = at + 1;
  }
}

function isParagraphBreak(text: string, newline: number): boolean {
  for (let j = newline + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\n') return true;
    if (c !== ' ' && c !== '\t' && c !== '\r') return false;
  }
  return false;
}
