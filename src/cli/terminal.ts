/**
 * What reaches a terminal from outside (citation keys, .bib values, parse errors quoting the bytes they
 * could not read, file names, a language model's notes) is data: an ESC starts a sequence that can clear
 * the screen, set the window title or write the clipboard (OSC 52), a newline in a file name starts a
 * line that looks like a finding, and U+202E reverses what follows it. Every C0 and C1 control, DEL, and
 * the Unicode controls that reorder or break lines are shown as escapes instead: `\x1b`, `\u202e`.
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** `text` with every control character written as a visible escape; `keep` lists those printed as they are. */
export function forTerminal(text: string, keep = ''): string {
  return text.replace(UNSAFE, (c) => {
    if (keep.includes(c)) return c;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** "\rLooking up references: 3/10" on standard error, overwriting the line before; our own text only. */
export function showProgress(what: string, done: number, total: number): void {
  process.stderr.write(`\r${what}: ${done}/${total}${done === total ? '\n' : ''}`);
}

/** "\rIndexing DBLP's dump dblp.xml.gz: 42% (3,100,000 records)" on standard error, overwriting the line before; our own text only. */
export function showShare(what: string, fraction: number, detail: string): void {
  const percent = Math.min(100, Math.floor(fraction * 100));
  process.stderr.write(`\r${what}: ${percent}% (${detail})${percent === 100 ? '\n' : ''}`);
}
