import type { TextEdit } from '../bibliography/edit';
import type { ParsedSource } from './types';

/** How a manuscript writes a citation that follows a claim. */
export type CitationStyle =
  /** `command` without its backslash: `citep`, `parencite`, `cite`, … */
  { readonly kind: 'latex'; readonly command: string } | { readonly kind: 'pandoc' };

/**
 * Commands that put their references beside the claim (in parentheses, brackets, a footnote or a
 * superscript), in the order preferred on a tie. Textual ones (`\citet`) make the author part of
 * the sentence, which a citation added after a selection cannot be.
 */
const PARENTHETICAL = ['citep', 'parencite', 'autocite', 'cite', 'footcite', 'smartcite', 'supercite'];

/** Commands only natbib defines: a document using them has natbib loaded, so `\citep` works. */
const NATBIB_ONLY = new Set(['citet', 'citealt', 'citealp', 'citenum', 'citeyearpar']);

/** Commands only biblatex defines. */
const BIBLATEX_ONLY = new Set(['textcite', 'fullcite', 'footfullcite', 'citetitle', 'citeurl', 'citedate', 'footcitetext']);

/** Footnote and superscript marks attach to the word; anything else keeps its distance with a tie. */
const ATTACHED = new Set(['footcite', 'supercite']);

/**
 * The style the manuscript itself uses most: for LaTeX, its most frequent parenthetical command;
 * without one, `\citep` under natbib, `\parencite` under biblatex, else `\cite`. Markdown is pandoc's.
 * Pass one file, or the citations of all the manuscript's files when the current one has none yet.
 */
export function citationStyleOf(source: Pick<ParsedSource, 'language' | 'citations'>): CitationStyle {
  if (source.language === 'markdown') return { kind: 'pandoc' };
  const counts = new Map<string, number>();
  let natbib = false;
  let biblatex = false;
  for (const citation of source.citations) {
    const name = commandName(citation.command);
    if (PARENTHETICAL.includes(name)) counts.set(name, (counts.get(name) ?? 0) + 1);
    natbib ||= NATBIB_ONLY.has(name);
    biblatex ||= BIBLATEX_ONLY.has(name);
  }
  let best: string | undefined;
  for (const name of PARENTHETICAL) {
    if ((counts.get(name) ?? 0) > (best === undefined ? 0 : (counts.get(best) ?? 0))) best = name;
  }
  return { kind: 'latex', command: best ?? (natbib ? 'citep' : biblatex ? 'parencite' : 'cite') };
}

/** `\Citep*` → `citep`; biblatex's multi-citations count as their single form (`\parencites` → `parencite`). */
function commandName(command: string): string {
  const bare = command.replace(/^\\/, '').replace(/\*$/, '');
  const lower = bare.charAt(0).toLowerCase() + bare.slice(1);
  return lower.endsWith('cites') ? lower.slice(0, -1) : lower;
}

/**
 * The edit that cites `keys` after a selection ending at `offset`. The citation goes before the
 * sentence's closing punctuation whether or not the selection took it in ("claim~\citep{k}." either
 * way), and joins a citation that touches that point (`\citep{a}` → `\citep{a,k}`, `[@a]` →
 * `[@a; @k]`) instead of standing beside it. Keys already there are not added again, so the edit may
 * insert nothing.
 */
export function insertCitation(text: string, offset: number, keys: readonly string[], style: CitationStyle): TextEdit {
  const at = insertionPoint(text, offset);
  const group = style.kind === 'latex' ? latexGroupAround(text, at) : pandocGroupAround(text, at);
  if (group) {
    const added = unique(keys).filter((k) => !group.keys.includes(k));
    const separator = style.kind === 'latex' ? (/,\s/.test(group.content) ? ', ' : ',') : '; ';
    const cited = added.map((k) => (style.kind === 'latex' ? k : pandocKey(k))).join(separator);
    const needsSeparator = group.keys.length > 0 && cited !== '';
    return { offset: group.close, length: 0, text: (needsSeparator ? separator : '') + cited };
  }
  return { offset: at, length: 0, text: citationFor(keys, style, at === 0 || /\s/.test(text[at - 1])) };
}

/**
 * A new citation of `keys` (none: nothing) to write after a word, or after a space when `spaced`:
 * `~\citep{a,b}` or ` [@a; @b]`. Throws for a key the command could not carry intact.
 */
export function citationFor(keys: readonly string[], style: CitationStyle, spaced: boolean): string {
  const fresh = unique(keys);
  if (fresh.length === 0) return '';
  if (style.kind === 'pandoc') return `${spaced ? '' : ' '}[${fresh.map(pandocKey).join('; ')}]`;
  // A comma would split the key, a brace or backslash end the command, `%` comment out the rest of the line.
  const unsafe = fresh.find((key) => !/^[^\s,{}%#~\\]+$/.test(key));
  if (unsafe !== undefined) throw new Error(`The key "${unsafe}" cannot be written in a LaTeX citation.`);
  const tie = spaced || ATTACHED.has(style.command) ? '' : '~';
  return `${tie}\\${style.command}{${fresh.join(',')}}`;
}

/** The selection's end without trailing space and one closing punctuation mark (not an ellipsis). */
function insertionPoint(text: string, offset: number): number {
  let at = Math.max(0, Math.min(offset, text.length));
  while (at > 0 && /\s/.test(text[at - 1])) at--;
  if (at > 0 && /[.,;:!?]/.test(text[at - 1]) && text[at - 2] !== text[at - 1]) at--;
  return at;
}

interface CitationGroup {
  /** Offset of the group's closing `}` or `]`: where more keys go. */
  readonly close: number;
  /** The text between the delimiters. */
  readonly content: string;
  readonly keys: readonly string[];
}

/** How far back a citation command that ends at the insertion point may start. */
const LOOKBEHIND = 2000;

const LATEX_GROUP = String.raw`\\([a-zA-Z]+)\*?(?:\s*\[[^\[\]]*\])*\s*\{([^{}]*)\}`;
const LATEX_BEFORE = new RegExp(`${LATEX_GROUP}$`);
const LATEX_AFTER = new RegExp(`^[ \\t~]*${LATEX_GROUP}`);

/** A parenthetical citation command ending at `at`, else one starting there (after spaces or a tie). */
function latexGroupAround(text: string, at: number): CitationGroup | undefined {
  const start = Math.max(0, at - LOOKBEHIND);
  const before = LATEX_BEFORE.exec(text.slice(start, at));
  if (before && PARENTHETICAL.includes(commandName(before[1]))) {
    return latexGroup(before[2], start + before.index + before[0].length - 1);
  }
  const after = LATEX_AFTER.exec(text.slice(at, at + LOOKBEHIND));
  if (after && PARENTHETICAL.includes(commandName(after[1]))) {
    return latexGroup(after[2], at + after[0].length - 1);
  }
  return undefined;
}

function latexGroup(content: string, close: number): CitationGroup {
  return {
    close,
    content,
    keys: content
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== ''),
  };
}

/** A bracketed pandoc citation ending at `at`, else one starting there (after spaces); never a link. */
function pandocGroupAround(text: string, at: number): CitationGroup | undefined {
  const start = Math.max(0, at - LOOKBEHIND);
  const before = /\[([^[\]]*)\]$/.exec(text.slice(start, at));
  if (before && isPandocCitation(before[1]) && !/^[([]/.test(text.slice(at, at + 1))) {
    return pandocGroup(before[1], start + before.index + before[0].length - 1);
  }
  const after = /^[ \t]*\[([^[\]]*)\](?![([])/.exec(text.slice(at, at + LOOKBEHIND));
  if (after && isPandocCitation(after[1])) return pandocGroup(after[1], at + after[0].length - 1);
  return undefined;
}

function isPandocCitation(content: string): boolean {
  return /(?:^|[\s;])-?@[{\p{L}\p{N}_]/u.test(content);
}

function pandocGroup(content: string, close: number): CitationGroup {
  const keys = [...content.matchAll(/(?:^|[\s;])-?@(?:\{([^{}]+)\}|([^\s;,\]]+))/gu)].map((m) => m[1] ?? m[2]);
  return { close, content, keys };
}

/**
 * A key as pandoc reads it: bare when it is letters, digits and `_` with inner punctuation, as
 * markdown.ts's reader accepts; in braces otherwise (a trailing `.` would end the key).
 */
function pandocKey(key: string): string {
  if (/^[\p{L}\p{N}_](?:[\p{L}\p{N}_]|[:.#$%&\-+?<>~/](?=[\p{L}\p{N}_]))*$/u.test(key)) return `@${key}`;
  if (/[{}\]]/.test(key)) throw new Error(`The key "${key}" cannot be written in a pandoc citation.`);
  return `@{${key}}`;
}

function unique(keys: readonly string[]): string[] {
  return [...new Set(keys)];
}
