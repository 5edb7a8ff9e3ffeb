/**
 * Quarto's reserved cross-reference prefixes (`@fig-x`, `@sec-x`, …) and pandoc-crossref's (`@fig:x`,
 * `@Fig:x`): a key with one of them points at a part of the document, not at a bibliography entry.
 */
const CROSS_REFERENCE = /^(?:(?:fig|tbl|sec|eq|lst|thm|lem|cor|prp|cnj|def|exm|exr|sol|rem)-|(?:fig|tbl|sec|eq|lst):)/i;

/** What a reference to a figure, table, equation or section reads as in a claim: it prints a number. */
export const REFERENCE_PLACEHOLDER = '[ref]';

export function isCrossReference(key: string): boolean {
  return CROSS_REFERENCE.test(key);
}
