/**
 * The identifiers of a work (DOI, arXiv id, PubMed and PubMed Central ids, ISBN) read, validated and
 * written in one form, wherever they come from: a .bib field, an API answer, a library file. Each
 * reader returns undefined for text that is not such an identifier, so that no junk reaches a URL, a
 * query or a comparison. Nothing here imports the rest of Attest.
 */

/** Far above any registered DOI; longer strings are junk, not worth a request. */
const MAX_DOI_LENGTH = 300;

/**
 * `10.`, a registrant code of 4 to 9 digits with optional sub-codes (`10.1000.10`), `/`, and a suffix
 * of visible characters. Every registrant the DOI Foundation has assigned has at least four digits,
 * and Crossref's own pattern for DOIs asks for 4 to 9; `10.1/x` is no DOI anyone can resolve.
 */
const DOI = /^10\.\d{4,9}(?:\.\d+)*\/\S+$/;

/** The resolvers people write before a DOI: `https://doi.org/`, `http://dx.doi.org/`, `www.doi.org/`. */
const DOI_RESOLVER = /^(?:https?:\/\/)?(?:dx\.|www\.)?doi\.org\//i;

/**
 * The DOI as written, without resolver or `doi:` prefix and with URL escapes (`10.1000%2Fx`)
 * decoded, but in its own case and not validated: for messages about a DOI that is wrong.
 */
export function stripDoiPrefix(value: string): string {
  const doi = value
    .trim()
    .replace(DOI_RESOLVER, '')
    .replace(/^doi:\s*/i, '')
    .trim();
  if (!/%[0-9a-f]{2}/i.test(doi)) return doi;
  try {
    return decodeURIComponent(doi);
  } catch {
    // A stray '%' that is not an escape: the DOI as written.
    return doi;
  }
}

function isDoi(bare: string): boolean {
  return bare.length <= MAX_DOI_LENGTH && DOI.test(bare);
}

/** Whether the text, once its prefix is stripped, has the shape of a DOI. */
export function isValidDoi(value: string): boolean {
  return isDoi(stripDoiPrefix(value));
}

/** `https://doi.org/10.1000/X`, `doi:10.1000/X`, `10.1000/X` → `10.1000/x` (DOIs are case-insensitive); undefined when it is no DOI. */
export function normalizeDoi(value: string | undefined): string | undefined {
  const doi = value === undefined ? undefined : stripDoiPrefix(value);
  return doi !== undefined && isDoi(doi) ? doi.toLowerCase() : undefined;
}

/** arXiv registers a DOI for every paper (DataCite): `10.48550/arXiv.2305.18248`. */
const ARXIV_DOI = /^10\.48550\/arxiv\.(.+)$/i;

/** The arXiv identifier inside an arXiv DOI, as written (possibly malformed), or undefined for any other text. */
export function arxivPartOfDoi(doi: string): string | undefined {
  return ARXIV_DOI.exec(stripDoiPrefix(doi))?.[1];
}

export interface ArxivId {
  /** Without version; old-style with its archive in lower case and subject class in capitals: `2305.18248`, `math.AG/0309136`. */
  readonly id: string;
  /** The version asked for (`v2` → 2), if any. */
  readonly version?: number;
  /** Year and month the identifier was assigned. */
  readonly year: number;
  readonly month: number;
}

/** A link to arXiv's abstract or PDF page, whose path is the id: `https://arxiv.org/abs/…`, `export.arxiv.org/pdf/….pdf`. */
const ARXIV_PAGE = /arxiv\.org\/(?:abs|pdf)\/([^?#\s]+?)(?:\.pdf)?\/?(?:[?#]|$)/i;

/** The id part of a link to arXiv's abstract or PDF page, as written (possibly malformed), or undefined. */
export function arxivPartOfUrl(url: string): string | undefined {
  return ARXIV_PAGE.exec(url)?.[1];
}

/** The primary category arXiv's listings print after an id: ` [cs.CL]`, ` [hep-th]`, ` [physics.comp-ph]`. */
const ARXIV_CATEGORY = /\s*\[[a-z-]+(?:\.[a-z-]+)?\]$/i;

/** New-style `2305.18248v2` and old-style `hep-th/9901001`, `math.AG/0309136v1`; groups: the id, its dates, the version. */
const NEW_ARXIV = /^((\d{2})(\d{2})\.(\d{4,5}))(?:v(\d+))?$/i;
const OLD_ARXIV = /^([a-z]+(?:-[a-z]+)*(?:\.[a-z]{2})?\/(\d{2})(\d{2})\d{3})(?:v(\d+))?$/i;

/** The text of an id without what people write around it: a link, an arXiv DOI, `arXiv:`, the category. */
function arxivText(value: string): string {
  const trimmed = value.trim();
  const inner = arxivPartOfUrl(trimmed) ?? arxivPartOfDoi(trimmed) ?? trimmed;
  return inner.replace(/^arxiv:\s*/i, '').replace(ARXIV_CATEGORY, '');
}

/**
 * The id, as written but without version, of text shaped like an arXiv identifier in any form
 * `parseArxivId` reads; its date is not checked, so that a malformed id can still be reported.
 */
export function arxivIdAsWritten(value: string): string | undefined {
  const text = arxivText(value);
  return (NEW_ARXIV.exec(text) ?? OLD_ARXIV.exec(text))?.[1];
}

/**
 * Reads an arXiv identifier, bare (`2101.00001v2`, `hep-th/9901001`), after `arXiv:`, with the
 * listing's category (`1706.03762 [cs.CL]`), as an abs or pdf link, or as an arXiv DOI, and checks
 * that it could have been assigned: new-style ids start in April 2007 (0704) with four-digit numbers
 * until 1412 and five-digit ones from 1501; old-style ids run from 1991 to March 2007. Undefined if
 * the text is no such identifier.
 */
export function parseArxivId(value: string): ArxivId | undefined {
  const text = arxivText(value);
  const version = (digits: string | undefined) => (digits === undefined ? {} : { version: Number(digits) });
  const modern = NEW_ARXIV.exec(text);
  if (modern) {
    const year = 2000 + Number(modern[2]);
    const month = Number(modern[3]);
    const yearMonth = year * 100 + month;
    if (month < 1 || month > 12 || yearMonth < 200704) return undefined;
    if ((modern[4].length === 5) !== yearMonth >= 201501) return undefined;
    return { id: modern[1], ...version(modern[5]), year, month };
  }
  const old = OLD_ARXIV.exec(text);
  if (old) {
    const yy = Number(old[2]);
    const year = yy >= 91 ? 1900 + yy : 2000 + yy;
    const month = Number(old[3]);
    if (month < 1 || month > 12 || year * 100 + month > 200703) return undefined;
    // The archive is lower case, the subject class capitals: `math.AG/0309136`.
    const id = old[1].replace(/^([a-z-]+)(\.[a-z]{2})?/i, (_, archive: string, subject = '') => `${archive.toLowerCase()}${subject.toUpperCase()}`);
    return { id, ...version(old[4]), year, month };
  }
  return undefined;
}

/** The versionless arXiv id in any form `parseArxivId` reads, or undefined. */
export function normalizeArxivId(value: string | undefined): string | undefined {
  return value === undefined ? undefined : parseArxivId(value)?.id;
}

/** The versionless arXiv id of a record or entry, from its arXiv id or else its arXiv DOI. */
export function arxivIdOf(arxivId: string | undefined, doi: string | undefined): string | undefined {
  return normalizeArxivId(arxivId) ?? normalizeArxivId(doi === undefined ? undefined : arxivPartOfDoi(doi));
}

/** PubMed ids are counted up from 1 and have not reached nine digits; more is junk. */
const PMID = /^(?:pmid:?\s*|(?:https?:\/\/)?(?:www\.)?(?:pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov\/pubmed)\/)?(\d{1,9})\/?$/i;

/** `12345678`, `PMID: 12345678`, `https://pubmed.ncbi.nlm.nih.gov/12345678/` → `12345678`; undefined when it is no PubMed id. */
export function normalizePmid(value: string | undefined): string | undefined {
  return value === undefined ? undefined : PMID.exec(value.trim())?.[1];
}

const PMCID = /^(?:(?:https?:\/\/)?(?:www\.)?(?:ncbi\.nlm\.nih\.gov\/pmc|pmc\.ncbi\.nlm\.nih\.gov)\/articles\/)?(?:pmc)?(\d{1,9})\/?$/i;

/**
 * `PMC1234567`, `pmc1234567`, `https://www.ncbi.nlm.nih.gov/pmc/articles/PMC1234567/`, or in a field
 * that holds nothing else `1234567` → `PMC1234567`; undefined when it is no PubMed Central id. Where
 * either id may come, ask `normalizePmid` first: bare digits are both.
 */
export function normalizePmcid(value: string | undefined): string | undefined {
  const digits = value === undefined ? undefined : PMCID.exec(value.trim())?.[1];
  return digits === undefined ? undefined : `PMC${digits}`;
}

/**
 * `978-3-16-148410-0`, `ISBN 3-16-148410-X`, `0 306 40615 2` → the ISBN-13 without separators,
 * `9783161484100`; undefined when it is none or its check digit is wrong. An ISBN-10 becomes the
 * ISBN-13 that the 978 prefix gives it, so one book has one form. Written here rather than taken from
 * isbn3 or validator: they carry the agencies' range table for hyphenation, which Attest does not
 * need, or do not convert; the check digits are two sums.
 */
export function normalizeIsbn(value: string | undefined): string | undefined {
  if (value === undefined || value.length > 40) return undefined;
  const text = value.trim().replace(/^isbn(?:-1[03])?:?\s*/i, '');
  if (!/^[\dXx](?:[\d\s-]*[\dXx])?$/.test(text)) return undefined;
  const digits = text.replace(/[\s-]/g, '').toUpperCase();
  if (/^\d{9}[\dX]$/.test(digits)) return isbn10Valid(digits) ? isbn13Of(`978${digits.slice(0, 9)}`) : undefined;
  if (/^97[89]\d{10}$/.test(digits)) return isbn13Of(digits.slice(0, 12)) === digits ? digits : undefined;
  return undefined;
}

/** The ISBNs of an `isbn` field, which may list a book's several (print, e-book) with commas or semicolons. */
export function isbnsIn(field: string): string[] {
  return field
    .split(/[,;]/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

/** Weights 10 down to 1; the sum is a multiple of 11, `X` standing for 10 in the last place. */
function isbn10Valid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += (10 - i) * (digits[i] === 'X' ? 10 : Number(digits[i]));
  return sum % 11 === 0;
}

/** Twelve digits and their check digit: weights 1 and 3 in turn, the sum completed to a multiple of 10. */
function isbn13Of(twelve: string): string {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * Number(twelve[i]);
  return `${twelve}${(10 - (sum % 10)) % 10}`;
}
