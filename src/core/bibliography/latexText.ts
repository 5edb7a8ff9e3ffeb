import type * as ConstantsModule from '@citation-js/plugin-bibtex/lib/input/constants.js';
import { Ch, isLetter } from './charCodes';

/*
 * citation-js's reading of a BibTeX text field, for the LaTeX nearly every field is made of: text,
 * spaces and `~`, `{}` groups, accent and letter macros (`\'{e}`, `\"o`, `{\aa}`), formatting
 * (`\emph{…}`, `{\em …}`), inline math with Greek letters and sub- and superscripts, ligatures
 * (`--`, ``` `` ```). It gives exactly what citation-js's value grammar (its `String` rule, with
 * sentence casing off, as Attest leaves it) gives, from citation-js's own tables; for anything else
 * (`\begin`, `\url`, `\href`, an unbalanced brace or `$`, a command named like an Object property,
 * nesting deeper than MAX_DEPTH) it gives `undefined` and the caller asks citation-js.
 *
 * Hand-written because citation-js spends about 300 ns on each token (a moo token object, then its
 * grammar's rule calls), measured: a 1 MB title of `$x^2$ ` took 330 ms and one of `\'{e}` 290 ms,
 * and an ordinary 10 MB bibliography spent most of its reading time there. This reader walks the
 * characters once with no token objects. test/unit/core/bibliography/latexText.test.ts compares the two on the
 * fields of real bibliographies and on every construct above.
 */

/** The tables of citation-js's `constants.js` this reader uses. */
export type LatexTables = Pick<
  typeof ConstantsModule,
  | 'commands'
  | 'mathCommands'
  | 'diacritics'
  | 'argumentCommands'
  | 'formattingEnvs'
  | 'formattingCommands'
  | 'formatting'
  | 'ligaturePattern'
  | 'ligatures'
  | 'mathScripts'
  | 'mathScriptFormatting'
>;

/** What citation-js's Command rule does with a command name, in the order it checks its tables. */
type CommandAction =
  | { readonly kind: 'env'; readonly format: string | undefined }
  | { readonly kind: 'format'; readonly format: string | undefined }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'accent'; readonly accent: string }
  | { readonly kind: 'unsupported' };

/** The lexer state citation-js would be in: its tokens differ inside braces and math. */
const enum Mode {
  Top,
  Braced,
  Math,
}

/** Past this nesting citation-js is left to it (and to its own stack). */
const MAX_DEPTH = 100;

/** Thrown to give up on a field; not an Error, so that no stack is captured. */
const UNSUPPORTED = Symbol('unsupported');

const SINGLE_CHARACTER_ESCAPE = /^[&%$#_{}]$/;

/**
 * Reads one field at a time into `output`. Text that comes out as it was written is kept as a span of
 * the field and sliced once, so a field of ten thousand `\\` adds one string, not ten thousand: a
 * rope of that many small slices made reading a 1 MB field mostly garbage collection.
 */
export class LatexTextReader {
  private readonly actions = new Map<string, CommandAction>();
  private readonly scriptActions = new Map<string, string | undefined>();
  /** `letter + accent` composed, as citation-js composes it with NFC. */
  private readonly composed = new Map<string, string>();
  private text = '';
  private pos = 0;
  private depth = 0;
  private output = '';
  /** Text that reads as written, not yet in `output`. */
  private spanStart = 0;
  private spanEnd = 0;

  constructor(private readonly tables: LatexTables) {
    // Lowest priority first, so that each name keeps the action citation-js would take.
    for (const name of Object.keys(tables.argumentCommands)) this.actions.set(name, { kind: 'unsupported' });
    for (const [name, accent] of Object.entries(tables.diacritics)) this.actions.set(name, { kind: 'accent', accent });
    for (const [name, text] of Object.entries(tables.mathCommands)) this.actions.set(name, { kind: 'text', text });
    for (const [name, text] of Object.entries(tables.commands)) this.actions.set(name, { kind: 'text', text });
    for (const [name, format] of Object.entries(tables.formattingCommands)) this.actions.set(name, { kind: 'format', format });
    for (const [name, format] of Object.entries(tables.formattingEnvs)) this.actions.set(name, { kind: 'env', format });
    // citation-js looks names up with `in`, which finds these on every table.
    for (const name of Object.getOwnPropertyNames(Object.prototype)) this.actions.set(name, { kind: 'unsupported' });
    for (const [name, format] of Object.entries(tables.mathScriptFormatting)) this.scriptActions.set(name, format);
  }

  /** The field's text as citation-js reads it, or undefined where citation-js must be asked. */
  read(value: string): string | undefined {
    this.text = value;
    this.pos = 0;
    this.depth = 0;
    this.spanStart = this.spanEnd = 0;
    try {
      const outer = this.mark();
      while (this.pos < value.length) this.readText(Mode.Top);
      return this.takeFrom(outer);
    } catch (error) {
      if (error === UNSUPPORTED) return undefined;
      throw error;
    } finally {
      this.text = '';
      this.output = '';
    }
  }

  /** citation-js's Text rule: one group, math, run of spaces, command or run of text. */
  private readText(mode: Mode): void {
    const text = this.text;
    if (this.pos >= text.length) throw UNSUPPORTED;
    const c = text.charCodeAt(this.pos);
    if (c === Ch.LeftBrace) this.readGroup();
    else if (c === Ch.Dollar) {
      // Inside math a `$` closes it; only MathString may take it.
      if (mode === Mode.Math) throw UNSUPPORTED;
      this.readMath();
    } else if (c === Ch.Tilde) {
      this.pos++;
      this.push('\u00a0');
    } else if (isJsSpace(c)) {
      const start = this.pos;
      let i = start + 1;
      while (i < text.length && isJsSpace(text.charCodeAt(i))) i++;
      this.pos = i;
      if (i === start + 1 && c === Ch.Space) this.copy(start, i);
      else this.push(' ');
    } else if (c === Ch.Backslash) this.readCommand(mode);
    else this.readRun(mode);
  }

  /** A text token, its ligatures replaced; a `}` or script where citation-js expects text is an error there. */
  private readRun(mode: Mode): void {
    const text = this.text;
    const start = this.pos;
    let i = start;
    let ligature = false;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === Ch.LeftBrace || c === Ch.RightBrace || c === Ch.Dollar || c === Ch.Tilde || c === Ch.Backslash || isJsSpace(c)) break;
      if (mode === Mode.Math && (c === Ch.Caret || c === Ch.Underscore)) break;
      if (c === Ch.Hyphen || c === Ch.Apostrophe || c === Ch.Backtick) ligature = true;
    }
    if (i === start) throw UNSUPPORTED;
    this.pos = i;
    if (ligature) this.push(text.slice(start, i).replace(this.tables.ligaturePattern, (l) => this.tables.ligatures[l]));
    else this.copy(start, i);
  }

  /** citation-js's BracketString: no case protection, since sentence casing is off. */
  private readGroup(): void {
    if (++this.depth > MAX_DEPTH) throw UNSUPPORTED;
    this.pos++;
    for (;;) {
      if (this.pos >= this.text.length) throw UNSUPPORTED;
      if (this.text.charCodeAt(this.pos) === Ch.RightBrace) break;
      this.readText(Mode.Braced);
    }
    this.pos++;
    this.depth--;
  }

  /** citation-js's MathString. */
  private readMath(): void {
    if (++this.depth > MAX_DEPTH) throw UNSUPPORTED;
    const text = this.text;
    this.pos++;
    for (;;) {
      if (this.pos >= text.length) throw UNSUPPORTED;
      const c = text.charCodeAt(this.pos);
      if (c === Ch.Dollar) break;
      if (c === Ch.Caret || c === Ch.Underscore) {
        this.pos++;
        const mark = this.mark();
        this.readText(Mode.Math);
        this.push(this.script(c === Ch.Caret ? '^' : '_', this.takeFrom(mark)));
      } else if (c === Ch.Backslash && this.scriptActions.has(this.commandNameAt(this.pos))) {
        const format = this.scriptActions.get(this.commandNameAt(this.pos));
        this.skipCommand();
        this.push(this.applyFormatting(this.readArgument(), format));
      } else {
        this.readText(Mode.Math);
      }
    }
    this.pos++;
    this.depth--;
  }

  /** The argument in Unicode sub- or superscript letters where all of it has them, else formatted. */
  private script(script: '^' | '_', argument: string): string {
    const table = this.tables.mathScripts[script];
    let mapped = '';
    for (const unit of argument.split('')) {
      if (!Object.hasOwn(table, unit)) {
        const [open, close] = this.tables.formatting[this.tables.mathScriptFormatting[script] ?? ''];
        return open + argument + close;
      }
      mapped += table[unit];
    }
    return mapped;
  }

  /** citation-js's Command rule. */
  private readCommand(mode: Mode): void {
    const start = this.pos;
    const name = this.commandNameAt(start);
    if (name.startsWith('begin') && this.text.startsWith('\\begin', start)) throw UNSUPPORTED;
    this.skipCommand();
    const action = this.actions.get(name);
    if (action === undefined) {
      this.copy(SINGLE_CHARACTER_ESCAPE.test(name) ? start + 1 : start, this.pos);
      return;
    }
    switch (action.kind) {
      case 'env': {
        const mark = this.mark();
        this.readEnv(mode);
        this.push(this.applyFormatting(this.takeFrom(mark), action.format));
        return;
      }
      case 'format':
        this.push(this.applyFormatting(this.readArgument(), action.format));
        return;
      case 'text':
        this.push(action.text);
        return;
      case 'accent': {
        // At the end citation-js has nothing to accent and keeps the command as written.
        if (this.pos >= this.text.length) {
          this.copy(start, this.pos);
          return;
        }
        const mark = this.mark();
        this.readText(mode);
        this.push(this.accent(this.takeFrom(mark), action.accent));
        return;
      }
      default:
        throw UNSUPPORTED;
    }
  }

  /** The accent on the first UTF-16 unit of what follows; citation-js gives "undefined" and the accent for nothing. */
  private accent(argument: string, accent: string): string {
    if (argument === '') throw UNSUPPORTED;
    const pair = argument[0] + accent;
    let composed = this.composed.get(pair);
    if (composed === undefined) {
      composed = pair.normalize('NFC');
      if (this.composed.size > 10_000) this.composed.clear();
      this.composed.set(pair, composed);
    }
    return argument.length === 1 ? composed : composed + argument.slice(1);
  }

  /** citation-js's Env: the rest of the group, or of the field. */
  private readEnv(mode: Mode): void {
    while (this.pos < this.text.length && this.text.charCodeAt(this.pos) !== Ch.RightBrace) this.readText(mode);
  }

  /** A command's `{…}` argument, which citation-js requires right after the command and its spaces. */
  private readArgument(): string {
    if (this.text.charCodeAt(this.pos) !== Ch.LeftBrace) throw UNSUPPORTED;
    const mark = this.mark();
    this.readGroup();
    return this.takeFrom(mark);
  }

  private applyFormatting(text: string, format: string | undefined): string {
    if (format === undefined || !Object.hasOwn(this.tables.formatting, format)) return text;
    const [open, close] = this.tables.formatting[format];
    return text && open + text + close;
  }

  /** Text as written, from `start` to `end` of the field. */
  private copy(start: number, end: number): void {
    if (start === this.spanEnd) {
      this.spanEnd = end;
      return;
    }
    this.flush();
    this.spanStart = start;
    this.spanEnd = end;
  }

  private push(piece: string): void {
    this.flush();
    this.output += piece;
  }

  private flush(): void {
    if (this.spanEnd > this.spanStart) this.output += this.text.slice(this.spanStart, this.spanEnd);
    this.spanStart = this.spanEnd = 0;
  }

  /** Starts an output of its own; `takeFrom` gives what was read into it and goes back to `outer`. */
  private mark(): string {
    this.flush();
    const outer = this.output;
    this.output = '';
    return outer;
  }

  private takeFrom(outer: string): string {
    this.flush();
    const read = this.output;
    this.output = outer;
    return read;
  }

  /**
   * The name of the command at `at`, as citation-js's token `/\\(?:[a-zA-Z]+|.) * /` gives it: letters,
   * or any one character but a line break, its trailing spaces trimmed.
   */
  private commandNameAt(at: number): string {
    const end = this.commandNameEnd(at);
    return this.text.slice(at + 1, end).trim();
  }

  private commandNameEnd(at: number): number {
    const text = this.text;
    const i = at + 1;
    if (i >= text.length || isLineTerminator(text.charCodeAt(i))) throw UNSUPPORTED;
    if (!isLetter(text.charCodeAt(i))) return i + 1;
    let end = i + 1;
    while (end < text.length && isLetter(text.charCodeAt(end))) end++;
    return end;
  }

  /** Past the command at `pos` and the spaces its token takes with it. */
  private skipCommand(): void {
    let i = this.commandNameEnd(this.pos);
    while (i < this.text.length && this.text.charCodeAt(i) === Ch.Space) i++;
    this.pos = i;
  }
}

/** What a regular expression's `.` does not match. */
function isLineTerminator(c: number): boolean {
  return c === Ch.LineFeed || c === Ch.CarriageReturn || c === 0x2028 || c === 0x2029;
}

/** A regular expression's `\s`, which is what citation-js's lexer splits on. */
function isJsSpace(c: number): boolean {
  if (c <= Ch.Space) return c === Ch.Space || (c >= Ch.Tab && c <= Ch.CarriageReturn);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
