/**
 * What to insert at the end of a .bib file's text to add `entryText` as a new entry: separated from
 * what is there by a blank line, in the file's own line endings, ending with a line break.
 */
export function textToAppend(existingText: string, entryText: string): string {
  const eol = /\r\n|\n/.exec(existingText)?.[0] ?? '\n';
  const entry = entryText.trim().replace(/\r?\n/g, eol) + eol;
  let end = existingText.length;
  while (end > 0 && /\s/.test(existingText[end - 1])) end--;
  if (end === 0) return entry;
  const trailingBreaks = existingText.slice(end).split('\n').length - 1;
  return eol.repeat(Math.max(0, 2 - trailingBreaks)) + entry;
}
