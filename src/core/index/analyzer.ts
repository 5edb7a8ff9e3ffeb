/**
 * The one text analyser of Attest's lexical retrieval: papers are indexed and queries are read with
 * it, so that a claim and the abstract that states it meet on the same terms.
 *
 *   analyze('IL-6 levels rose in COVID-19 patients')
 *     → ['il', '6', 'il6', 'level', 'rose', 'covid', '19', 'covid19', 'patient']
 *
 * Text is folded (accents dropped, Greek letters spelled out, lower case), cut into words, English
 * stopwords are dropped and the rest Porter-stemmed. A hyphenated word gives its parts and the parts
 * joined, because authors write "IL-6", "IL6" and "IL 6" for one thing.
 */
import stemmer from 'stemmer';
import { eng } from 'stopword';
import { GREEK_NAMES } from '../text/greek';

const STOPWORDS = new Set(eng);

const GREEK_LETTER = /[αβγδεϵζηθικλμνξπρσςτυφϕχψω]/g;

/**
 * A decimal number ("0.05", keeping its point), or a word of letters and digits, possibly joined to
 * others by hyphens or dashes ("covid-19", "nf-kappab"), possibly followed by a possessive "'s".
 */
const WORD = /\p{N}+(?:[.,]\p{N}+)+|[\p{L}\p{N}]+(?:[-\u2010\u2011\u2012\u2013][\p{L}\p{N}]+)*(?:['\u2019]s\b)?/gu;
const HYPHENS = /[-\u2010\u2011\u2012\u2013]/;
const POSSESSIVE = /['\u2019]s$/;

/** The text's terms, in order, as the index stores them. */
export function analyze(text: string): string[] {
  const folded = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(GREEK_LETTER, (letter) => GREEK_NAMES[letter]);
  const terms: string[] = [];
  for (const [match] of folded.matchAll(WORD)) {
    const word = match.replace(POSSESSIVE, '');
    const parts = word.split(HYPHENS);
    for (const part of parts) pushTerm(part, terms);
    // "20-40" is a range, not a name.
    if (parts.length > 1 && !parts.every(isNumber)) terms.push(stem(parts.join('')));
  }
  return terms;
}

/** How often each term occurs. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

function pushTerm(word: string, terms: string[]): void {
  // Single letters are initials, list markers and variable names far more often than they are words.
  if (STOPWORDS.has(word) || (word.length === 1 && !isNumber(word))) return;
  terms.push(stem(word));
}

function isNumber(word: string): boolean {
  return /^\p{N}+$/u.test(word);
}

const stems = new Map<string, string>();
const STEM_CACHE_LIMIT = 100_000;

/**
 * Porter rules are written for English words; "p53" or "2019" must stay as they are. Cached, because
 * a corpus repeats a few thousand words millions of times.
 */
function stem(word: string): string {
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = /^[a-z]+$/.test(word) ? stemmer(word) : word;
    if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
    stems.set(word, stemmed);
  }
  return stemmed;
}
