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
