/** Reading the groups and comments of LaTeX that a reference list (`thebibliography`, a .bbl) is written in. */

/**
 * The index just past the `}` (or `]`) that closes the group opening at `open`, counting braces and
 * skipping escaped ones; -1 when it does not close before `limit`.
 */
export function groupEnd(text: string, open: number, limit = text.length): number {
  const closer = text[open] === '[' ? ']' : '}';
  let depth = 0;
  for (let i = open + 1; i < limit; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === closer && depth === 0) return i + 1;
  }
  return -1;
}

/** The text with each `%` comment turned into spaces, so offsets into it are offsets into the original. */
export function blankComments(text: string): string {
  return text.replace(
    /(^|[^\\])((?:\\\\)*)%[^\n\r]*/g,
    (whole: string, before: string, escapes: string) => before + escapes + ' '.repeat(whole.length - before.length - escapes.length),
  );
}

/** The first argument in braces at or after `from` (spaces skipped), with where its text starts and ends. */
export function braceArgument(text: string, from: number, limit = text.length): { readonly start: number; readonly end: number } | undefined {
  let i = from;
  while (i < limit && /\s/.test(text[i])) i++;
  if (text[i] !== '{') return undefined;
  const end = groupEnd(text, i, limit);
  return end < 0 ? undefined : { start: i + 1, end: end - 1 };
}
