/** Character codes the BibTeX readers compare against. */
export const enum Ch {
  Tab = 9,
  LineFeed = 10,
  CarriageReturn = 13,
  Space = 32,
  Quote = 34,
  Hash = 35,
  Dollar = 36,
  Percent = 37,
  Apostrophe = 39,
  LeftParen = 40,
  RightParen = 41,
  Comma = 44,
  Hyphen = 45,
  Zero = 48,
  Nine = 57,
  Equals = 61,
  Backslash = 92,
  Caret = 94,
  Underscore = 95,
  Backtick = 96,
  LeftBrace = 123,
  RightBrace = 125,
  Tilde = 126,
}

/** An ASCII letter: what a LaTeX command's name is made of. */
export function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
