/**
 * Character classes as UTF-16 code comparisons. A scanner testing each character with a regular
 * expression (`/\s/.test(text[j])`) builds a one-character string per test; over a megabyte of keys
 * that, not the scan, was most of the time.
 */

/** Exactly what `\s` matches in a JavaScript regular expression. */
export function isSpaceCode(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
