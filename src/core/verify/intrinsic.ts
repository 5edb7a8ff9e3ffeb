import type { Author, BibEntry } from '../bibliography/types';
import { arxivPartOfDoi, arxivPartOfUrl, isbnsIn, isValidDoi, normalizeIsbn, parseArxivId, stripDoiPrefix } from '../identifiers';
import { displayName, normalizeText } from './normalize';

/*
 * What can be said about an entry without asking any source. Each check only fires on something
 * no correct entry contains, because these run on every keystroke over every entry and a false
 * alarm here would be shown for a reference that is fine.
 */

export type IntrinsicIssueCode = 'future-year' | 'placeholder-author' | 'malformed-doi' | 'malformed-arxiv-id' | 'malformed-isbn';

export interface IntrinsicIssue {
  readonly code: IntrinsicIssueCode;
  readonly field: 'year' | 'authors' | 'doi' | 'arxiv' | 'isbn';
  readonly message: string;
}

export interface IntrinsicOptions {
  /** The present, for the future-year and arXiv-date checks; the clock by default. */
  readonly now?: Date;
}

export function checkIntrinsic(entry: BibEntry, options: IntrinsicOptions = {}): IntrinsicIssue[] {
  const now = options.now ?? new Date();
  return [...yearIssues(entry, now), ...placeholderIssues(entry.authors), ...doiIssues(entry, now), ...arxivIssues(entry, now), ...isbnIssues(entry)];
}

/**
 * Only years after next year: a journal article published online now often belongs to next
 * year's volume, and "to appear" entries carry that year legitimately.
 */
function yearIssues(entry: BibEntry, now: Date): IntrinsicIssue[] {
  if (entry.year === undefined || entry.year <= now.getUTCFullYear() + 1) return [];
  return [{ code: 'future-year', field: 'year', message: `The year ${entry.year} is in the future` }];
}

// ---------------------------------------------------------------------------------------
// Placeholder authors

/**
 * Words that template and generated bibliographies put where a name goes. A name is a placeholder
 * only if it consists of these and initials: "Foo" and "Bar" are both real family names, "Foo Bar"
 * is not a person. "Anonymous" is left alone: anonymous works and double-blind submissions are
 * cited that way on purpose.
 */
const PLACEHOLDER_WORDS = new Set([
  'author',
  'authors',
  'name',
  'names',
  'surname',
  'lastname',
  'firstname',
  'familyname',
  'givenname',
  'first',
  'second',
  'third',
  'last',
  'given',
  'family',
  'your',
  'placeholder',
  'tbd',
  'tba',
  'todo',
  'fixme',
  'lorem',
  'ipsum',
  'foo',
  'bar',
  'baz',
  'someone',
  'somebody',
]);

function placeholderIssues(authors: readonly Author[]): IntrinsicIssue[] {
  const seen = new Set<string>();
  const issues: IntrinsicIssue[] = [];
  for (const author of authors) {
    const shown = displayName(author);
    if (!isPlaceholder(author) || seen.has(shown)) continue;
    seen.add(shown);
    issues.push({ code: 'placeholder-author', field: 'authors', message: `"${shown}" looks like a placeholder, not an author's name` });
  }
  return issues;
}

function isPlaceholder(author: Author): boolean {
  const family = normalizeText(author.family ?? author.literal ?? '');
  const given = normalizeText(author.given ?? '')
    .split(' ')
    .filter((w) => w !== '');
  // John and Jane Doe are the standard made-up people, but real people have those names too, and
  // other Does are real: only a Doe with no first name, or none but a J., stands for nobody.
  if (family === 'doe' && (given.length === 0 || (given[0] === 'j' && given.every((w) => w.length === 1)))) return true;
  // Digits go first so that "Author1" and "Author 2" read as the placeholder word.
  const words = normalizeText(`${given.join(' ')} ${family}`.replace(/\d+/g, ' '))
    .split(' ')
    .filter((w) => w !== '');
  if (words.length === 0) return false;
  // "et al." where a name goes: the rest of a list, written as an author.
  if (words.join(' ') === 'et al') return true;
  if (words.every((w) => /^x{2,}$/.test(w))) return true;
  return words.some((w) => PLACEHOLDER_WORDS.has(w)) && words.every((w) => PLACEHOLDER_WORDS.has(w) || w.length === 1);
}

// ---------------------------------------------------------------------------------------
// Identifiers

function doiIssues(entry: BibEntry, now: Date): IntrinsicIssue[] {
  if (entry.doi === undefined) return [];
  const doi = stripDoiPrefix(entry.doi);
  if (!isValidDoi(doi)) {
    return [
      {
        code: 'malformed-doi',
        field: 'doi',
        message: `"${doi}" is not a DOI: a DOI is "10.", a registrant number of 4 to 9 digits, "/" and a suffix`,
      },
    ];
  }
  const arxivPart = arxivPartOfDoi(doi);
  const problem = arxivPart === undefined ? undefined : arxivProblem(arxivPart, now);
  return problem === undefined ? [] : [{ code: 'malformed-doi', field: 'doi', message: `"${doi}" is an arXiv DOI, but ${problem}` }];
}

/** The arXiv id of the entry and the one in its arxiv.org link, each checked once. */
function arxivIssues(entry: BibEntry, now: Date): IntrinsicIssue[] {
  const ids = new Set<string>();
  if (entry.arxivId !== undefined) ids.add(entry.arxivId.trim());
  const fromUrl = entry.url === undefined ? undefined : arxivPartOfUrl(entry.url);
  if (fromUrl !== undefined) ids.add(fromUrl.replace(/v\d+$/, ''));
  const issues: IntrinsicIssue[] = [];
  for (const id of ids) {
    const problem = arxivProblem(id, now);
    if (problem !== undefined) issues.push({ code: 'malformed-arxiv-id', field: 'arxiv', message: capitalise(problem) });
  }
  return issues;
}

/**
 * Each ISBN of the entry whose check digit is wrong, or which has neither 10 nor 13 digits: a typo, or
 * a number made up, which no library catalogue answers for.
 */
function isbnIssues(entry: BibEntry): IntrinsicIssue[] {
  if (entry.isbn === undefined) return [];
  return isbnsIn(entry.isbn)
    .filter((isbn) => normalizeIsbn(isbn) === undefined)
    .map((isbn) => ({
      code: 'malformed-isbn',
      field: 'isbn',
      message: `"${isbn}" is not an ISBN: an ISBN has 10 or 13 digits, the last a check digit that these do not give`,
    }));
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Why `id` cannot be an arXiv identifier, or undefined if it can. */
function arxivProblem(id: string, now: Date): string | undefined {
  const parsed = parseArxivId(id);
  if (parsed === undefined) {
    return `"${id}" is not an arXiv identifier: they look like 2305.18248 (since 2007) or hep-th/9901001 (before)`;
  }
  const assigned = parsed.year * 12 + parsed.month - 1;
  if (assigned > now.getUTCFullYear() * 12 + now.getUTCMonth()) {
    return `the arXiv identifier ${parsed.id} would be from ${MONTHS[parsed.month - 1]} ${parsed.year}, which has not come yet`;
  }
  return undefined;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
