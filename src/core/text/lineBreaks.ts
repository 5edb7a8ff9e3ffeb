/**
 * The text with each lone carriage return (classic Mac OS line ends, some editors' exports) made a
 * line feed, so a scanner need only know `\n`. VS Code and `LineIndex` count a lone CR as a line break
 * too, so every offset, line and column stays as the editor has it.
 */
export function withLoneCrAsLf(text: string): string {
  return text.includes('\r') ? text.replace(/\r(?!\n)/g, '\n') : text;
}
