/**
 * A model's reply as plain characters, before anything is read from it: NFKC (so `［７］` is `[7]`
 * and `ﬁ` is `fi`), without the characters a reader cannot see (zero-width, bidi and other format
 * characters, controls, private-use and unassigned code points), line ends as `\n`.
 *
 * NFKC also turns `¹⁷`, `⑦` and `⒎` into plain digits, which would hide a note or citation mark in
 * the running text; each run of them, and of other note signs, becomes NOTE_MARK instead, for
 * `citationLike` to report.
 */

/** Stands for a note sign (a superscript, subscript or enclosed number, a dagger). Private use, so it cannot come from the reply itself. */
export const NOTE_MARK = '\uE000';

/** Format (Cf), control (Cc, but for `\n`), private use (Co), lone surrogates (Cs) and unassigned (Cn) code points. */
const INVISIBLE = /(?!\n)[\p{Cf}\p{Cc}\p{Co}\p{Cs}\p{Cn}]/gu;

/**
 * Runs of signs that mark a note or a citation in running text: number signs that are not digits
 * (superscripts, subscripts, circled, parenthesised and full-stop numbers: `¹⁷`, `₇`, `⑦`, `❼`,
 * `⑺`, `⒎`, `🄇`; the CJK signs for numbered days, months and hours: `㏠`, `㋀`, `㍘`), superscript
 * and subscript letters (`ᵃ`, `ⁱ`, `ₐ`), and the note marks `†`, `‡`, `§`, `¶`. Not fractions or Roman
 * numerals (`½`, `Ⅻ`), which are quantities.
 */
const NOTE_SIGNS = /(?:(?![\u00BC-\u00BE\u2150-\u218F])[\p{No}\u32C0-\u32CB\u3358-\u3370\u33E0-\u33FE\u02B0-\u02B8\u1D2C-\u1D6A\u2071\u207F\u2090-\u209C†‡§¶])+/gu;

export function normalizeDraft(reply: string): string {
  return (
    reply
      .replace(/\r\n?|[\u2028\u2029\u0085]/g, '\n')
      .replace(/\t/g, ' ')
      .replace(INVISIBLE, '')
      .replace(NOTE_SIGNS, NOTE_MARK)
      // NFKC last: it keeps NOTE_MARK (private use) and cannot bring back a removed character.
      .normalize('NFKC')
  );
}
