/**
 * Turning what sources send into the forms `SourceRecord` promises (plain-text titles and abstracts,
 * person names split into family and given), and identifiers into questions a source can be asked.
 */
import type { Author } from '../bibliography/types';
import { normalizeArxivId, normalizeDoi } from '../identifiers';
import { SOURCE_NAMES } from './config';
import { SourceError } from './types';
import type { SourceId } from './ids';

/**
 * Why `source` was not asked (an identifier it cannot read, a title with no word to search for): a
 * failure like any other, since a question never put is no answer about the work.
 */
export function notAsked(source: SourceId, what: string): SourceError {
  return new SourceError('unavailable', `${SOURCE_NAMES[source]} was not asked: ${what}.`, source);
}

/** The DOI to ask `source` about; throws `notAsked` when the text is none. */
export function doiToAsk(source: SourceId, raw: string): string {
  const doi = normalizeDoi(raw);
  if (doi === undefined) throw notAsked(source, `"${raw}" is not a DOI`);
  return doi;
}

/** The arXiv id to ask `source` about; throws `notAsked` when the text is none. */
export function arxivIdToAsk(source: SourceId, raw: string): string {
  const id = normalizeArxivId(raw);
  if (id === undefined) throw notAsked(source, `"${raw}" is not an arXiv id`);
  return id;
}

/**
 * A DOI as one URL path segment, its slashes escaped too: kept, a DOI such as `10.1234/../../admin`
 * would climb out of the API's path.
 */
export function doiPath(doi: string): string {
  return encodeURIComponent(doi);
}

/** Markup that separates blocks of text; any other tag (italics, sub- and superscripts) joins its neighbours. */
const BLOCK_TAG = /^\/?(?:jats:)?(p|title|sec|list|list-item|br|break|div|li|ul|ol|h\d)\b/i;

/** JATS or HTML as it appears in abstracts and titles → plain text on one line. */
export function stripMarkup(text: string): string {
  return decodeEntities(
    text
      // A heading that only says "Abstract" is not part of the abstract.
      .replace(/<(jats:)?title>\s*(abstract|summary)\s*<\/(jats:)?title>/gi, ' ')
      .replace(/<([^<>]*)>/g, (_, tag: string) => (BLOCK_TAG.test(tag) ? ' ' : '')),
  )
    .replace(/\s+/g, ' ')
    .trim();
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? entity;
  });
}

/** Lower-case words that belong to the family name: "Ludwig van Beethoven" → family "van Beethoven". */
const PARTICLES = new Set(['van', 'von', 'der', 'den', 'de', 'del', 'della', 'di', 'da', 'dos', 'du', 'la', 'le', 'ten', 'ter', 'bin', 'al']);
const SUFFIX = /^(jr|sr|ii|iii|iv)\.?$/i;

/**
 * A name written as one string ("Juan Pablo Alperin", "Alperin, Juan Pablo") → family and given, so it
 * compares with BibTeX authors. A single word is a family name.
 */
export function splitPersonName(name: string): Author {
  const clean = name.replace(/\s+/g, ' ').trim();
  const comma = clean.indexOf(',');
  if (comma > 0) {
    const given = clean.slice(comma + 1).trim();
    return given ? { family: clean.slice(0, comma).trim(), given } : { family: clean.slice(0, comma).trim() };
  }
  const words = clean.split(' ');
  let end = words.length;
  if (end > 2 && SUFFIX.test(words[end - 1])) end--;
  let start = end - 1;
  while (start > 1 && PARTICLES.has(words[start - 1])) start--;
  const family = words.slice(start, end).join(' ');
  const given = words.slice(0, start).join(' ');
  return given ? { family, given } : { family };
}
