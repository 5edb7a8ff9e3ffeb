/**
 * Turning what sources send into the forms `SourceRecord` promises: DOIs and arXiv ids without
 * prefixes, plain-text titles and abstracts, person names split into family and given.
 */
import type { Author } from '../bibliography/types';
import { SOURCE_NAMES } from './config';
import { SourceError } from './types';
import type { SourceId } from './ids';

/** Far above any registered DOI; longer strings are junk, not worth a request. */
const MAX_DOI_LENGTH = 300;

/** `https://doi.org/10.1/X`, `doi:10.1/X`, `10.1/X` → `10.1/x`; undefined when it is no DOI. */
export function normalizeDoi(raw: string): string | undefined {
  const doi = raw
    .trim()
    .replace(/^https?:\/\/(dx\.)?doi\.org\//i, '')
    .replace(/^doi:\s*/i, '')
    .toLowerCase();
  return doi.length <= MAX_DOI_LENGTH && /^10\.\d+\/\S+$/.test(doi) ? doi : undefined;
}

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

/** The primary category arXiv prints after an id: ` [cs.CL]`, ` [hep-th]`, ` [physics.comp-ph]`. */
export const ARXIV_CATEGORY = /\s*\[[a-z-]+(?:\.[a-z-]+)?\]$/i;

/** arXiv registers every paper under this DOI prefix (DataCite), e.g. `10.48550/arxiv.2305.18248`. */
const ARXIV_DOI = /^10\.48550\/arxiv\.(.+)$/i;

/**
 * `arXiv:2305.18248v2`, `https://arxiv.org/abs/hep-th/9901001`, `https://arxiv.org/pdf/2305.18248v1.pdf`,
 * `1706.03762 [cs.CL]` (as arXiv's listings print it, with the primary category), the arXiv DOI → the
 * id without version; undefined when it is none of these.
 */
export function normalizeArxivId(raw: string): string | undefined {
  let id = raw.trim();
  const doi = normalizeDoi(id);
  if (doi) {
    const match = ARXIV_DOI.exec(doi);
    if (!match) return undefined;
    id = match[1];
  }
  id = id
    .replace(/^https?:\/\/(www\.|export\.)?arxiv\.org\/(abs|pdf)\//i, '')
    .replace(/^arxiv:/i, '')
    .replace(/\.pdf$/i, '')
    .replace(ARXIV_CATEGORY, '')
    .replace(/v\d+$/i, '');
  if (/^\d{4}\.\d{4,5}$/.test(id)) return id;
  // Old-style ids keep their archive name, whose case matters: `hep-th/9901001`, `math.AG/0309136`.
  if (/^[a-z-]+(\.[A-Z]{2})?\/\d{7}$/i.test(id)) return id.replace(/^[a-z-]+/i, (archive) => archive.toLowerCase());
  return undefined;
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
