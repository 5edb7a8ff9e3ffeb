/**
 * DOIs and URLs as BibTeX values. Styles print them verbatim (biblatex's verbatim fields, `\url`,
 * `\doi`), so they are never LaTeX-escaped (`\_` would become part of the DOI); they are validated
 * instead, so that no value from outside can close its braces and start an entry, a `@preamble` or a
 * TeX command (`\input`, or `^^5c`, which TeX reads as a backslash).
 */
import { isValidDoi, stripDoiPrefix } from '../identifiers';
import { isWebLink } from '../webLink';

/** Far above any link to a paper. */
const MAX_URL_LENGTH = 2000;

/** What a DOI may hold but a BibTeX value may not: what could end the value or start a command or a comment in the styles that print the DOI as text. */
const UNSAFE_IN_DOI = /[{}\\^%\p{C}]/u;

/** The DOI as a BibTeX value (without a resolver prefix), or undefined when it is not one to write. */
export function bibtexDoi(value: string): string | undefined {
  const doi = stripDoiPrefix(value);
  return isValidDoi(doi) && !UNSAFE_IN_DOI.test(doi) ? doi : undefined;
}

/**
 * What a parsed URL may still hold but a BibTeX value may not: its `href` is ASCII without whitespace
 * or controls, but keeps braces, backslashes and `^` in a query or fragment.
 */
const UNSAFE_IN_URL = /[{}\\^]/g;

/**
 * An http(s) URL as a BibTeX value, the characters that could end the value or make a command
 * percent-encoded (which a web server reads as the same address), or undefined when it is not a web
 * address or is too long to be a link.
 */
export function bibtexUrl(value: string): string | undefined {
  const text = value.trim();
  if (!isWebLink(text)) return undefined;
  const url = new URL(text).href.replace(UNSAFE_IN_URL, encodeURIComponent);
  return url.length <= MAX_URL_LENGTH ? url : undefined;
}
