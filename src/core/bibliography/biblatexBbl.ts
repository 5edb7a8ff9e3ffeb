/**
 * The entries of a .bbl that biber wrote for biblatex: `\entry{key}{type}{…}` … `\endentry`, whose
 * fields are structured (`\field{title}{…}`, `\name{author}{n}{…}{…}`, `\verb{doi} … \endverb`), so
 * they are read as fields, not as a reference's text.
 */
import { normalizeDoi } from '../identifiers';
import { LineIndex } from '../text/positions';
import { latexFieldText } from './bibValues';
import { blankComments, braceArgument, groupEnd } from './texGroups';
import type { Author, BibEntry } from './types';

const ENTRY = /\\entry\s*\{/g;
const END_ENTRY = '\\endentry';

/** Whether the text is biber's .bbl rather than a `thebibliography` list. */
export function isBiblatexBbl(text: string): boolean {
  return /\\entry\s*\{[^{}]*\}\s*\{[^{}]*\}/.test(text) && text.includes(END_ENTRY);
}

export function biblatexEntries(text: string, file: string): BibEntry[] {
  const source = blankComments(text);
  const lines = new LineIndex(text);
  const entries: BibEntry[] = [];
  ENTRY.lastIndex = 0;
  for (let m = ENTRY.exec(source); m; m = ENTRY.exec(source)) {
    const end = source.indexOf(END_ENTRY, m.index);
    const limit = end < 0 ? source.length : end;
    const key = braceArgument(source, m.index + m[0].length - 1, limit);
    if (!key) continue;
    const type = braceArgument(source, key.end + 1, limit);
    const keyText = source.slice(key.start, key.end).trim();
    const fields = fieldsOf(source.slice(type ? type.end + 1 : key.end + 1, limit));
    entries.push({
      key: keyText,
      type: type ? source.slice(type.start, type.end).trim().toLowerCase() : 'misc',
      file,
      range: { start: lines.positionAt(m.index), end: lines.positionAt(end < 0 ? limit : end + END_ENTRY.length) },
      keyRange: { start: lines.positionAt(key.start), end: lines.positionAt(key.start + keyText.length) },
      ...fields,
    });
    ENTRY.lastIndex = limit;
  }
  return entries;
}

type Fields = Omit<BibEntry, 'key' | 'type' | 'file' | 'range' | 'keyRange'>;

const VENUE_FIELDS = ['journaltitle', 'journal', 'booktitle', 'maintitle', 'eventtitle', 'publisher', 'institution', 'organization'];

function fieldsOf(body: string): Fields {
  const fields = new Map<string, string>();
  for (const m of body.matchAll(/\\field\s*\{([a-z]+)\}\s*\{/gi)) {
    const end = groupEnd(body, m.index + m[0].length - 1);
    if (end > 0) fields.set(m[1].toLowerCase(), body.slice(m.index + m[0].length, end - 1));
  }
  // biber writes a verbatim field on lines of its own: `\verb{doi}`, `\verb 10.1109/…`, `\endverb`.
  for (const m of body.matchAll(/\\verb\s*\{([a-z]+)\}\s*\\verb ([^\n\r]*)[\s\S]*?\\endverb/gi)) fields.set(m[1].toLowerCase(), m[2].trim());
  const lists = new Map<string, string[]>();
  for (const m of body.matchAll(/\\list\s*\{([a-z]+)\}\s*\{\d+\}\s*\{/gi)) {
    const end = groupEnd(body, m.index + m[0].length - 1);
    if (end > 0) lists.set(m[1].toLowerCase(), topGroups(body.slice(m.index + m[0].length, end - 1)));
  }
  const title = fields.get('title');
  const year = Number(fields.get('year') ?? /^\d{4}/.exec(fields.get('date') ?? '')?.[0]);
  const venueText = VENUE_FIELDS.map((name) => fields.get(name) ?? lists.get(name)?.[0]).find((v) => v !== undefined);
  const doi = normalizeDoi(fields.get('doi') ?? '');
  const eprint = fields.get('eprint');
  const eprintType = fields.get('eprinttype')?.toLowerCase();
  const names = namesOf(body, 'author');
  return {
    authors: names.authors,
    ...(names.truncated && { authorsTruncated: true }),
    ...(title !== undefined && { title: biberText(title) }),
    ...(Number.isInteger(year) && year > 0 && { year }),
    ...(venueText !== undefined && { venue: biberText(venueText) }),
    ...(doi !== undefined && { doi }),
    ...(fields.has('url') && { url: fields.get('url') }),
    ...(fields.has('isbn') && { isbn: fields.get('isbn') }),
    ...(eprint !== undefined && eprintType === 'arxiv' && { arxivId: eprint }),
    ...(eprint !== undefined && eprintType === 'pubmed' && /^\d+$/.test(eprint) && { pmid: eprint }),
  };
}

/** `\name{author}{n}{options}{ {{hash}{family={…},given={…}}} … }`, and biber's older positional form. */
function namesOf(body: string, role: string): { authors: Author[]; truncated: boolean } {
  const m = new RegExp(`\\\\name\\s*\\{${role}\\}\\s*\\{\\d+\\}\\s*\\{[^{}]*\\}\\s*\\{`).exec(body);
  if (!m) return { authors: [], truncated: /\\true\{morenames\}/.test(body) };
  const end = groupEnd(body, m.index + m[0].length - 1);
  const list = end < 0 ? '' : body.slice(m.index + m[0].length, end - 1);
  const authors = topGroups(list)
    .map(personOf)
    .filter((a): a is Author => a !== undefined);
  return { authors, truncated: /\\true\{more(?:names|author)\}/.test(body) };
}

function personOf(group: string): Author | undefined {
  const parts = topGroups(group);
  const named = parts.find((p) => /\bfamily\s*=/.test(p));
  if (named) {
    const part = (name: string): string | undefined => {
      const at = new RegExp(`(?:^|[,\\s])${name}\\s*=\\s*\\{`).exec(named);
      if (!at) return undefined;
      const end = groupEnd(named, at.index + at[0].length - 1);
      return end < 0 ? undefined : biberText(named.slice(at.index + at[0].length, end - 1));
    };
    const family = [part('prefix'), part('family')].filter((p) => p).join(' ');
    const given = part('given');
    return family ? { family, ...(given && { given }) } : undefined;
  }
  // Older biber: {hash}{family}{familyi}{given}{giveni}{prefix}{prefixi}{suffix}{suffixi}.
  if (parts.length >= 4) {
    const family = biberText(parts[1]);
    const given = biberText(parts[3]);
    return family ? { family, ...(given && { given }) } : undefined;
  }
  return undefined;
}

/** biber's name and range macros as the text they print, before the rest of the LaTeX is read. */
function biberText(value: string): string {
  return latexFieldText(
    value
      .replace(/\\bibinitperiod\b\s*/g, '. ')
      .replace(/\\bib(?:namedelim[a-z]|initdelim)\b\s*/g, ' ')
      .replace(/\\bibinithyphendelim\b\s*/g, '.-')
      .replace(/\\bibrangedash\b\s*/g, '–'),
  ).trim();
}

/** The text of each brace group at the top level of `text`. */
function topGroups(text: string): string[] {
  const groups: string[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '{') {
      const end = groupEnd(text, i);
      if (end < 0) break;
      groups.push(text.slice(i + 1, end - 1));
      i = end - 1;
    }
  }
  return groups;
}
