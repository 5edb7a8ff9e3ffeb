/**
 * LaTeX's special characters as citation-js writes them in ASCII. Braces are commands too: BibTeX
 * counts `\{` as a brace. `^` and `~` matter as much as the rest: `^^5c` is a backslash to TeX.
 */
const SPECIALS: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}',
  '{': '\\textbraceleft{}',
  '}': '\\textbraceright{}',
  '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}',
  '&': '\\&',
  '%': '\\%',
  $: '\\$',
  '#': '\\#',
  _: '\\_',
};

/**
 * Line breaks (Unicode's separators too) and other control characters. A value is one line: in a
 * line of its own, `@type{` starts a new entry however many braces are open, as BibTeX and Attest's
 * reader resynchronise, and a control character is no text a style could print.
 */
const CONTROLS = /[\p{Cc}\u2028\u2029]+/gu;

/** `value` with each run of line breaks and control characters folded into one space. */
export function oneLine(value: string): string {
  return value.replace(CONTROLS, ' ');
}

/**
 * Text from outside (a source's record, a user's words) as a BibTeX value that prints it as it is and
 * runs nothing: the one escaping every BibTeX write uses. It is written on one line (`oneLine`).
 */
export function escapeLatexSpecials(value: string): string {
  return oneLine(value).replace(/[\\{}~^&%$#_]/g, (c) => SPECIALS[c]);
}

/**
 * An escaped part of a person's name (family or given) that BibTeX's name grammar reads as one part:
 * a comma would split it into "von Last, Jr, First", a word "and" in any case would end the name, and
 * citation-js reads a name's `=` as the end of a key. Braced, each stays text.
 */
export function braceNameSeparators(escaped: string): string {
  return escaped.replace(/[,=]|\band\b/gi, '{$&}');
}

/**
 * An identifier or web address as a BibTeX value: written as it is, since biblatex and the styles read
 * `doi` and `url` verbatim (`\_` in a DOI is a broken link). Undefined when it could not stay inside its
 * braces as it is: a brace or backslash, or a control character or line break.
 */
export function verbatimBibtexValue(value: string): string | undefined {
  return /[{}\\\p{Cc}\u2028\u2029]/u.test(value) ? undefined : value;
}
