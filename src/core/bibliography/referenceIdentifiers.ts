import { normalizeDoi, parseArxivId } from '../identifiers';

/** The identifiers a reference written as text carries, each in the form the sources are asked in. */
export interface ReferenceIdentifiers {
  readonly doi?: string;
  readonly arxivId?: string;
  /** PubMed's id, digits only. */
  readonly pmid?: string;
  readonly url?: string;
  /** As written after "ISBN", so that a wrong check digit is reported rather than passed over. */
  readonly isbn?: string;
}

// One pass each over a bounded reference text. A DOI's suffix runs to whitespace or a closing quote,
// brace or angle bracket; the punctuation that ends a sentence after it is not part of it.
const DOI_IN_TEXT = /\b(10\.\d{4,9}(?:\.\d+)*\/[^\s"<>{}]+)/i;
const ARXIV_IN_TEXT = /\barxiv(?:\s*(?:preprint|e-prints?))?\s*(?:arxiv)?\s*[:/]?\s*(?:abs\/)?((?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?\/\d{7})(?:v\d+)?)/i;
const ARXIV_URL = /arxiv\.org\/(?:abs|pdf)\/((?:\d{4}\.\d{4,5}|[a-z-]+(?:\.[a-z]{2})?\/\d{7})(?:v\d+)?)/i;
const PMID_IN_TEXT = /\bPMID\s*:?\s*(\d{1,9})\b/;
/** "ISBN 978-0-262-03384-8", "ISBN-10: 0-262-03384-4": ten or thirteen digits (the last may be X) with spaces or hyphens. */
const ISBN_IN_TEXT = /\bISBN(?:-1[03])?\s*:?\s*((?:\d[\s-]?){9,12}[\dXx])(?![\dXx])/i;
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"<>{}]+/i;
const TRAILING_PUNCTUATION = /[.,;:)\]]+$/;

/**
 * The DOI, arXiv id, PubMed id, ISBN and URL written in a reference's text, validated by the rules every
 * identifier in Attest goes through (`identifiers.ts`).
 */
export function identifiersIn(text: string): ReferenceIdentifiers {
  const doiText = DOI_IN_TEXT.exec(text)?.[1]?.replace(TRAILING_PUNCTUATION, '');
  const doi = doiText === undefined ? undefined : normalizeDoi(doiText);
  const arxivText = (ARXIV_URL.exec(text) ?? ARXIV_IN_TEXT.exec(text))?.[1];
  const arxivId = arxivText !== undefined && parseArxivId(arxivText) ? arxivText : undefined;
  const pmid = PMID_IN_TEXT.exec(text)?.[1];
  const isbn = ISBN_IN_TEXT.exec(text)?.[1];
  const urlText = URL_IN_TEXT.exec(text)?.[0]?.replace(TRAILING_PUNCTUATION, '');
  // A DOI's resolver address is the DOI, not a web page of its own.
  const url = urlText !== undefined && !/doi\.org\//i.test(urlText) ? urlText : undefined;
  return { ...(doi && { doi }), ...(arxivId && { arxivId }), ...(pmid && { pmid }), ...(url && { url }), ...(isbn && { isbn }) };
}
