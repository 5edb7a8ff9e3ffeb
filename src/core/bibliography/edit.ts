import { escapeLatexSpecials, verbatimBibtexValue } from './escape';

/** A replacement of `length` characters at `offset` of a .bib file's text. */
export interface TextEdit {
  readonly offset: number;
  readonly length: number;
  readonly text: string;
}

/** Fields read verbatim by biblatex and the styles: an identifier, an address. */
const VERBATIM_FIELDS = new Set(['doi', 'url']);

/**
 * Edits that set fields of the entry starting at `entryOffset` (its `@`) to new values, leaving the
 * rest of the entry as the user wrote it: an existing field's value is replaced in place, a missing
 * field is added before the closing brace. Plain-text values are escaped for BibTeX here, except a
 * DOI's or URL's, which is written as it is or, if it cannot be, not at all.
 * Returns no edits when the entry cannot be read (the caller then changes nothing).
 */
/** A field's new value: plain text to escape, or BibTeX already written (an author list with braced names). */
export type FieldValue = string | { readonly bibtex: string };

export function setFields(text: string, entryOffset: number, values: ReadonlyMap<string, FieldValue>): TextEdit[] {
  const entry = readEntry(text, entryOffset);
  if (!entry) return [];
  const edits: TextEdit[] = [];
  const missing: string[] = [];
  for (const [name, value] of values) {
    const field = entry.fields.get(name.toLowerCase());
    const written = typeof value !== 'string' ? value.bibtex : VERBATIM_FIELDS.has(name.toLowerCase()) ? verbatimBibtexValue(value) : escapeBibtex(value);
    if (written === undefined) continue;
    const braced = `{${written}}`;
    if (field) edits.push({ offset: field.valueStart, length: field.valueEnd - field.valueStart, text: braced });
    else missing.push(`${name} = ${braced}`);
  }
  if (missing.length > 0) {
    const indent = entry.indent ?? '  ';
    const needsComma = !/,\s*$/.test(text.slice(entry.bodyStart, entry.close));
    const insertAt = endOfLastValue(text, entry.bodyStart, entry.close);
    edits.push({ offset: insertAt, length: 0, text: `${needsComma ? ',' : ''}\n${missing.map((f) => indent + f).join(',\n')}` });
  }
  return edits.sort((a, b) => b.offset - a.offset);
}

/** Applies edits (as `setFields` returns them, last first) to a text. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const edit of [...edits].sort((a, b) => b.offset - a.offset)) {
    result = result.slice(0, edit.offset) + edit.text + result.slice(edit.offset + edit.length);
  }
  return result;
}

/**
 * Plain text as a braced BibTeX value, escaped as every BibTeX write is (`escapeLatexSpecials`);
 * capitalised words are braced so styles keep their case.
 */
export function escapeBibtex(value: string): string {
  return escapeLatexSpecials(value).replace(/\b(\p{Lu}[\p{L}\d]*\p{Lu}[\p{L}\d]*)\b/gu, '{$1}');
}

interface FieldSpan {
  readonly valueStart: number;
  readonly valueEnd: number;
}

interface EntrySpans {
  readonly bodyStart: number;
  /** Index of the closing delimiter. */
  readonly close: number;
  readonly fields: Map<string, FieldSpan>;
  readonly indent?: string;
}

function readEntry(text: string, at: number): EntrySpans | undefined {
  const head = /^@\s*[a-zA-Z]+\s*([{(])\s*[^,\s]*\s*,/.exec(text.slice(at, at + 1000));
  if (!head) return undefined;
  const closer = head[1] === '{' ? '}' : ')';
  const bodyStart = at + head[0].length;
  const fields = new Map<string, FieldSpan>();
  let indent: string | undefined;
  let i = bodyStart;
  while (i < text.length) {
    i = skipSpace(text, i);
    if (text[i] === closer) return { bodyStart, close: i, fields, indent };
    const name = /^[a-zA-Z_][\w:+-]*/.exec(text.slice(i, i + 100));
    if (!name) return undefined;
    indent ??= /(?:^|\n)([ \t]*)$/.exec(text.slice(Math.max(bodyStart, i - 40), i))?.[1];
    i = skipSpace(text, i + name[0].length);
    if (text[i] !== '=') return undefined;
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = endOfValue(text, valueStart, closer);
    if (valueEnd < 0) return undefined;
    if (!fields.has(name[0].toLowerCase())) fields.set(name[0].toLowerCase(), { valueStart, valueEnd });
    i = skipSpace(text, valueEnd);
    if (text[i] === ',') i++;
    else if (text[i] !== closer) return undefined;
  }
  return undefined;
}

/** The end of a value: braced or quoted parts and bare words joined by `#`. */
function endOfValue(text: string, start: number, closer: string): number {
  let i = start;
  while (true) {
    if (text[i] === '{' || text[i] === '"') {
      i = endOfDelimited(text, i);
      if (i < 0) return -1;
    } else {
      const word = /^[^\s,#{}"()]+/.exec(text.slice(i, i + 200));
      if (!word) return -1;
      i += word[0].length;
    }
    const next = skipSpace(text, i);
    if (text[next] !== '#') return text[next] === ',' || text[next] === closer ? i : -1;
    i = skipSpace(text, next + 1);
  }
}

function endOfDelimited(text: string, open: number): number {
  let depth = 0;
  const quoted = text[open] === '"';
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}') {
      depth--;
      if (depth === 0 && !quoted) return i + 1;
    } else if (c === '"' && quoted && depth === 0 && i > open) return i + 1;
  }
  return -1;
}

function endOfLastValue(text: string, from: number, close: number): number {
  let end = close;
  while (end > from && /\s/.test(text[end - 1])) end--;
  return end;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i])) i++;
  return i;
}
