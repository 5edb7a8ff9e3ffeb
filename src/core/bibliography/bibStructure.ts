/** The structure of a .bib file (entries, fields, `@string` macros, `#` concatenation), read as BibTeX does; see parse.ts. */
import { Ch } from './charCodes';
import type { LineIndex } from '../text/positions';
import type { BibProblem } from './types';

interface Span {
  readonly start: number;
  readonly end: number;
}

export interface SpanProblem {
  readonly message: string;
  readonly span: Span;
}

export interface RawField {
  /** Macros expanded and parts concatenated, LaTeX still as written. */
  readonly value: string;
  readonly span: Span;
}

export interface RawEntry {
  readonly type: string;
  readonly key: string;
  readonly span: Span;
  readonly keySpan: Span;
  readonly fields: ReadonlyMap<string, RawField>;
}

/**
 * Thrown inside one entry; the reader turns it into a problem and moves on. Not an Error:
 * a file of broken entries throws thousands, and capturing stacks would dominate.
 */
class BibSyntaxError {
  constructor(
    readonly message: string,
    readonly span: Span,
  ) {}
}

/** `@type` and its opening delimiter; everything after `@` is optional so it always matches. */
const ENTRY_HEADER = /@\s*([^\s"#%'(),={}@]*)\s*([{(]?)/y;

/**
 * `@type{` at the start of a line always begins a new entry, so a brace left open in one
 * entry swallows nothing beyond the next line that looks like an entry.
 */
const LINE_START_HEADER = /^[ \t]*@[ \t]*[^\s"#%'(),={}@]+\s*[{(]/gm;

/**
 * Macro expansion can double a value at each `@string` (`s1 = s0 # s0`), so a 600-byte file can
 * expand to gigabytes. A value may grow by expansion to this many characters (more than any real
 * title or abstract) ...
 */
const MAX_EXPANDED_CHARS = 100_000;
/** ... and the whole file by this many characters plus its own length. */
const EXPANSION_ALLOWANCE = 4_000_000;

class ExpansionTooLarge extends BibSyntaxError {}
/** A value uses a `@string` refused earlier; that refusal is the one reported. */
class UsesRefusedString extends ExpansionTooLarge {}

export class BibReader {
  readonly entries: RawEntry[] = [];
  readonly problems: SpanProblem[] = [];
  /**
   * Problems only counted, not kept: each lies after more than MAX_PROBLEMS kept ones, so it
   * can never be among those shown, and a file of 200,000 broken entries need not build
   * 200,000 messages.
   */
  unshownProblems = 0;
  /** Set once more than MAX_PROBLEMS problems lie before the current entry. */
  private countOnly = false;
  private readonly strings: Map<string, string>;
  /** `@string` names whose definitions were refused for expanding to too much text. */
  private readonly refusedStrings = new Set<string>();
  private expansionLeft: number;
  private readonly lineStartHeaders: number[];
  private headerCursor = 0;
  private pos = 0;
  /** Offset of the current entry's closing delimiter. */
  private end = 0;
  /** The delimiter that should close the current entry. */
  private closer: number = Ch.RightBrace;
  private entryKey = '';
  private entryProblems: SpanProblem[] = [];

  constructor(
    private readonly text: string,
    defaultStrings: Readonly<Record<string, string>>,
  ) {
    this.strings = new Map(Object.entries(defaultStrings));
    this.expansionLeft = EXPANSION_ALLOWANCE + text.length;
    this.lineStartHeaders = findLineStartHeaders(text);
  }

  run(): void {
    let pos = 0;
    for (;;) {
      const at = this.text.indexOf('@', pos);
      if (at < 0) break;
      pos = this.readChunk(at);
    }
  }

  /** Reads whatever starts at the `@` at `at`; returns where to look for the next one. */
  private readChunk(at: number): number {
    this.countOnly = this.problems.length > MAX_PROBLEMS;
    ENTRY_HEADER.lastIndex = at;
    const header = ENTRY_HEADER.exec(this.text);
    if (!header || header[1] === '') return at + 1;
    const typeEnd = at + header[0].indexOf(header[1]) + header[1].length;
    if (header[2] === '') {
      // BibTeX itself ignores a bare `@comment` up to the end of its line.
      if (startsLine(this.text, at) && header[1].toLowerCase() !== 'comment') {
        this.report(`Expected '{' or '(' after '@${header[1]}'`, { start: at, end: typeEnd });
      }
      return typeEnd;
    }
    const type = header[1].toLowerCase();
    const open = at + header[0].length - 1;
    const limit = this.limitAfter(at);
    if (type === 'comment') return skipComment(this.text, open, limit);
    const close = findClose(this.text, open + 1, limit, this.text.charCodeAt(open));
    if (close < 0) {
      // Where it should have ended is anyone's guess, so nothing in it can be trusted.
      this.reportUnclosed(type, at, open, limit);
      return limit;
    }
    this.readEntry(type, at, open, close);
    return close + 1;
  }

  private limitAfter(at: number): number {
    const starts = this.lineStartHeaders;
    while (this.headerCursor < starts.length && starts[this.headerCursor] <= at) this.headerCursor++;
    return this.headerCursor < starts.length ? starts[this.headerCursor] : this.text.length;
  }

  private reportUnclosed(type: string, at: number, open: number, limit: number): void {
    if (this.countsOnly()) return;
    const closer = closerOf(this.text.charCodeAt(open));
    const keyStart = skipBlank(this.text, open + 1, limit);
    const keyEnd = type === 'string' || type === 'preamble' ? keyStart : scanKey(this.text, keyStart, limit, closer);
    const what = keyEnd > keyStart ? `Entry '${this.text.slice(keyStart, keyEnd)}'` : `'@${type}'`;
    const missing = closer === Ch.RightParen ? "missing ')'" : 'unbalanced braces';
    this.report(`${what} is not closed: ${missing}`, { start: at, end: Math.max(keyEnd, open + 1) });
  }

  /**
   * An entry whose key could be read is kept with the fields read before any error, as
   * BibTeX does, so that the problem is reported here once and not again at every \cite.
   */
  private readEntry(type: string, at: number, open: number, close: number): void {
    this.pos = open + 1;
    this.end = close;
    this.closer = closerOf(this.text.charCodeAt(open));
    this.entryKey = '';
    this.entryProblems = [];
    try {
      if (type === 'string') this.readStringDefinition();
      else if (type === 'preamble') this.readPreamble();
      else this.readDataEntry(type, at);
      this.checkCloser(open, close);
    } catch (error) {
      if (error instanceof BibSyntaxError) this.report(this.inEntry(error.message), error.span);
      else this.report(this.inEntry(errorMessage(error)), { start: at, end: open + 1 });
    }
    for (const problem of this.entryProblems) this.report(problem.message, problem.span);
  }

  private checkCloser(open: number, close: number): void {
    const opener = this.text.charCodeAt(open);
    const closer = this.text.charCodeAt(close);
    if ((opener === Ch.LeftBrace) !== (closer === Ch.RightBrace)) {
      const expected = opener === Ch.LeftParen ? ')' : '}';
      throw new BibSyntaxError(`Expected '${expected}' to close the entry, found '${this.text[close]}'`, {
        start: close,
        end: close + 1,
      });
    }
  }

  private readStringDefinition(): void {
    this.skipSpace();
    const name = this.text.slice(this.pos, scanName(this.text, this.pos, this.end)).toLowerCase();
    let field: RawField;
    try {
      [, field] = this.readField();
    } catch (error) {
      if (!(error instanceof ExpansionTooLarge)) throw error;
      this.refusedStrings.add(name);
      if (error instanceof UsesRefusedString) return;
      throw error;
    }
    this.skipSpace();
    this.expectEnd('@string');
    this.strings.set(name, field.value);
  }

  private readPreamble(): void {
    this.skipSpace();
    this.readExpression('@preamble');
    this.expectEnd('@preamble');
  }

  private readDataEntry(type: string, at: number): void {
    this.skipSpace();
    const keyStart = this.pos;
    this.pos = scanKey(this.text, keyStart, this.end, this.closer);
    const key = this.text.slice(keyStart, this.pos);
    if (key === '') throw this.errorHere(`Entry '@${type}' has no key`);
    this.skipSpace();
    if (this.pos < this.end && this.text.charCodeAt(this.pos) === Ch.Equals) {
      throw new BibSyntaxError(`Entry '@${type}' has no key: it starts with field '${key}'`, {
        start: keyStart,
        end: keyStart + key.length,
      });
    }
    this.entryKey = key;
    const fields = new Map<string, RawField>();
    this.entries.push({
      type,
      key,
      span: { start: at, end: this.end + 1 },
      keySpan: { start: keyStart, end: keyStart + key.length },
      fields,
    });
    if (this.pos >= this.end) return;
    if (this.text.charCodeAt(this.pos) !== Ch.Comma) {
      throw this.errorHere(`Expected ',' after the key, found ${this.describeHere()}`);
    }
    this.pos++;
    this.readFields(fields);
  }

  private readFields(fields: Map<string, RawField>): void {
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.end) return;
      const [name, field] = this.readField();
      // BibTeX keeps the first of two fields with the same name.
      if (!fields.has(name)) fields.set(name, field);
      this.skipSpace();
      if (this.pos >= this.end) return;
      if (this.text.charCodeAt(this.pos) !== Ch.Comma) {
        const found = isNameChar(this.text.charCodeAt(this.pos)) ? '' : `, found ${this.describeHere()}`;
        throw this.errorHere(`Missing ',' after field '${name}'${found}`);
      }
      this.pos++;
    }
  }

  private readField(): [string, RawField] {
    const nameStart = this.pos;
    const nameEnd = scanName(this.text, nameStart, this.end);
    if (nameEnd === nameStart) throw this.errorHere(`Expected a field name, found ${this.describeHere()}`);
    const name = this.text.slice(nameStart, nameEnd).toLowerCase();
    this.pos = nameEnd;
    this.skipSpace();
    if (this.pos >= this.end || this.text.charCodeAt(this.pos) !== Ch.Equals) {
      throw new BibSyntaxError(`Expected '=' after field name '${name}'`, { start: nameStart, end: nameEnd });
    }
    this.pos++;
    this.skipSpace();
    return [name, this.readExpression(name)];
  }

  private readExpression(field: string): RawField {
    const start = this.pos;
    let value = this.readPart(field);
    let end = this.pos;
    this.skipSpace();
    while (this.pos < this.end && this.text.charCodeAt(this.pos) === Ch.Hash) {
      this.pos++;
      this.skipSpace();
      value += this.readPart(field);
      end = this.pos;
      this.checkExpansion(field, value, start, end);
      this.skipSpace();
    }
    this.checkExpansion(field, value, start, end);
    this.expansionLeft -= Math.max(0, value.length - (end - start));
    return { value, span: { start, end } };
  }

  /** Checked as parts are added, so a refused value never grows past the limit in memory. */
  private checkExpansion(field: string, value: string, start: number, end: number): void {
    const growth = value.length - (end - start);
    if (growth <= 0) return;
    if (value.length > MAX_EXPANDED_CHARS) {
      throw new ExpansionTooLarge(`'${field}' expands to more than ${MAX_EXPANDED_CHARS.toLocaleString('en')} characters through @string macros; it is not expanded`, {
        start,
        end,
      });
    }
    if (growth > this.expansionLeft) {
      throw new ExpansionTooLarge(
        `'${field}' is not expanded: the @string macros of this file expand to more than ${EXPANSION_ALLOWANCE.toLocaleString('en')} characters beyond the file's own size`,
        { start, end },
      );
    }
  }

  private readPart(field: string): string {
    if (this.pos >= this.end) throw this.errorHere(`Field '${field}' has no value`);
    const c = this.text.charCodeAt(this.pos);
    if (c === Ch.LeftBrace) return this.readBraced(field);
    if (c === Ch.Quote) return this.readQuoted(field);
    if (c >= Ch.Zero && c <= Ch.Nine) return this.readNumber();
    if (isNameChar(c)) return this.readMacro(field);
    throw this.errorHere(`Expected a value for field '${field}', found ${this.describeHere()}`);
  }

  private readBraced(field: string): string {
    const start = this.pos;
    let depth = 0;
    for (let i = start; i < this.end; i++) {
      const c = this.text.charCodeAt(i);
      if (c === Ch.LeftBrace) depth++;
      else if (c === Ch.RightBrace && --depth === 0) {
        this.pos = i + 1;
        return this.text.slice(start + 1, i);
      }
    }
    throw new BibSyntaxError(`Field '${field}' has unbalanced braces`, { start, end: start + 1 });
  }

  private readQuoted(field: string): string {
    const start = this.pos;
    let depth = 0;
    for (let i = start + 1; i < this.end; i++) {
      const c = this.text.charCodeAt(i);
      if (c === Ch.LeftBrace) depth++;
      else if (c === Ch.RightBrace && --depth < 0) {
        throw new BibSyntaxError(`Field '${field}' has an unmatched '}'`, { start: i, end: i + 1 });
      } else if (c === Ch.Quote && depth === 0) {
        this.pos = i + 1;
        return this.text.slice(start + 1, i);
      }
    }
    throw new BibSyntaxError(`Field '${field}' has an unclosed '"'`, { start, end: start + 1 });
  }

  private readNumber(): string {
    const start = this.pos;
    while (this.pos < this.end && isDigit(this.text.charCodeAt(this.pos))) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private readMacro(field: string): string {
    const start = this.pos;
    this.pos = scanName(this.text, start, this.end);
    const name = this.text.slice(start, this.pos);
    const value = this.strings.get(name.toLowerCase());
    if (value !== undefined) return value;
    if (this.refusedStrings.has(name.toLowerCase())) {
      throw new UsesRefusedString(`Field '${field}' uses '${name}', whose @string expands to too much text to be expanded (see there)`, { start, end: this.pos });
    }
    // BibTeX carries on with an empty value too, but the field is then silently lost.
    // Past MAX_PROBLEMS in one entry, each lies after all those before it, so none is shown.
    if (this.countsOnly()) return '';
    if (this.entryProblems.length > MAX_PROBLEMS) {
      this.unshownProblems++;
      return '';
    }
    this.entryProblems.push({
      message: this.inEntry(`Field '${field}' uses '${name}', which is not defined by any earlier @string`),
      span: { start, end: this.pos },
    });
    return '';
  }

  private expectEnd(what: string): void {
    if (this.pos < this.end) throw this.errorHere(`Unexpected ${this.describeHere()} in ${what}`);
  }

  /** Whitespace, and `%` comments as citation-js and biber allow between tokens. */
  private skipSpace(): void {
    for (;;) {
      this.pos = skipBlank(this.text, this.pos, this.end);
      if (this.pos >= this.end || this.text.charCodeAt(this.pos) !== Ch.Percent) return;
      this.pos = Math.min(lineEnd(this.text, this.pos), this.end);
    }
  }

  private errorHere(message: string): BibSyntaxError {
    const start = Math.min(this.pos, this.end);
    return new BibSyntaxError(message, { start, end: start + 1 });
  }

  private describeHere(): string {
    if (this.pos >= this.end) return `'${this.text[this.end]}'`;
    return describeChar(this.text.charCodeAt(this.pos));
  }

  private inEntry(message: string): string {
    return this.entryKey ? `${message} in entry '${this.entryKey}'` : message;
  }

  private report(message: string, span: Span): void {
    if (!this.countsOnly()) this.problems.push({ message, span });
  }

  /** Counts a problem that will not be shown, before its message is built; false if it may be. */
  private countsOnly(): boolean {
    if (this.countOnly) this.unshownProblems++;
    return this.countOnly;
  }
}

function findLineStartHeaders(text: string): number[] {
  const starts: number[] = [];
  LINE_START_HEADER.lastIndex = 0;
  for (let m = LINE_START_HEADER.exec(text); m; m = LINE_START_HEADER.exec(text)) {
    starts.push(m.index + m[0].indexOf('@'));
  }
  return starts;
}

/**
 * Offset of the delimiter that closes an entry whose body starts at `from`, or -1 if there
 * is none before `limit`. Mirrors how the field reader will see the body: braces nest,
 * quotes matter only outside braces, and `%` starts a comment only between values.
 */
function findClose(text: string, from: number, limit: number, opener: number): number {
  let depth = 0;
  let inQuote = false;
  for (let i = from; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (c === Ch.LeftBrace) depth++;
    else if (c === Ch.RightBrace) {
      if (depth === 0) return i;
      depth--;
    } else if (depth > 0) continue;
    else if (c === Ch.Quote) inQuote = !inQuote;
    else if (inQuote) continue;
    else if (c === Ch.RightParen && opener === Ch.LeftParen) return i;
    else if (c === Ch.Percent) i = lineEnd(text, i) - 1;
  }
  return -1;
}

/** `@comment{...}` is skipped whole when its braces balance, else just its line, as BibTeX does. */
function skipComment(text: string, open: number, limit: number): number {
  const closer = closerOf(text.charCodeAt(open));
  let depth = 0;
  for (let i = open + 1; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (depth === 0 && c === closer) return i + 1;
    if (c === Ch.LeftBrace) depth++;
    else if (c === Ch.RightBrace) depth--;
  }
  return lineEnd(text, open);
}

function lineEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === Ch.LineFeed || c === Ch.CarriageReturn) return i;
  }
  return text.length;
}

function startsLine(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === Ch.LineFeed || c === Ch.CarriageReturn) return true;
    if (c !== Ch.Space && c !== Ch.Tab) return false;
  }
  return true;
}

function closerOf(opener: number): number {
  return opener === Ch.LeftParen ? Ch.RightParen : Ch.RightBrace;
}

function skipBlank(text: string, from: number, limit: number): number {
  let i = from;
  while (i < limit && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** Keys may hold nearly anything (`Smith:2020`, `doi/10.1/x`), but not what ends them. */
function scanKey(text: string, from: number, limit: number, closer: number): number {
  let i = from;
  for (; i < limit; i++) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || c < Ch.Space || c === Ch.Comma || c === Ch.LeftBrace || c === Ch.RightBrace) break;
    if (c === Ch.Equals || c === Ch.Quote || c === Ch.Percent || c === closer) break;
  }
  return i;
}

/** Field and macro names: BibTeX's identifier characters. */
function scanName(text: string, from: number, limit: number): number {
  let i = from;
  while (i < limit && isNameChar(text.charCodeAt(i))) i++;
  return i;
}

function isNameChar(c: number): boolean {
  if (c <= Ch.Space || c === 127 || isSpace(c)) return false;
  switch (c) {
    case Ch.Quote:
    case Ch.Hash:
    case Ch.Percent:
    case Ch.Apostrophe:
    case Ch.LeftParen:
    case Ch.RightParen:
    case Ch.Comma:
    case Ch.Equals:
    case Ch.LeftBrace:
    case Ch.RightBrace:
      return false;
    default:
      return true;
  }
}

export function isSpace(c: number): boolean {
  return c === Ch.Space || (c >= Ch.Tab && c <= Ch.CarriageReturn) || c === 0xa0 || c === 0xfeff || c === 0x2028 || c === 0x2029;
}

function isDigit(c: number): boolean {
  return c >= Ch.Zero && c <= Ch.Nine;
}

function describeChar(c: number): string {
  if (c < Ch.Space || c === 127) return `character U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCharCode(c)}'`;
}

// ---------------------------------------------------------------------------------------

/** Past this many, a file is not a bibliography with typos but something else entirely. */
const MAX_PROBLEMS = 5000;

/** `unshown` problems were only counted; each lies after more than MAX_PROBLEMS of `problems`. */
export function toBibProblems(problems: readonly SpanProblem[], unshown: number, lines: LineIndex): BibProblem[] {
  const sorted = [...problems].sort((a, b) => a.span.start - b.span.start);
  const shown = sorted.slice(0, MAX_PROBLEMS).map((p) => ({ message: p.message, range: lines.rangeOf(p.span.start, p.span.end) }));
  if (sorted.length > MAX_PROBLEMS) {
    const rest = sorted[MAX_PROBLEMS].span.start;
    shown.push({
      message: `${sorted.length + unshown - MAX_PROBLEMS} more problems from here on are not shown; is this a BibTeX file?`,
      range: lines.rangeOf(rest, rest),
    });
  }
  return shown;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
