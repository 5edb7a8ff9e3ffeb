/**
 * Text from outside (a model's draft) written into a manuscript as text: every character the
 * target reads as markup is escaped, so nothing in it can become a command, a comment, math, a
 * link, a note or a citation.
 *
 *   escapeLatex('50% of $x_1$ \\input{a}')   → '50\\% of \\$x\\_1\\$ \\textbackslash{}input\\{a\\}'
 *   escapePandoc('see [@smith] <b>*x*</b>')  → 'see \\[\\@smith\\] \\<b\\>\\*x\\*\\</b\\>'
 */

/**
 * LaTeX's ten specials, and `<`, `>` and `|`, which the default OT1 font encoding prints as other
 * characters. The `{}` after a word-like command keeps it from swallowing a following space.
 */
const LATEX: Readonly<Record<string, string>> = {
  '\\': '\\textbackslash{}',
  '{': '\\{',
  '}': '\\}',
  $: '\\$',
  '&': '\\&',
  '%': '\\%',
  '#': '\\#',
  _: '\\_',
  '^': '\\textasciicircum{}',
  '~': '\\textasciitilde{}',
  '<': '\\textless{}',
  '>': '\\textgreater{}',
  '|': '\\textbar{}',
};

/**
 * Everything pandoc's Markdown reads as markup inline: emphasis, code, links, citations (`@`,
 * brackets), notes (`^[`), super- and subscripts (`^`, `~`), math and raw TeX (`$`, `\`), raw HTML
 * and entities (`<`, `>`, `&`), tables (`|`), headings and attributes (`#`, `{ }`), and the
 * backslash itself. Parentheses and `!` need nothing once brackets are escaped: no link or image can start. Pandoc's `all_symbols_escapable` makes a backslash before any of them literal.
 */
const PANDOC_SPECIALS = new Set(['\\', '`', '*', '_', '{', '}', '[', ']', '<', '>', '#', '@', '$', '^', '~', '|', '&']);

export function escapeLatex(text: string): string {
  let out = '';
  for (const char of text) out += LATEX[char] ?? char;
  return out;
}

export function escapePandoc(text: string): string {
  let out = '';
  for (const char of text) out += PANDOC_SPECIALS.has(char) ? `\\${char}` : char;
  return out;
}
