/**
 * A model's reply as plain characters, before anything is read from it: NFKC (so `［７］` is `[7]`
 * and `ﬁ` is `fi`), without the characters a reader cannot see (zero-width, bidi and other format
 * characters, controls, private-use and unassigned code points), line ends as `\n`.
 *
 * NFKC also turns `¹⁷`, `⑦` and `⒎` into plain digits, which would hide a note or citation mark in
 * the running text; each run of them becomes NOTE_MARK instead, for `citationLike` to report.
 */

/** Stands for a superscript, subscript or enclosed number. Private use, so it cannot come from the reply itself. */
export const NOTE_MARK = '\uE000';

/** Format (Cf), control (Cc), private use (Co), surrogates (Cs) and unassigned (Cn) code points; `\n` and `\t` are handled first. */
const INVISIBLE = /[\p{Cf}\p{Cc}\p{Co}\p{Cs}\p{Cn}]/u;

/** Digits in forms that stand for themselves in a bracket: `［７］` is read as `[7]`. */
const PLAIN_DIGIT_FORMS = /[\uFF10-\uFF19]|[\u{1D7CE}-\u{1D7FF}]/u;

export function normalizeDraft(reply: string): string {
  let out = '';
  let inNote = false;
  for (const char of reply) {
    const code = char.codePointAt(0) ?? 0;
    // Printable ASCII is most of any reply, and none of it needs a closer look.
    if (code >= 0x20 && code < 0x7f) {
      out += char;
      inNote = false;
      continue;
    }
    if (char === '\r') continue;
    if (char === '\n' || code === 0x2028 || code === 0x2029 || code === 0x85) {
      out += '\n';
      inNote = false;
      continue;
    }
    if (char === '\t') {
      out += ' ';
      inNote = false;
      continue;
    }
    if (INVISIBLE.test(char)) continue;
    if (isNoteNumeral(char)) {
      if (!inNote) out += NOTE_MARK;
      inNote = true;
      continue;
    }
    inNote = false;
    out += char;
  }
  // Normalising after the pass keeps NOTE_MARK (NFKC leaves private use alone) and cannot bring back a removed character.
  return out.normalize('NFKC');
}

/** Numbers that are not digits and do not mark anything: `½`, `⅓`, `Ⅻ`. */
const QUANTITIES = /[\u00BC-\u00BE\u2150-\u218F]/u;

/**
 * A number sign that is not a digit: one NFKC turns into digits (`¹`, `₇`, `⑦`, `⒎`, `⑺`, `🄇`) or
 * one with no digits to turn into (`❼`, `➐`); not a plain digit form, fraction or Roman numeral.
 */
function isNoteNumeral(char: string): boolean {
  if (char.length === 1 && char >= '0' && char <= '9') return false;
  if (PLAIN_DIGIT_FORMS.test(char) || QUANTITIES.test(char)) return false;
  if (/\p{No}/u.test(char)) return true;
  const compatible = char.normalize('NFKC');
  return compatible !== char && /[0-9]/.test(compatible);
}
