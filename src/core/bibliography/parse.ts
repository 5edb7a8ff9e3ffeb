import { Ch } from './charCodes';
import { pdfPathsOf } from './fileField';
import { LatexTextReader } from './latexText';
import { nameChunks } from './nameList';
import { LineIndex, type Position } from '../text/positions';
import type { Author, BibEntry, BibProblem, Bibliography } from './types';
import type * as ValueModule from '@citation-js/plugin-bibtex/lib/input/value.js';
import type * as ConstantsModule from '@citation-js/plugin-bibtex/lib/input/constants.js';
import type * as CrossrefModule from '@citation-js/plugin-bibtex/lib/mapping/crossref.js';
import type * as CitationJsModule from './citationJs';

/*
 * Reading a .bib file happens in two layers.
 *
 * The structure (entries, fields, `@string` macros, `#` concatenation) is read here, not
 * by citation-js's file grammar: that grammar stops at the first syntax error without a
 * position, and alone takes about 6 ms on a 125-entry file. Our reader follows BibTeX:
 * junk between entries is ignored, an entry that cannot be read becomes a problem with a
 * precise range, and reading resumes at the next entry.
 *
 * The values are then handed to citation-js, which knows LaTeX: accents and special
 * letters become Unicode, names are split into given/family/particle, and `crossref`
 * inheritance follows biblatex's rules (a proceedings' title becomes the booktitle of
 * its papers). Its value grammar costs about 300 ns a token, so the LaTeX nearly every text
 * field is made of is read as it reads it by latexText.ts, from its own tables, and author
 * lists go to it a name at a time, each distinct name once (nameList.ts).
 */

export function parseBibliography(text: string, file: string): Bibliography {
  const lines = new LineIndex(text);
  const problems: SpanProblem[] = [];
  let unshown = 0;
  let entries: BibEntry[] = [];
  try {
    const reader = new BibReader(text, citationJs().constants.defaultStrings);
    reader.run();
    for (const problem of reader.problems) problems.push(problem);
    unshown = reader.unshownProblems;
    entries = buildEntries(reader.entries, file, lines, problems);
  } catch (error) {
    // Only a bug can land here; losing the file's entries beats taking the caller down.
    problems.push({ message: `Could not read this bibliography: ${errorMessage(error)}`, span: { start: 0, end: 0 } });
  }
  return { file, entries, problems: toBibProblems(problems, unshown, lines) };
}

// ---------------------------------------------------------------------------------------
// citation-js, loaded on first use: it pulls in all of @citation-js/core, which is slow to
// load and not needed until a bibliography is actually read.

interface CitationJs {
  readonly value: typeof ValueModule;
  readonly constants: typeof ConstantsModule;
  readonly crossref: typeof CrossrefModule;
  /** citation-js's reading of the common LaTeX of text fields, without its grammar's cost. */
  readonly latexText: LatexTextReader;
}

let loaded: CitationJs | undefined;

function citationJs(): CitationJs {
  if (!loaded) {
    const library = require('./citationJs') as typeof CitationJsModule;
    const constants = library.bibtexConstants;
    addMissingLatexCommands(constants.commands);
    loaded = { value: library.bibtexValue, constants, crossref: library.bibtexCrossref, latexText: new LatexTextReader(constants) };
  }
  return loaded;
}

/** Letters that are common in author names but missing from citation-js's table. */
function addMissingLatexCommands(commands: Record<string, string>): void {
  const missing: Record<string, string> = { aa: '\u00e5', AA: '\u00c5' };
  for (const [name, text] of Object.entries(missing)) {
    if (!(name in commands)) commands[name] = text;
  }
}

// ---------------------------------------------------------------------------------------
// Structure

interface Span {
  readonly start: number;
  readonly end: number;
}

interface SpanProblem {
  readonly message: string;
  readonly span: Span;
}

interface RawField {
  /** Macros expanded and parts concatenated, LaTeX still as written. */
  readonly value: string;
  readonly span: Span;
}

interface RawEntry {
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

class BibReader {
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
      throw new ExpansionTooLarge(`'${field}' expands to more than ${MAX_EXPANDED_CHARS.toLocaleString('en')} characters through @string macros; it is not expanded`, { start, end });
    }
    if (growth > this.expansionLeft) {
      throw new ExpansionTooLarge(`'${field}' is not expanded: the @string macros of this file expand to more than ${EXPANSION_ALLOWANCE.toLocaleString('en')} characters beyond the file's own size`, { start, end });
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

function isSpace(c: number): boolean {
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
// Values

/** A parsed author list; kept as one value so that crossref can inherit it whole. */
interface AuthorList {
  readonly authors: readonly Author[];
  readonly truncated: boolean;
}

type FieldValue = string | AuthorList;

interface Properties {
  crossref?: FieldValue;
  [field: string]: FieldValue | undefined;
}

/** Fields that say what kind of work an entry is, beyond its type: software, a data set, a web page. */
const DESCRIBING_FIELDS = ['howpublished', 'note', 'publisher', 'organization', 'institution', 'version', 'type'];

/** Fields that need LaTeX turned into text. */
const TEXT_FIELDS = new Set(['title', 'subtitle', 'journal', 'journaltitle', 'booktitle', 'abstract', ...DESCRIBING_FIELDS]);

/** Fields used as written: identifiers and dates, where LaTeX conversion would only harm. */
// `attest-ignore` is Attest's own directive (`acceptance.ts`), read as written.
const VERBATIM_FIELDS = new Set(['year', 'date', 'doi', 'url', 'urldate', 'eprint', 'eprinttype', 'archiveprefix', 'crossref', 'file', 'pmid', 'pmcid', 'attest-ignore']);

function buildEntries(raws: readonly RawEntry[], file: string, lines: LineIndex, problems: SpanProblem[]): BibEntry[] {
  const properties = raws.map((raw) => readProperties(raw, problems));
  const resolved = resolveCrossrefs(raws, properties, problems);
  const positions = new ForwardPositions(lines);
  return raws.map((raw, i) => toBibEntry(raw, resolved[i], file, positions));
}

function readProperties(raw: RawEntry, problems: SpanProblem[]): Properties {
  const properties: Properties = {};
  for (const [name, field] of raw.fields) {
    if (VERBATIM_FIELDS.has(name)) {
      properties[name] = field.value.trim();
    } else if (name === 'author' || TEXT_FIELDS.has(name)) {
      const conversion = convert(name, field.value);
      if (conversion.failed) problems.push(conversion.reason ? { message: `Field '${name}' of entry '${raw.key}' ${conversion.reason}`, span: field.span } : latexProblem(name, field, raw.key));
      properties[name] = conversion.value;
    }
  }
  return properties;
}

interface Conversion {
  readonly value: FieldValue;
  /** citation-js could not read the LaTeX, or was not given it; `value` is a best-effort plain text. */
  readonly failed: boolean;
  /** Why, when it is not the LaTeX. */
  readonly reason?: string;
}

/**
 * Conversions by field and text. An editor re-reads a .bib file on every change, and
 * nearly all of its values are the same as last time; citation-js's name grammar is the
 * most expensive part of reading a file.
 */
const conversions = new Map<string, Conversion>();
let conversionChars = 0;
const MAX_CONVERSION_CHARS = 4_000_000;

function convert(name: string, value: string): Conversion {
  if (name !== 'author' && !LATEX_MARKUP.test(value)) return { value: collapseSpace(value), failed: false };
  const cacheKey = `${name}\u0000${value}`;
  const cached = conversions.get(cacheKey);
  if (cached) return cached;
  const conversion = name === 'author' ? convertAuthors(value) : convertText(name, value);
  if (conversionChars + cacheKey.length > MAX_CONVERSION_CHARS) {
    conversions.clear();
    conversionChars = 0;
  }
  conversions.set(cacheKey, conversion);
  conversionChars += cacheKey.length;
  return conversion;
}

/** What citation-js would change; text without any of it comes back the same, only faster. */
const LATEX_MARKUP = /[\\{}$~]|--|``|''/;

function convertText(name: string, value: string): Conversion {
  const library = citationJs();
  const read = readsAsOneString(name, value, library.constants.fieldTypes) ? library.latexText.read(value) : undefined;
  if (read !== undefined) return { value: cleanText(read), failed: false };
  try {
    const text = library.value.parse(value, name);
    return { value: typeof text === 'string' ? cleanText(text) : stripLatex(value), failed: false };
  } catch {
    return { value: stripLatex(value), failed: true };
  }
}

/**
 * Whether citation-js reads the field with its `String` rule, which LatexTextReader follows: a
 * literal or title `field` (sentence casing being off), one it has no type for, or a literal `list`
 * such as `publisher` with no ` and ` to split it at, which reads the same.
 */
function readsAsOneString(name: string, value: string, fieldTypes: typeof ConstantsModule.fieldTypes): boolean {
  const type = Object.hasOwn(fieldTypes, name) ? fieldTypes[name] : undefined;
  if (type === undefined) return true;
  if (type[1] !== 'literal' && type[1] !== 'title') return false;
  return type[0] === 'field' || (type[0] === 'list' && !LIST_SEPARATOR.test(value));
}

/** citation-js's `and` token of list fields. */
const LIST_SEPARATOR = /\sand\s/;

/**
 * citation-js reads one name in time that grows with the square of its words (a 125 KB name took
 * 7.5 s); the longest real names, collaborations spelled out, are a few hundred characters.
 */
const LONGEST_NAME = 1000;

function convertAuthors(value: string): Conversion {
  // Only a field this long can hold such a name: the others are not split for the test.
  const long = value.length > LONGEST_NAME ? splitNames(value) : undefined;
  if (long?.some((name) => name.length > LONGEST_NAME)) {
    return { value: { authors: long.map(plainAuthor), truncated: false }, failed: true, reason: `has a name over ${LONGEST_NAME} characters, which is not a name; it was read as plain text` };
  }
  const written = (): string[] => long ?? splitNames(value);
  let names: unknown;
  try {
    names = parseNamesOneByOne(value) ?? citationJs().value.parse(value, 'author');
  } catch {
    return { value: { authors: written().map(plainAuthor), truncated: false }, failed: true };
  }
  if (!Array.isArray(names)) return { value: { authors: [], truncated: false }, failed: false };
  const list: readonly unknown[] = names;
  // Without braces no name is one brace group, and the names as written are not needed.
  const parts = value.includes('{') ? written() : [];
  const authors: Author[] = [];
  let truncated = false;
  list.forEach((name, i) => {
    // BibTeX's way of saying "et al.": the list goes on, but not here.
    if (isOthers(name)) truncated = true;
    else pushAuthor(authors, name, parts.length === list.length ? parts[i] : undefined);
  });
  // Shared by every entry and every parse that has the same author field.
  return { value: Object.freeze({ authors: Object.freeze(authors.map((a) => Object.freeze(a))), truncated }), failed: false };
}

/**
 * The names of a list each parsed alone and remembered (see nameChunks), or undefined for a list
 * left to citation-js whole: one it cannot be cut, or one with a piece that is not one name.
 */
function parseNamesOneByOne(value: string): unknown[] | undefined {
  const chunks = nameChunks(value);
  if (chunks === undefined) return undefined;
  const names: unknown[] = [];
  for (const chunk of chunks) {
    const name = parsePlainName(chunk);
    if (name === undefined) return undefined;
    names.push(name);
  }
  return names;
}

/** citation-js's reading of one name, which it never changes once made. */
const plainNames = new Map<string, unknown>();
let plainNameChars = 0;

function parsePlainName(text: string): unknown {
  const cached = plainNames.get(text);
  if (cached !== undefined) return cached;
  let list: unknown;
  try {
    list = citationJs().value.parse(text, 'author');
  } catch {
    return undefined;
  }
  if (!Array.isArray(list) || list.length !== 1) return undefined;
  if (plainNameChars + text.length > MAX_CONVERSION_CHARS) {
    plainNames.clear();
    plainNameChars = 0;
  }
  plainNames.set(text, list[0]);
  plainNameChars += text.length;
  return list[0];
}

/** A rough "Family, Given" or "Given Family" reading for names citation-js could not parse. */
function plainAuthor(name: string): Author {
  const text = stripLatex(name);
  const comma = text.indexOf(',');
  if (comma >= 0) return { family: text.slice(0, comma).trim(), given: text.slice(comma + 1).trim() };
  const space = text.lastIndexOf(' ');
  return space < 0 ? { family: text } : { family: text.slice(space + 1), given: text.slice(0, space) };
}

function isOthers(name: unknown): boolean {
  if (typeof name !== 'object' || name === null) return false;
  const parts = name as Readonly<Record<string, unknown>>;
  return parts.family === 'others' && parts.given === undefined && parts.prefix === undefined;
}

/**
 * Particles go into the family name ("van der Berg", given "Jan"), because that is how
 * publishers' metadata spells it and what a reader looks up; suffixes like "Jr." are dropped.
 */
function pushAuthor(authors: Author[], name: unknown, rawPart: string | undefined): void {
  if (typeof name !== 'object' || name === null) return;
  if (rawPart !== undefined && isBraceGroup(rawPart)) {
    const family = familyOf(name);
    if (family) {
      authors.push({ literal: family });
      return;
    }
  }
  let person = persons.get(name);
  if (person === undefined) {
    person = personOf(name);
    persons.set(name, person);
  }
  if (person !== null) authors.push(person);
}

/** By citation-js's name, which parsePlainName shares between the lists that have it. */
const persons = new WeakMap<object, Author | null>();

function personOf(name: object): Author | null {
  const family = familyOf(name);
  const given = 'given' in name && typeof name.given === 'string' ? cleanText(name.given) : '';
  if (family && given) return Object.freeze({ family, given });
  if (family || given) return Object.freeze({ family: family || given });
  return null;
}

function familyOf(name: object): string {
  const parts = name as Readonly<Record<string, unknown>>;
  return joinDefined([parts.prefix, parts.family]);
}

function joinDefined(values: readonly unknown[]): string {
  const strings = values.filter((v): v is string => typeof v === 'string' && v.trim() !== '');
  return cleanText(strings.join(' '));
}

/** The names of an author field as written, split on ` and ` outside braces like BibTeX does. */
function splitNames(value: string): string[] {
  const names: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === Ch.LeftBrace) depth++;
    else if (c === Ch.RightBrace) depth--;
    // Only at the start of a run of spaces: a separator found later in the run is found from its start too, and trying each space of a long run would cost its square.
    else if (depth === 0 && isSpace(c) && !(i > 0 && isSpace(value.charCodeAt(i - 1)))) {
      NAME_SEPARATOR.lastIndex = i;
      const m = NAME_SEPARATOR.exec(value);
      if (m && i > start) {
        names.push(value.slice(start, i).trim());
        start = i + m[0].length;
        i = start - 1;
      }
    }
  }
  const last = value.slice(start).trim();
  if (last !== '') names.push(last);
  return names;
}

const NAME_SEPARATOR = /\s+and\s+/iy;

/** `{World Health Organization}`: one brace group around the whole name. */
function isBraceGroup(name: string): boolean {
  if (name.charCodeAt(0) !== Ch.LeftBrace || name.charCodeAt(name.length - 1) !== Ch.RightBrace) return false;
  let depth = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === Ch.LeftBrace) depth++;
    else if (c === Ch.RightBrace && --depth === 0) return i === name.length - 1;
  }
  return false;
}

function latexProblem(name: string, field: RawField, key: string): SpanProblem {
  return { message: `Field '${name}' of entry '${key}' ${diagnoseLatex(field.value)}`, span: field.span };
}

function diagnoseLatex(value: string): string {
  const dollars = value.replace(/\\\$/g, '').split('$').length - 1;
  if (dollars % 2 === 1) return "has an unclosed '$'";
  const begins = value.split('\\begin').length;
  if (begins !== value.split('\\end').length) return "has a '\\begin' without its '\\end'";
  return 'has LaTeX that could not be turned into text';
}

/** A readable stand-in for a value whose LaTeX citation-js could not read. */
function stripLatex(value: string): string {
  return collapseSpace(value.replace(/\\[a-zA-Z]+\s*|\\.|[{}$]/g, ''));
}

const FORMATTING_TAGS = /<\/?(?:i|b|sup|sub)>|<span (?:class="nocase"|style="font-variant:small-caps;")>|<\/span>/g;

/** citation-js output as plain text: no HTML formatting, and accents composed. */
function cleanText(text: string): string {
  let clean = text.includes('<') ? text.replace(FORMATTING_TAGS, '') : text;
  if (NON_ASCII.test(clean)) {
    // `{\'\i}` gives a dotless i plus an accent, which NFC cannot compose.
    clean = clean.replace(/[\u0131\u0237](?=[\u0300-\u036f])/g, (c) => (c === '\u0131' ? 'i' : 'j')).normalize('NFC');
  }
  return collapseSpace(clean);
}

const NON_ASCII = /[^\x00-\x7f]/;

/**
 * Names and titles are checked one by one, so skipping the common no-op pays, and so does only
 * trimming text whose one untidy space is at an end: the replacement visits every space.
 */
function collapseSpace(text: string): string {
  if (!UNTIDY_SPACE.test(text)) return text;
  return (UNTIDY_INNER_SPACE.test(text) ? text.replace(/\s+/g, ' ') : text).trim();
}

const UNTIDY_SPACE = /^\s|\s$|[^\S ]|  /;
const UNTIDY_INNER_SPACE = /[^\S ]|  /;

// ---------------------------------------------------------------------------------------
// Crossref

/**
 * Applies crossref inheritance, each entry once, parents before children. citation-js
 * recurses without a guard (two entries naming each other overflow the stack) and
 * re-resolves shared parents for every child, so the order and cycle check are ours.
 * Each entry is resolved once and its parent already is, so citation-js only ever merges
 * one level: a chain of any length costs what as many separate entries do, and needs no cap.
 */
function resolveCrossrefs(raws: readonly RawEntry[], properties: readonly Properties[], problems: SpanProblem[]): readonly Properties[] {
  if (!properties.some((p) => p.crossref !== undefined)) return properties;
  const byKey = new Map<string, number>();
  raws.forEach((raw, i) => {
    if (!byKey.has(raw.key)) byKey.set(raw.key, i);
  });
  const parents = properties.map((p) => (typeof p.crossref === 'string' ? (byKey.get(p.crossref) ?? -1) : -1));
  const resolved = new Array<Properties | undefined>(raws.length).fill(undefined);
  const registry: Record<string, CrossrefModule.CrossrefParent<Properties>> = {};
  // Which walk last passed each entry: meeting it again in the same walk is a cycle.
  const walkOf = new Int32Array(raws.length);
  const chain: number[] = [];
  for (let i = 0; i < raws.length; i++) {
    if (resolved[i]) continue;
    chain.length = 0;
    for (let j = i; j >= 0 && !resolved[j] && walkOf[j] !== i + 1; j = parents[j]) {
      chain.push(j);
      walkOf[j] = i + 1;
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const child = chain[k];
      const parent = parents[child];
      const parentProperties = parent < 0 ? undefined : resolved[parent];
      if (parent >= 0 && !parentProperties) problems.push(crossrefCycle(raws[child]));
      const own = properties[child];
      if (own.crossref === undefined) {
        resolved[child] = own;
      } else if (parent < 0 || !parentProperties) {
        resolved[child] = withoutCrossref({ ...own });
      } else {
        // Under one name for every parent, since making each key a property name cost more than
        // the inheritance. `own` is this read's own object, and citation-js returns a new one.
        own.crossref = PARENT;
        registry[PARENT] = { type: raws[parent].type, properties: parentProperties };
        resolved[child] = withoutCrossref(citationJs().crossref.crossref(raws[child].type, own, registry));
      }
    }
  }
  return resolved as Properties[];
}

/** The name citation-js finds the parent under; no key, so nothing on Object's prototype either. */
const PARENT = '\u0000parent';

/** A resolved entry must not send citation-js looking for its parent again. */
function withoutCrossref(properties: Properties): Properties {
  delete properties.crossref;
  return properties;
}

function crossrefCycle(raw: RawEntry): SpanProblem {
  return { message: `Entry '${raw.key}' is part of a crossref cycle; nothing is inherited`, span: raw.keySpan };
}

// ---------------------------------------------------------------------------------------
// Entries

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function toBibEntry(raw: RawEntry, properties: Properties, file: string, positions: ForwardPositions): BibEntry {
  const authors = properties.author;
  // In the order they come in the file, which ForwardPositions walks fastest.
  const start = positions.positionAt(raw.span.start);
  const keyRange = { start: positions.positionAt(raw.keySpan.start), end: positions.positionAt(raw.keySpan.end) };
  const entry: Mutable<BibEntry> = {
    key: raw.key,
    type: raw.type,
    file,
    range: { start, end: positions.positionAt(raw.span.end) },
    keyRange,
    authors: typeof authors === 'object' ? authors.authors : [],
  };
  if (typeof authors === 'object' && authors.truncated) entry.authorsTruncated = true;
  const text = (field: string): string | undefined => {
    const value = properties[field];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  setIfDefined(entry, 'title', joinTitle(text('title'), text('subtitle')));
  setIfDefined(entry, 'year', yearOf(text('year')) ?? yearOf(text('date')));
  setIfDefined(entry, 'venue', venueOf(text('journaltitle') ?? text('journal') ?? text('booktitle')));
  setIfDefined(entry, 'doi', normalizeDoi(text('doi')));
  setIfDefined(entry, 'url', urlOf(text('url'), text('howpublished')));
  setIfDefined(entry, 'arxivId', arxivIdOf(text('eprint'), text('eprinttype') ?? text('archiveprefix'), text('url'), text('doi')));
  setIfDefined(entry, 'pmid', pmidOf(text('pmid'), text('eprint'), text('eprinttype')));
  setIfDefined(entry, 'pmcid', pmcidOf(text('pmcid'), text('eprint'), text('eprinttype')));
  setIfDefined(entry, 'abstract', text('abstract'));
  setIfDefined(entry, 'describedAs', describedAs(text));
  setIfDefined(entry, 'attestIgnore', text('attest-ignore'));
  const pdfs = pdfPathsOf(text('file'));
  if (pdfs.length > 0) entry.pdfs = pdfs;
  return entry;
}

/**
 * Line and column of offsets that mostly come in order, as an entry's start, key and end do: the
 * line is walked to from the last one, not searched for among all of them, which cost a 25,000-entry
 * file more than its crossref inheritance did.
 */
class ForwardPositions {
  private line = 0;
  private lineStart = 0;
  private nextLineStart = 0;
  private readonly length: number;

  constructor(private readonly lines: LineIndex) {
    this.length = lines.offsetAt({ line: lines.lineCount, character: 0 });
    this.nextLineStart = this.startOf(1);
  }

  positionAt(offset: number): Position {
    const clamped = Math.max(0, Math.min(offset, this.length));
    if (clamped < this.lineStart) {
      const position = this.lines.positionAt(clamped);
      this.line = position.line;
      this.lineStart = clamped - position.character;
      this.nextLineStart = this.startOf(this.line + 1);
      return position;
    }
    while (clamped >= this.nextLineStart) {
      this.line++;
      this.lineStart = this.nextLineStart;
      this.nextLineStart = this.startOf(this.line + 1);
    }
    return { line: this.line, character: clamped - this.lineStart };
  }

  private startOf(line: number): number {
    return line < this.lines.lineCount ? this.lines.offsetAt({ line, character: 0 }) : Infinity;
  }
}

function describedAs(text: (field: string) => string | undefined): string | undefined {
  let said = '';
  for (const field of DESCRIBED_BY) {
    const value = text(field);
    if (value !== undefined) said += `${said === '' ? '' : '; '}${field}: ${value}`;
  }
  return said === '' ? undefined : said;
}

const DESCRIBED_BY = [...DESCRIBING_FIELDS, 'urldate'];

function setIfDefined<K extends keyof BibEntry>(entry: Mutable<BibEntry>, key: K, value: BibEntry[K] | undefined): void {
  if (value !== undefined) entry[key] = value;
}

/** biblatex prints title and subtitle as one title, separated by a colon. */
function joinTitle(title: string | undefined, subtitle: string | undefined): string | undefined {
  if (title === undefined) return subtitle;
  return subtitle === undefined ? title : `${title}: ${subtitle}`;
}

/** A year from `year = 2019`, `{2019a}`, `{\noopsort{a}2019}` or biblatex `date = {2019-03-04}`. */
function yearOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const bare = value.replace(/[{}\s]/g, '');
  if (/^\d{1,4}$/.test(bare)) return Number(bare);
  const match = /(?<!\d)\d{4}(?!\d)/.exec(bare);
  return match ? Number(match[0]) : undefined;
}

/**
 * Astronomy bibliographies exported from ADS name journals by AASTeX macros (`\apj`);
 * these are what aas_macros.sty prints for them.
 */
const AAS_JOURNALS: Readonly<Record<string, string>> = {
  aj: 'AJ', actaa: 'Acta Astron.', araa: 'ARA&A', apj: 'ApJ', apjl: 'ApJ', apjs: 'ApJS',
  ao: 'Appl. Opt.', apss: 'Ap&SS', aap: 'A&A', aapr: 'A&A Rv', aaps: 'A&AS', azh: 'AZh',
  baas: 'BAAS', icarus: 'Icarus', jcap: 'J. Cosmology Astropart. Phys.', jrasc: 'JRASC',
  memras: 'MmRAS', mnras: 'MNRAS', na: 'New A', nar: 'New A Rev.', pra: 'Phys. Rev. A',
  prb: 'Phys. Rev. B', prc: 'Phys. Rev. C', prd: 'Phys. Rev. D', pre: 'Phys. Rev. E',
  prl: 'Phys. Rev. Lett.', pasa: 'PASA', pasp: 'PASP', pasj: 'PASJ', qjras: 'QJRAS',
  skytel: 'S&T', solphys: 'Sol. Phys.', sovast: 'Soviet Ast.', ssr: 'Space Sci. Rev.',
  zap: 'ZAp', nat: 'Nature', iaucirc: 'IAU Circ.', aplett: 'Astrophys. Lett.',
  apspr: 'Astrophys. Space Phys. Res.', bain: 'Bull. Astron. Inst. Netherlands',
  fcp: 'Fund. Cosmic Phys.', gca: 'Geochim. Cosmochim. Acta', grl: 'Geophys. Res. Lett.',
  jcp: 'J. Chem. Phys.', jgr: 'J. Geophys. Res.', jqsrt: 'J. Quant. Spec. Radiat. Transf.',
  memsai: 'Mem. Soc. Astron. Italiana', nphysa: 'Nucl. Phys. A', physrep: 'Phys. Rep.',
  physscr: 'Phys. Scr', planss: 'Planet. Space Sci.', procspie: 'Proc. SPIE', psj: 'PSJ',
};

function venueOf(value: string | undefined): string | undefined {
  const macro = value === undefined ? null : /^\\([a-zA-Z]+)$/.exec(value);
  return macro ? (AAS_JOURNALS[macro[1]] ?? value) : value;
}

/** Backslash escapes people write in identifiers, though BibTeX takes these fields verbatim. */
function unescapeVerbatim(value: string): string {
  return value.replace(/\\([_%&#~$])/g, '$1').replace(/[{}]/g, '').trim();
}

function normalizeDoi(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  let doi = unescapeVerbatim(value)
    .replace(/^(?:https?:\/\/)?(?:dx\.|www\.)?doi\.org\//i, '')
    .replace(/^doi:\s*/i, '');
  if (/%[0-9a-f]{2}/i.test(doi)) {
    try {
      doi = decodeURIComponent(doi);
    } catch {
      // A stray '%' that is not an escape: keep the DOI as written.
    }
  }
  return doi === '' ? undefined : doi;
}

function urlOf(url: string | undefined, howpublished: string | undefined): string | undefined {
  if (url !== undefined) return unescapeVerbatim(url.replace(/^\\url\{([^]*)\}$/, '$1')) || undefined;
  return howpublished !== undefined && /^https?:\/\/\S+$/i.test(howpublished) ? howpublished : undefined;
}

/**
 * New-style `2101.00001` and old-style `astro-ph/0601001` identifiers, without version, also as arXiv's
 * listings print them, with the primary category: `1706.03762 [cs.CL]`.
 */
const ARXIV_ID = /^(?:arxiv:)?\s*(\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?\/\d{7})(?:v\d+)?(?:\s*\[[a-z-]+(?:\.[a-z-]+)?\])?$/i;

function arxivIdOf(
  eprint: string | undefined,
  eprintType: string | undefined,
  url: string | undefined,
  doi: string | undefined,
): string | undefined {
  const declared = eprintType !== undefined && /^arxiv$/i.test(unescapeVerbatim(eprintType));
  if (eprint !== undefined && (declared || eprintType === undefined)) {
    const id = unescapeVerbatim(eprint);
    const match = ARXIV_ID.exec(id);
    if (match) return match[1];
    if (declared && id !== '') return id.replace(/^arxiv:\s*/i, '');
  }
  const fromUrl = url === undefined ? null : /arxiv\.org\/(?:abs|pdf)\/([^?#\s]+?)(?:\.pdf)?\/?(?:[?#]|$)/i.exec(url);
  const fromDoi = doi === undefined ? null : /10\.48550\/arxiv\.(\S+)$/i.exec(doi);
  const candidate = fromUrl?.[1] ?? fromDoi?.[1];
  return candidate === undefined ? undefined : ARXIV_ID.exec(candidate)?.[1];
}

/** A PubMed id: JabRef's and Better BibTeX's `pmid` field, or biblatex's `eprinttype = {pubmed}`. */
function pmidOf(pmid: string | undefined, eprint: string | undefined, eprintType: string | undefined): string | undefined {
  const written = pmid ?? (eprintType !== undefined && /^pubmed$/i.test(unescapeVerbatim(eprintType)) ? eprint : undefined);
  const match = written === undefined ? null : /^\s*(?:pmid:?\s*)?(\d{1,9})\s*$/i.exec(unescapeVerbatim(written));
  return match?.[1];
}

/** A PubMed Central id as `PMC` and digits: Better BibTeX's `pmcid` field, or biblatex's `eprinttype = {pmcid}`. */
function pmcidOf(pmcid: string | undefined, eprint: string | undefined, eprintType: string | undefined): string | undefined {
  const written = pmcid ?? (eprintType !== undefined && /^pmcid$/i.test(unescapeVerbatim(eprintType)) ? eprint : undefined);
  const match = written === undefined ? null : /^\s*(?:PMC)?(\d{1,9})\s*$/i.exec(unescapeVerbatim(written));
  return match ? `PMC${match[1]}` : undefined;
}

// ---------------------------------------------------------------------------------------

/** Past this many, a file is not a bibliography with typos but something else entirely. */
const MAX_PROBLEMS = 5000;

/** `unshown` problems were only counted; each lies after more than MAX_PROBLEMS of `problems`. */
function toBibProblems(problems: readonly SpanProblem[], unshown: number, lines: LineIndex): BibProblem[] {
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

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
