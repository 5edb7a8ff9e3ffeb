import { Ch, isLetter } from './charCodes';

/**
 * An author list cut where citation-js's name lexer makes its `and` tokens, so that each name can
 * be parsed alone and remembered: a long list repeats its names, and so do the entries of a
 * bibliography, while citation-js's grammar costs about 300 ns a token. The lexer makes an `and`
 * (`/\s+[aA][nN][dD]\s+/`) only where a token starts: outside braces, and not in the spaces a
 * command takes with it (`\o and X` is one name). Within these limits nothing in one name depends
 * on another. Undefined for what is outside them (math, `\begin`, `=`, whitespace other than
 * spaces, unbalanced braces), which goes to citation-js whole; a cut that does not give exactly one
 * name per piece is the caller's to notice.
 */
export function nameChunks(value: string): string[] | undefined {
  if (NOT_CUTTABLE.test(value)) return undefined;
  const chunks: string[] = [];
  let start = 0;
  let depth = 0;
  for (let i = 0; i < value.length;) {
    const c = value.charCodeAt(i);
    if (c === Ch.Backslash) {
      i = afterCommand(value, i);
      continue;
    }
    if (c === Ch.Space && depth === 0) {
      AND.lastIndex = i;
      if (AND.test(value)) {
        chunks.push(value.slice(start, i));
        start = i = AND.lastIndex;
      } else {
        // The rest of the run is the same whitespace token.
        while (i < value.length && value.charCodeAt(i) === Ch.Space) i++;
      }
      continue;
    }
    if (c === Ch.LeftBrace) depth++;
    else if (c === Ch.RightBrace && --depth < 0) return undefined;
    i++;
  }
  if (depth !== 0) return undefined;
  chunks.push(value.slice(start));
  return chunks;
}

const NOT_CUTTABLE = /[$=]|[^\S ]|\\begin/;
/** citation-js's `and` token where the only whitespace is spaces. */
const AND = / +[aA][nN][dD] +/y;

/** Past citation-js's command token at `at`: `\` and letters or one other character, and the spaces after. */
function afterCommand(value: string, at: number): number {
  let i = at + 1;
  if (i < value.length && isLetter(value.charCodeAt(i))) {
    while (i < value.length && isLetter(value.charCodeAt(i))) i++;
  } else {
    i++;
  }
  while (i < value.length && value.charCodeAt(i) === Ch.Space) i++;
  return i;
}
