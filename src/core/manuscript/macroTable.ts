import type { MacroLookup } from './math';

/**
 * The argument-free macros a LaTeX file knows, and the bound on what they may print. Each definition is
 * stored as the text it prints, so `\newcommand{\b}{\a\a}` repeated thirty times would print 2^30
 * copies: one macro may print at most `MAX_MACRO_TEXT` characters, and all the macros of one parse
 * together (definitions and uses) `MACRO_TEXT_ALLOWANCE` plus `MACRO_TEXT_PER_CHAR` per character of
 * the file. A macro past either bound is left unexpanded, printing nothing as an unknown command does,
 * and the problem is kept for a `macro-not-expanded` finding.
 */

/** Longer than any word, name or sentence a macro stands for in prose. */
export const MAX_MACRO_TEXT = 10_000;
const MACRO_TEXT_ALLOWANCE = 100_000;
// Macros print words and names, a small part of a paper's text: past this the file is built to blow up, and printing it would cost more than the parse.
const MACRO_TEXT_PER_CHAR = 0.5;

/** A macro left unexpanded, located at its definition in the file, or its first use when another file defines it. */
export interface UnexpandedMacro {
  readonly name: string;
  /** Why, as the rest of a sentence starting with the macro's name. */
  readonly reason: string;
  readonly start: number;
  readonly end: number;
}

export class MacroTable {
  private readonly expansions: Map<string, string>;
  /** Those this file defines, with what they print. */
  readonly defined = new Map<string, string>();
  private readonly definedAt = new Map<string, { start: number; end: number }>();
  /** Names defined here but left unexpanded: they are known, not commands another file may define. */
  private readonly refused = new Set<string>();
  private readonly problems = new Map<string, UnexpandedMacro>();
  private readonly textAllowed: number;
  private textLeft: number;

  constructor(inherited: ReadonlyMap<string, string>, fileLength: number) {
    this.expansions = new Map(inherited);
    this.textAllowed = MACRO_TEXT_ALLOWANCE + Math.floor(MACRO_TEXT_PER_CHAR * fileLength);
    this.textLeft = this.textAllowed;
  }

  /** Whether `name` is a macro of the manuscript, printed or not. */
  knows(name: string): boolean {
    return this.expansions.has(name) || this.refused.has(name);
  }

  /** The text `name` prints where it is used at `start`–`end`; undefined when unknown or past the bound. */
  expand(name: string, start: number, end: number): string | undefined {
    const expansion = this.expansions.get(name);
    if (expansion === undefined || this.charge(name, expansion.length, start, end)) return expansion;
    return undefined;
  }

  /** The lookup for math at `start`–`end` of the file. */
  lookupAt(start: number, end: number): MacroLookup {
    return { get: (name) => this.expand(name, start, end) };
  }

  /**
   * Defines `name`, written at `start`–`end`, as what `render` prints with the macros known so far.
   * The lookup `render` is given stops expanding once the body has printed more than one macro may,
   * so a body of a thousand uses of a long macro costs no more than the bound.
   */
  define(name: string, start: number, end: number, render: (lookup: MacroLookup) => string): void {
    let printed = 0;
    const lookup: MacroLookup = {
      get: (used) => {
        if (printed > MAX_MACRO_TEXT) return undefined;
        const expansion = this.expand(used, start, end);
        printed += expansion?.length ?? 0;
        return printed > MAX_MACRO_TEXT ? undefined : expansion;
      },
    };
    const expansion = render(lookup).replace(/\s+/g, ' ').trim();
    if (printed > MAX_MACRO_TEXT || expansion.length > MAX_MACRO_TEXT) {
      this.expansions.delete(name);
      this.defined.delete(name);
      this.refused.add(name);
      this.note({ name, reason: `would print more than ${MAX_MACRO_TEXT.toLocaleString('en')} characters`, start, end });
      return;
    }
    this.refused.delete(name);
    this.expansions.set(name, expansion);
    this.defined.set(name, expansion);
    this.definedAt.set(name, { start, end });
  }

  /** The macros left unexpanded, each once, in the order found. */
  unexpanded(): UnexpandedMacro[] {
    return [...this.problems.values()];
  }

  /** Takes `length` characters from what the parse may still print; false, and the problem noted, when too few are left. */
  private charge(name: string, length: number, start: number, end: number): boolean {
    if (length <= this.textLeft) {
      this.textLeft -= length;
      return true;
    }
    // Once per macro: a file may use it a hundred thousand times past the bound.
    if (this.problems.has(name)) return false;
    const at = this.definedAt.get(name) ?? { start, end };
    this.note({ name, reason: `is not expanded in every use: the macros of this file would print more than ${this.textAllowed.toLocaleString('en')} characters in all`, ...at });
    return false;
  }

  private note(problem: UnexpandedMacro): void {
    if (!this.problems.has(problem.name)) this.problems.set(problem.name, problem);
  }
}
