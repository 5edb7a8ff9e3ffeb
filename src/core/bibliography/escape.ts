/**
 * LaTeX's special characters as citation-js writes them in ASCII. Braces are commands too: BibTeX
 * counts `\{` as a brace. `^` and `~` matter as much as the rest: `^^5c` is a backslash to TeX.
 */
const SPECIALS: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}', '{': '\\textbraceleft{}', '}': '\\textbraceright{}', '~': '\\textasciitilde{}',
  '^': '\\textasciicircum{}', '&': '\\&', '%': '\\%', $: '\\$', '#': '\\#', _: '\\_',
};

/**
 * Text from outside (a source's record, a user's words) as a BibTeX value that prints it as it is and
 * runs nothing: the one escaping every BibTeX write uses.
 */
export function escapeLatexSpecials(value: string): string {
  return value.replace(/[\\{}~^&%$#_]/g, (c) => SPECIALS[c]);
}

/**
 * An identifier or web address as a BibTeX value: written as it is, since biblatex and the styles read
 * `doi` and `url` verbatim (`\_` in a DOI is a broken link). Undefined when it could not stay inside its
 * braces as it is: a brace or backslash, or a control character or line break.
 */
export function verbatimBibtexValue(value: string): string | undefined {
  return /[{}\\\p{Cc}]/u.test(value) ? undefined : value;
}
