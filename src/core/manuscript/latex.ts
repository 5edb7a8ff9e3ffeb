import * as path from 'node:path';
import { withLoneCrAsLf } from '../text/lineBreaks';
import { LineIndex } from '../text/positions';
import { REFERENCE_PLACEHOLDER } from './crossReference';
import { DelimiterIndex } from './delimiters';
import { MacroTable } from './macroTable';
import { renderMath } from './math';
import { PlainTextBuilder } from './plainText';
import { isSpaceCode } from './characters';
import { packSource, ScannedCitations, unpackSource, type PackedSource } from './packed';
import type { FileReference, ParsedSource } from './types';
import {
  ACCENTS,
  BIBLIOGRAPHY_COMMANDS,
  CITE_COMMANDS,
  DEFINITION_COMMANDS,
  ENVIRONMENT_ARGUMENTS,
  INCLUDE_COMMANDS,
  MATH_ENVIRONMENTS,
  NON_PROSE_ARGUMENTS,
  REFERENCE_COMMANDS,
  SEPARATE_CONTEXT,
  SYMBOL_COMMANDS,
  TEXTUAL_CITE_COMMANDS,
  VERBATIM_ENVIRONMENTS,
} from './latexVocabulary';

/**
 * How far inline math may reach. Real formulas are far shorter; the limit keeps stray `$` signs from
 * making parsing quadratic.
 */
const MAX_MATH_LENGTH = 20_000;
const COMMA = 0x2c;
const PERCENT = 0x25;

/** Its value is the rest of the line, trimmed: no pattern backtracks over a long line's spaces. */
const MAGIC_ROOT = /^%\s*!\s*T[eE]X\s+root\s*=/;

/**
 * Parses one LaTeX source file: citations with exact ranges, the sentences they stand in, file references.
 * `\input` and `\bibliography` names resolve in the folder LaTeX runs in, the root file's, which one
 * file cannot know: they resolve here as if the file were the root, and keep the name relative to the
 * root (`FileReference.fromRoot`) for `project.ts` to resolve in the manuscript's root. So a file's
 * parse is the same whichever manuscript reads it.
 */
export function parseLatex(text: string, file: string, macros: ReadonlyMap<string, string> = new Map()): ParsedSource {
  return unpackSource(packLatex(text, file, macros));
}

/**
 * `parseLatex`, packed to be sent to another thread. `macros` are argument-free macros defined in
 * other files of the manuscript (a preamble's `macros.tex`), which print here as they do in LaTeX.
 */
export function packLatex(text: string, file: string, macros: ReadonlyMap<string, string> = new Map()): PackedSource {
  return new LatexScanner(withLoneCrAsLf(text), file, macros).scan();
}

class LatexScanner {
  private readonly out: PlainTextBuilder;
  private readonly lines: LineIndex;
  private readonly delimiters: DelimiterIndex;
  private readonly fileDir: string;
  private readonly citations = new ScannedCitations();
  private readonly includes: FileReference[] = [];
  private readonly bibliographies: FileReference[] = [];
  private readonly bibitems: string[] = [];
  /** The argument-free macros (`\newcommand{\tool}{dynoNet}`) known here, by name, as the text they print. */
  private readonly macros: MacroTable;
  private readonly undefinedCommands = new Set<string>();
  private readonly noteUndefined = (name: string): void => {
    if (!this.macros.knows(name)) this.undefinedCommands.add(name);
  };
  /** For each open `{`, whether closing it ends a sentence context. */
  private readonly groups: boolean[] = [];
  private citesAll = false;
  private texRoot?: string;
  private i = 0;

  constructor(
    private readonly text: string,
    private readonly file: string,
    macros: ReadonlyMap<string, string>,
  ) {
    this.macros = new MacroTable(macros, text.length);
    this.out = new PlainTextBuilder(text.length);
    this.lines = new LineIndex(text);
    this.delimiters = new DelimiterIndex(text, { latexComments: true });
    this.fileDir = path.dirname(file);
  }

  scan(): PackedSource {
    const { text } = this;
    while (this.i < text.length) {
      const unit = text.charCodeAt(this.i);
      switch (unit) {
        case 0x5c: // \\
          this.command();
          break;
        case 0x25: // %
          this.comment();
          break;
        case 0x24: // $
          this.inlineMath();
          break;
        case 0x7b: // {
          this.groups.push(false);
          this.i++;
          break;
        case 0x7d: // }
          if (this.groups.pop()) this.out.breakSentence();
          this.i++;
          break;
        case 0x0a: // line feed
          this.newline();
          break;
        case 0x7e: // ~
        case 0x26: // &
          this.out.appendSpace(this.i++);
          break;
        case 0x2d: // -
          this.dash();
          break;
        default:
          this.out.appendUnit(unit, this.i++);
      }
    }
    return this.result();
  }

  private result(): PackedSource {
    const facts = {
      file: this.file,
      language: 'latex' as const,
      includes: this.includes,
      bibliographies: this.bibliographies,
      bibitems: this.bibitems,
      citesAll: this.citesAll,
      texRoot: this.texRoot,
      macros: this.macros.defined,
      undefinedCommands: [...this.undefinedCommands],
      ...this.macroProblems(),
    };
    return packSource(facts, this.out.build(), this.citations, this.lines);
  }

  private macroProblems(): Pick<ParsedSource, 'macroProblems'> {
    const unexpanded = this.macros.unexpanded();
    if (unexpanded.length === 0) return {};
    return { macroProblems: unexpanded.map(({ name, reason, start, end }) => ({ name, reason, range: this.lines.rangeOf(start, end) })) };
  }

  /** TeX's ligatures: `--` prints an en dash, `---` an em dash, as the reader sees them. */
  private dash(): void {
    const { text } = this;
    const length = text.startsWith('---', this.i) ? 3 : text.startsWith('--', this.i) ? 2 : 1;
    this.out.appendReplacement(['-', '–', '—'][length - 1], this.i);
    this.i += length;
  }

  private newline(): void {
    const start = this.i;
    this.i++;
    if (this.atBlankLine()) this.out.breakSentence();
    else this.out.appendSpace(start);
  }

  /** At the start of a line: whether the line is empty, i.e. TeX ends a paragraph here. Consumes it if so. */
  private atBlankLine(): boolean {
    let j = this.i;
    while (j < this.text.length && (this.text[j] === ' ' || this.text[j] === '\t' || this.text[j] === '\r')) j++;
    if (j < this.text.length && this.text[j] !== '\n') return false;
    this.i = j;
    return true;
  }

  private comment(): void {
    const lineEnd = this.indexOfOr('\n', this.i);
    const line = this.text.slice(this.i, lineEnd);
    const magic = MAGIC_ROOT.exec(line);
    const root = magic && line.slice(magic[0].length).trim();
    if (root && this.texRoot === undefined) this.texRoot = path.resolve(this.fileDir, root);
    // TeX drops the comment, its line break and the next line's indentation; an empty next line still ends the paragraph.
    this.i = Math.min(lineEnd + 1, this.text.length);
    while (this.i < this.text.length && (this.text[this.i] === ' ' || this.text[this.i] === '\t')) this.i++;
    if (this.text[this.i] === '\n' && this.atBlankLine()) this.out.breakSentence();
  }

  private inlineMath(): void {
    const { text } = this;
    const display = text[this.i + 1] === '$';
    const open = display ? 2 : 1;
    const close = this.findMathEnd(this.i + open, display ? '$$' : '$');
    if (close < 0) {
      // An unmatched `$` is most likely being typed: treat it as a character, not as math to the end of file.
      this.out.appendChar('$', this.i++);
      return;
    }
    if (!display) this.appendMathText(this.i + 1, close);
    this.i = close + open;
  }

  /** The closing delimiter of math, not crossing a paragraph break; -1 when there is none. */
  private findMathEnd(from: number, delimiter: string): number {
    const { text } = this;
    const limit = Math.min(text.length, from + MAX_MATH_LENGTH);
    for (let j = from; j < limit; j++) {
      const c = text[j];
      if (c === '\\') {
        j++;
      } else if (text.startsWith(delimiter, j)) {
        return j;
      } else if (c === '\n' && /^\n[ \t\r]*\n/.test(text.slice(j, j + 64))) {
        return -1;
      }
    }
    return -1;
  }

  /** Inline math as a reader reads it, so a claim like "scales as $\\mathcal{O}(N^3)$" keeps its formula. */
  private appendMathText(from: number, to: number): void {
    for (const piece of renderMath(this.text, from, to, this.macros.lookupAt(from, to), this.noteUndefined)) this.out.appendReplacement(piece.text, piece.offset);
  }

  private command(): void {
    const { text } = this;
    const start = this.i;
    const next = text[start + 1];
    if (next === undefined) {
      this.i++;
      return;
    }
    if (!isLetterOrAt(text.charCodeAt(start + 1))) {
      this.controlSymbol(start, next);
      return;
    }
    let end = start + 2;
    while (isLetterOrAt(text.charCodeAt(end))) end++;
    if (text[end] === '*') end++;
    const name = text.slice(start + 1, end);
    this.i = end;
    this.dispatch(name, start);
  }

  private controlSymbol(start: number, symbol: string): void {
    this.i = start + 2;
    if (ACCENTS[symbol] !== undefined) {
      this.accent(start, symbol);
    } else if (symbol === '\\') {
      if (this.text[this.i] === '*') this.i++;
      this.skipOptionalArgument();
      this.out.appendSpace(start);
    } else if (symbol === '(' || symbol === '[') {
      this.skipDelimitedMath(start, symbol === '(' ? '\\)' : '\\]', symbol === '(');
    } else if (' ,;:!\n\t'.includes(symbol)) {
      this.out.appendSpace(start);
    } else if (symbol === '/' || symbol === '-') {
      // Italic correction and discretionary hyphen print nothing.
    } else {
      this.out.appendChar(symbol, start + 1);
    }
  }

  private skipDelimitedMath(start: number, closer: string, inline: boolean): void {
    const close = this.text.indexOf(closer, this.i);
    if (close < 0) {
      this.i = this.text.length;
      return;
    }
    if (inline) this.appendMathText(start + 2, close);
    this.i = close + 2;
  }

  private accent(start: number, symbol: string): void {
    const { text } = this;
    let base: string | undefined;
    while (text[this.i] === ' ') this.i++;
    if (text[this.i] === '{') {
      const close = this.matchingBrace(this.i);
      if (close > this.i) {
        base = text.slice(this.i + 1, close).replace(/^\\([ij])$/, '$1');
        this.i = close + 1;
      }
    } else if (this.i < text.length) {
      base = text[this.i];
      if (base === '\\' && /[ij]/.test(text[this.i + 1] ?? '')) {
        base = text[this.i + 1];
        this.i++;
      }
      this.i++;
    }
    // A mark alone is already composed: only a base gives NFC something to compose it with.
    this.out.appendReplacement(base === undefined ? ACCENTS[symbol] : (base + ACCENTS[symbol]).normalize('NFC'), start);
  }

  private dispatch(name: string, start: number): void {
    const bare = name.endsWith('*') ? name.slice(0, -1) : name;
    // Capitals sort before small letters: only a command that starts with one needs lowering.
    const citeName = bare.charCodeAt(0) < 0x61 ? bare[0].toLowerCase() + bare.slice(1) : bare;
    if (CITE_COMMANDS.has(citeName)) return this.citation(name, citeName);
    if (name.length === 1 && ACCENTS[name] !== undefined) return this.accent(start, name);
    if (name === 'documentclass') this.out.muted = true;
    if (name === 'bibitem') return this.bibitem();
    if (name === 'item') {
      this.out.breakSentence();
      this.skipOptionalArgument();
      return;
    }
    if (name === 'begin') return this.beginEnvironment();
    if (name === 'end') return this.endEnvironment();
    if (name === 'iffalse') return this.skipIfFalse();
    if (INCLUDE_COMMANDS.has(name)) return this.include(name);
    if (BIBLIOGRAPHY_COMMANDS.has(name)) return this.bibliography(name);
    if (SEPARATE_CONTEXT.has(bare)) return this.separateContext();
    if (DEFINITION_COMMANDS.has(bare)) return this.defineMacro(bare);
    if (SYMBOL_COMMANDS[name] !== undefined) {
      this.out.appendReplacement(SYMBOL_COMMANDS[name], start);
      this.skipSpacesAfterControlWord();
      return;
    }
    if (REFERENCE_COMMANDS.has(bare)) {
      this.skipOptionalArguments();
      this.readBracedArgument();
      this.out.appendReplacement(REFERENCE_PLACEHOLDER, start);
      return;
    }
    const dropped = NON_PROSE_ARGUMENTS[name];
    if (dropped !== undefined) {
      for (let n = 0; n < dropped; n++) {
        this.skipOptionalArguments();
        this.readBracedArgument();
      }
      this.skipOptionalArguments();
      return;
    }
    const expansion = this.macros.expand(name, start, this.i);
    if (expansion !== undefined) {
      // TeX would eat the space after it, but a macro for a word is written with \xspace or `\ ` for that space.
      this.out.appendReplacement(expansion, start);
      return;
    }
    // Any other command prints nothing of its own; its braced arguments are read as prose by the main loop.
    this.noteUndefined(name);
    this.skipSpacesAfterControlWord();
  }

  /**
   * `\newcommand{\name}{body}`, `\def\name{body}`, `\DeclareMathOperator{\name}{body}`: a macro without
   * arguments is remembered with the text it prints. One with arguments is skipped; its uses print their arguments.
   */
  private defineMacro(command: string): void {
    const { text } = this;
    const named = /^\s*(?:\{\s*\\([a-zA-Z@]+)\s*\}|\\([a-zA-Z@]+))/.exec(text.slice(this.i, this.i + 200));
    if (!named) return;
    const nameStart = this.i + named[0].lastIndexOf('\\');
    this.i += named[0].length;
    const name = named[1] ?? named[2];
    // `\def\name#1{…}` takes parameters; the main loop reads on as before.
    if (command === 'def' && text[this.i] !== '{') return;
    if (this.nextNonSpace() === '[') {
      this.skipOptionalArguments();
      this.readBracedArgument();
      return;
    }
    const body = this.readBracedArgument();
    if (!body) return;
    this.macros.define(name, nameStart, nameStart + 1 + name.length, (lookup) =>
      renderMath(text, body.start, body.end, lookup, this.noteUndefined)
        .map((p) => p.text)
        .join(''),
    );
  }

  /** TeX ignores spaces after a control word; a line break there still counts as a space between words. */
  private skipSpacesAfterControlWord(): void {
    while (this.text[this.i] === ' ' || this.text[this.i] === '\t') this.i++;
  }

  private citation(command: string, citeName: string): void {
    const textual = TEXTUAL_CITE_COMMANDS.has(citeName) || this.citesAsNoun(this.i - command.length - 1, citeName);
    // A textual citation is part of its sentence: it attaches where its placeholder starts.
    const anchor = citeName === 'nocite' ? undefined : textual ? this.out.length : this.out.anchor();
    const multi = citeName.endsWith('cites') || citeName === 'footcitetexts';
    const save = this.i;
    if (multi) {
      this.skipParenthesisedArguments();
    }
    const first = this.citations.length;
    let found = false;
    do {
      this.skipOptionalArguments(2);
      const keys = this.readBracedArgument();
      if (keys === undefined) break;
      found = true;
      this.addKeys(`\\${command}`, keys.start, keys.end, anchor);
    } while (multi && (this.nextNonSpace() === '{' || this.nextNonSpace() === '['));
    if (!found) {
      // `\cite` without its braces yet (being typed): nothing to report, read on from after the name.
      this.i = save;
    } else if (textual) {
      const keys = this.citations.keysFrom(first);
      if (keys.length > 0) this.out.appendReplacement(`[${keys.join('; ')}]`, save - command.length - 1);
    }
  }

  /**
   * A numeric `\cite` standing for a work in the sentence ("the model from \cite{x} to observed data"):
   * after a preposition and before a word that goes on, the claim keeps a placeholder, as for `\citet`.
   */
  private citesAsNoun(start: number, citeName: string): boolean {
    if (citeName !== 'cite') return false;
    const before = /\b(?:from|in|of|by|see|to|with|than|and|use|uses|used|following)[\s~]*$/i.test(this.text.slice(Math.max(0, start - 20), start));
    if (!before) return false;
    // The key list and what follows it, within a bound that keeps a run of unclosed `\cite{` linear.
    return /^[^}]*\}[\s~]+[a-z]/.test(this.text.slice(this.i, this.i + 500));
  }

  private addKeys(command: string, start: number, end: number, anchor: number | undefined): void {
    const { text } = this;
    let j = start;
    while (j < end) {
      for (let c = text.charCodeAt(j); j < end && (c === COMMA || c === PERCENT || isSpaceCode(c)); c = text.charCodeAt(j)) {
        // A comment annotating a long key list runs to the end of its line and is no key.
        if (c === PERCENT) j = Math.min(this.indexOfOr('\n', j), end);
        else j++;
      }
      const keyStart = j;
      for (let c = text.charCodeAt(j); j < end && c !== COMMA && c !== PERCENT; c = text.charCodeAt(++j));
      let keyEnd = j;
      while (keyEnd > keyStart && isSpaceCode(text.charCodeAt(keyEnd - 1))) keyEnd--;
      if (keyEnd > keyStart) {
        const key = text.slice(keyStart, keyEnd);
        if (key === '*' && command.toLowerCase().startsWith('\\nocite')) this.citesAll = true;
        else this.citations.push(key, command, keyStart, keyEnd, anchor);
      }
    }
  }

  private nextNonSpace(): string | undefined {
    return this.text[this.spacesSkipped(this.i)];
  }

  /** The first offset from `from` on that holds no space. */
  private spacesSkipped(from: number): number {
    let j = from;
    while (j < this.text.length && isSpaceCode(this.text.charCodeAt(j))) j++;
    return j;
  }

  /** Reads `{…}` after optional spaces; returns the inner span and moves past it. Undefined if absent or unclosed. */
  private readBracedArgument(): { start: number; end: number } | undefined {
    const { text } = this;
    const j = this.spacesSkipped(this.i);
    if (text[j] !== '{') return undefined;
    const close = this.matchingBrace(j);
    if (close < 0) return undefined;
    this.i = close + 1;
    return { start: j + 1, end: close };
  }

  /** The index of the `}` closing the `{` at `open`, or -1 when it is not closed before a paragraph break. */
  private matchingBrace(open: number): number {
    return this.delimiters.closeOf(open);
  }

  private skipOptionalArguments(max = Infinity): void {
    for (let n = 0; n < max && this.skipOptionalArgument(); n++);
  }

  /** Skips one `[…]` (after optional spaces and one line break); false when there is none. */
  private skipOptionalArgument(): boolean {
    return this.skipBalanced('[');
  }

  private skipParenthesisedArguments(): void {
    while (this.skipBalanced('('));
  }

  private skipBalanced(open: string): boolean {
    const j = this.spacesSkipped(this.i);
    if (this.text[j] !== open) return false;
    const close = this.delimiters.closeOf(j);
    if (close < 0) return false;
    this.i = close + 1;
    return true;
  }

  private beginEnvironment(): void {
    const arg = this.readBracedArgument();
    if (!arg) return;
    const env = this.text.slice(arg.start, arg.end).trim();
    if (env === 'document') this.out.muted = false;
    if (VERBATIM_ENVIRONMENTS.has(env) || MATH_ENVIRONMENTS.has(env)) {
      this.skipEnvironmentBody(env);
      return;
    }
    this.out.breakSentence();
    this.skipOptionalArguments();
    for (let n = 0; n < (ENVIRONMENT_ARGUMENTS[env] ?? 0); n++) {
      this.readBracedArgument();
      this.skipOptionalArguments();
    }
  }

  private skipEnvironmentBody(env: string): void {
    const end = this.text.indexOf(`\\end{${env}}`, this.i);
    this.i = end < 0 ? this.text.length : end + `\\end{${env}}`.length;
  }

  private endEnvironment(): void {
    this.readBracedArgument();
    this.out.breakSentence();
  }

  /** `\iffalse … \fi` is the LaTeX way of commenting out a block. */
  private skipIfFalse(): void {
    const fi = /\\fi(?![a-zA-Z])/g;
    fi.lastIndex = this.i;
    const match = fi.exec(this.text);
    this.i = match ? match.index + 3 : this.text.length;
  }

  private include(command: string): void {
    const dirArg = command === 'import' || command === 'subimport' ? this.readBracedArgument() : undefined;
    const arg = this.readBracedArgument();
    if (!arg) return;
    const name = this.text.slice(arg.start, arg.end).trim();
    if (name.length === 0) return;
    const dir = dirArg ? this.text.slice(dirArg.start, dirArg.end).trim() : '';
    const relative = withDefaultExtension(path.isAbsolute(name) ? name : path.join(dir, name), '.tex');
    this.includes.push({
      name: path.join(dir, name),
      path: path.resolve(this.fileDir, relative),
      range: this.lines.rangeOf(arg.start, arg.end),
      // `\subfile` and `\subimport` are relative to the including file; the others to where LaTeX runs.
      ...(command !== 'subfile' && command !== 'subimport' && { fromRoot: relative }),
    });
    this.out.breakSentence();
  }

  private bibliography(command: string): void {
    this.skipOptionalArguments();
    const arg = this.readBracedArgument();
    if (!arg) return;
    const names = command === 'bibliography' ? this.text.slice(arg.start, arg.end).split(',') : [this.text.slice(arg.start, arg.end)];
    let offset = arg.start;
    for (const raw of names) {
      const name = raw.trim();
      const at = offset + raw.indexOf(name);
      offset += raw.length + 1;
      if (name.length === 0) continue;
      const relative = command === 'bibliography' ? withDefaultExtension(name, '.bib') : name;
      this.bibliographies.push({ name, path: path.resolve(this.fileDir, relative), range: this.lines.rangeOf(at, at + name.length), fromRoot: relative });
    }
  }

  private bibitem(): void {
    this.out.breakSentence();
    this.skipOptionalArgument();
    const arg = this.readBracedArgument();
    if (arg) this.bibitems.push(this.text.slice(arg.start, arg.end).trim());
  }

  /** A heading, caption or footnote: its text forms sentences of its own, apart from the surrounding ones. */
  private separateContext(): void {
    this.out.breakSentence();
    this.skipOptionalArguments();
    const j = this.spacesSkipped(this.i);
    if (this.text[j] === '{') {
      this.i = j + 1;
      this.groups.push(true);
    }
  }

  private indexOfOr(search: string, from: number): number {
    const at = this.text.indexOf(search, from);
    return at < 0 ? this.text.length : at;
  }
}

/** A letter of a control word's name: ASCII letters and `@`. NaN, past the end, is none. */
function isLetterOrAt(unit: number): boolean {
  return (unit >= 0x61 && unit <= 0x7a) || (unit >= 0x40 && unit <= 0x5a);
}

function withDefaultExtension(file: string, extension: string): string {
  return path.extname(file) === '' ? file + extension : file;
}
