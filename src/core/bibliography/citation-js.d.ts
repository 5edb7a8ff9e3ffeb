// citation-js ships no type declarations, and we reach past its plugin API into the
// modules that do the actual work, so these describe only what parse.ts relies on.

declare module '@citation-js/plugin-bibtex/lib/input/value.js' {
  /** A name as split by citation-js's BibTeX name grammar (biblatex-style keys). */
  export interface ParsedName {
    family?: string;
    given?: string;
    prefix?: string;
    suffix?: string;
    [label: string]: string | undefined;
  }

  /**
   * Turns one field's raw BibTeX text into Unicode. Name fields give a list of names,
   * `list`/`separated` fields a list of strings, everything else a string.
   * Throws SyntaxError on LaTeX it cannot read, e.g. an unclosed `$`.
   */
  export function parse(text: string, field: string, languages?: string | string[]): unknown;
}

declare module '@citation-js/plugin-bibtex/lib/input/constants.js' {
  /** Macros every BibTeX file starts with: month abbreviations and a few journals. */
  export const defaultStrings: Readonly<Record<string, string>>;
  /** Argument-less LaTeX commands and their Unicode text; shared, mutable module state. */
  export const commands: Record<string, string>;
  /** Math-mode commands (Greek letters) and their Unicode text. */
  export const mathCommands: Readonly<Record<string, string>>;
  /** Accent commands (`'`, `"`, `c`, …) and the combining character each puts on the next letter. */
  export const diacritics: Readonly<Record<string, string>>;
  /** Commands taking arguments (`url`, `href`, `ElsevierGlyph`) and what they make of them. */
  export const argumentCommands: Readonly<Record<string, (...args: string[]) => string>>;
  /** Switches (`\em`, `\bf`) and the format each applies to the rest of its group. */
  export const formattingEnvs: Readonly<Record<string, string | undefined>>;
  /** Commands (`\emph{…}`, `\textbf{…}`) and the format each applies to its argument. */
  export const formattingCommands: Readonly<Record<string, string | undefined>>;
  /** Each format's opening and closing markup, e.g. `['<i>', '</i>']`. */
  export const formatting: Readonly<Record<string, readonly [string, string]>>;
  /** `--`, `---`, ``` `` ```, `''` and `~` in text, and what each becomes. */
  export const ligaturePattern: RegExp;
  export const ligatures: Readonly<Record<string, string>>;
  /** Characters with a Unicode sub- or superscript, by `_` and `^`. */
  export const mathScripts: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Math commands (`^`, `_`, `\sp`, `\sb`, `\mathrm`) and the format each applies to its argument. */
  export const mathScriptFormatting: Readonly<Record<string, string | undefined>>;
  /** Each field's type: `['field' | 'list' | 'separated' | …, 'literal' | 'title' | 'name' | …]`. */
  export const fieldTypes: Readonly<Record<string, readonly [string, string] | undefined>>;
}

declare module '@citation-js/plugin-bibtex/lib/mapping/crossref.js' {
  export interface CrossrefParent<P> {
    type: string;
    properties: P;
  }

  /** Fields of `entry` merged over what it inherits through its `crossref` field. */
  export function crossref<P extends { crossref?: unknown }>(type: string, entry: P, registry: Record<string, CrossrefParent<P>>): P;
}

// The whole-file reader and the CSL conversion are not used by parse.ts; the tests compare
// its results with theirs.

declare module '@citation-js/plugin-bibtex/lib/input/file.js' {
  export interface RawBibtexEntry {
    type: string;
    label: string;
    properties: Record<string, string | number>;
  }

  /** Reads a whole .bib text; throws on the first syntax error. */
  export function parse(text: string): RawBibtexEntry[];
}

declare module '@citation-js/plugin-bibtex/lib/input/entries.js' {
  import type { RawBibtexEntry } from '@citation-js/plugin-bibtex/lib/input/file.js';

  /** The parts of a CSL-JSON item that tests compare against. */
  export interface CslItem {
    id: string;
    title?: string;
    issued?: { 'date-parts'?: number[][]; literal?: string };
  }

  /** biblatex entries to CSL-JSON: LaTeX to Unicode, names split, crossref applied. */
  export function parse(entries: RawBibtexEntry[]): CslItem[];
}
