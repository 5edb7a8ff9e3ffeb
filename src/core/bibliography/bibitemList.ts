/**
 * The entries of a `thebibliography` list, in a manuscript or in the .bbl BibTeX wrote for it (plain,
 * natbib's plainnat and abbrvnat, and the styles like them): each `\bibitem[label]{key}` and the text
 * up to the next, read into a .bib entry's fields by `referenceText.ts`.
 */
import { LineIndex } from '../text/positions';
import { latexFieldText } from './bibValues';
import { identifiersIn } from './referenceIdentifiers';
import { MAX_REFERENCE_CHARACTERS, parseReferenceText } from './referenceText';
import { blankComments, braceArgument, groupEnd } from './texGroups';
import type { BibEntry } from './types';

const BEGIN = '\\begin{thebibliography}';
const END = '\\end{thebibliography}';
const BIBITEM = /\\bibitem\b\s*/g;

/** Every `\bibitem` of every `thebibliography` environment of the text, as entries of `file`. */
export function bibitemEntries(text: string, file: string): BibEntry[] {
  const source = blankComments(text);
  const lines = new LineIndex(text);
  const entries: BibEntry[] = [];
  for (let begin = source.indexOf(BEGIN); begin >= 0; begin = source.indexOf(BEGIN, begin + BEGIN.length)) {
    const endAt = source.indexOf(END, begin);
    const limit = endAt < 0 ? source.length : endAt;
    entries.push(...itemsOf(source, begin + BEGIN.length, limit, file, lines));
    if (endAt < 0) break;
    begin = endAt;
  }
  return entries;
}

function itemsOf(source: string, from: number, limit: number, file: string, lines: LineIndex): BibEntry[] {
  const starts: { at: number; label?: string; key: string; keyStart: number; bodyStart: number }[] = [];
  BIBITEM.lastIndex = from;
  for (let m = BIBITEM.exec(source); m && m.index < limit; m = BIBITEM.exec(source)) {
    let i = m.index + m[0].length;
    let label: string | undefined;
    if (source[i] === '[') {
      const close = groupEnd(source, i, limit);
      if (close < 0) continue;
      label = source.slice(i + 1, close - 1);
      i = close;
    }
    const key = braceArgument(source, i, limit);
    if (!key) continue;
    starts.push({ at: m.index, label, key: source.slice(key.start, key.end).trim(), keyStart: key.start, bodyStart: key.end + 1 });
    BIBITEM.lastIndex = key.end + 1;
  }
  return starts.map((item, n) => {
    const bodyEnd = n + 1 < starts.length ? starts[n + 1].at : limit;
    const body = source.slice(item.bodyStart, Math.min(bodyEnd, item.bodyStart + MAX_REFERENCE_CHARACTERS));
    const end = trimmedEnd(source, item.bodyStart, bodyEnd);
    return entryOf(body, item.label, {
      key: item.key,
      file,
      range: { start: lines.positionAt(item.at), end: lines.positionAt(end) },
      keyRange: { start: lines.positionAt(item.keyStart), end: lines.positionAt(item.keyStart + item.key.length) },
    });
  });
}

function trimmedEnd(text: string, start: number, end: number): number {
  let i = end;
  while (i > start && /\s/.test(text[i - 1])) i--;
  return i;
}

type Place = Pick<BibEntry, 'key' | 'file' | 'range' | 'keyRange'>;

/** One `\bibitem`'s text as an entry: its `\newblock`s are the blocks BibTeX's styles print. */
function entryOf(body: string, label: string | undefined, place: Place): BibEntry {
  const blocks = body.split(/\\newblock\b/).map((block) => latexFieldText(withoutStyleCommands(block)));
  const fields = parseReferenceText(blocks);
  const identifiers = identifiersIn(identifierText(body));
  const year = fields.year ?? yearOfLabel(label);
  return {
    ...place,
    ...fields,
    ...identifiers,
    ...(year !== undefined && { year }),
    reference: blocks.join(' ').replace(/\s+/g, ' ').trim(),
  };
}

/**
 * The commands styles wrap fields in, with the text they print kept: `\bibinfo{title}{…}` (urlbst,
 * revtex, elsarticle's styles), natbib's `\natexlab{a}` (a year's letter, dropped), and the links
 * (`\url`, `\doi`, `\href`, `\eprint`), whose identifiers are read apart, from the raw text.
 */
function withoutStyleCommands(block: string): string {
  return block
    .replace(/\\(?:bibinfo|bibfield)\s*\{[^{}]*\}\s*/g, '')
    .replace(/\\natexlab\s*\{[^{}]*\}/g, '')
    .replace(/\\(?:url|doi|eprint|arxiv|path)\s*\{[^{}]*\}/g, ' ')
    .replace(/\\href\s*\{[^{}]*\}/g, '')
    .replace(/\\(?:urlprefix|doiprefix|penalty0|BibitemOpen|bibAnnoteFile\s*\{[^{}]*\}|BibitemShut\s*\{[^{}]*\}|showDOI|showURL|eprinttype|Eprint)\b/g, ' ')
    .replace(/\\enquote\s*\{/g, '{');
}

/** The body with its link commands as the text they stand for: `\doi{x}` as `doi:x`, `\eprint{x}` as `arXiv:x`. */
function identifierText(body: string): string {
  return body
    .replace(/\\doi\s*\{([^{}]*)\}/g, ' doi:$1 ')
    .replace(/\\(?:eprint|arxiv)\s*\{([^{}]*)\}/g, ' arXiv:$1 ')
    .replace(/\\(?:url|href|path)\s*\{([^{}]*)\}/g, ' $1 ')
    .replace(/\\_/g, '_')
    .replace(/\\(?:urlprefix|doiprefix)\b/g, ' ');
}

/** natbib's label is `Short(Year)Long`: its year serves when the text shows none. */
function yearOfLabel(label: string | undefined): number | undefined {
  const year = label === undefined ? undefined : /\(((?:1[5-9]|20)\d{2})[a-z]?\)/.exec(label)?.[1];
  return year === undefined ? undefined : Number(year);
}
