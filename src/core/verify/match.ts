import { distance } from 'fastest-levenshtein';
import type { Author, BibEntry } from '../bibliography/types';
import { arxivIdOf, arxivPartOfDoi, normalizeDoi, parseArxivId } from '../identifiers';
import type { SourceRecord } from '../sources/types';
import {
  displayName,
  mainTitle,
  nameKey,
  normalizeText,
  significantWordCount,
  titleWords,
  venueWords,
  withoutRetractionMark,
  type NameKey,
  type VenueWord,
  type VenueWords,
} from './normalize';

/*
 * Deciding whether a record a source returned is the work a .bib entry cites.
 *
 * Two mistakes are possible and they are not equally bad. Taking a different paper for the cited
 * one hides a fabricated reference behind a list of "differences"; rejecting the right paper
 * makes the resolver report a real paper as possibly fabricated, which users rightly never
 * forgive. So a record is accepted on any strong evidence (a shared DOI or arXiv id, the same
 * title, a very similar title by the same first author), and once accepted every field is
 * compared leniently: a difference is reported only when no ordinary variation of the same
 * metadata (abbreviations, preprint versus published version, online versus print year)
 * explains it.
 */

export type MatchField = 'title' | 'authors' | 'year' | 'venue' | 'doi' | 'arxiv';

/** `unknown`: one side has no value, or the values cannot be compared (a preprint's venue). */
export type FieldStatus = 'agree' | 'differ' | 'unknown';

export interface FieldComparison {
  readonly field: MatchField;
  readonly status: FieldStatus;
  /** The entry's value, for messages. */
  readonly expected?: string;
  /** The record's value. */
  readonly found?: string;
  /** What exactly differs, or why values that are not identical were accepted. */
  readonly note?: string;
  /**
   * A difference the conferences' rules call a hallucinated reference rather than an error to report:
   * an author list mostly not the work's, a venue that does not exist.
   */
  readonly hallucinated?: true;
}

/** A field on which the entry and the record disagree; both then have a value. */
export type FieldDifference = FieldComparison & { readonly status: 'differ'; readonly expected: string; readonly found: string };

export type MatchDecision = 'same-work' | 'same-work-with-differences' | 'different-work';

/** What showed that the record is the entry's work. */
export type Identification = 'doi' | 'arxiv' | 'title';

export interface MatchResult {
  readonly decision: MatchDecision;
  /** Absent exactly when the decision is `different-work`. */
  readonly identifiedBy?: Identification;
  readonly record: SourceRecord;
  /** Every field, in the order of `MatchField`. */
  readonly fields: readonly FieldComparison[];
  /** The fields whose status is `differ`; for a different work they describe the other paper. */
  readonly differences: readonly FieldDifference[];
  /** 0–1, see `compareTitles`. */
  readonly titleSimilarity: number;
  /** Higher is a closer match; only meaningful between records compared with the same entry. */
  readonly score: number;
}

/**
 * Below this title similarity a record is another paper even if it shares the entry's DOI: the DOI
 * was copied from elsewhere or the rest of the entry was made up around it.
 */
const UNRELATED_TITLE = 0.6;

/**
 * Titles at least this similar, by the same first author and half the authors, are one work whose
 * title was misremembered. A word changed in a title scores 0.78–0.90 ("Robust"/"Resilient Dynamic
 * Radiance Fields", "… with"/"… from Human Feedback"); two papers of one group on one subject score
 * lower ("Deep residual learning for image recognition"/"Identity mappings in deep residual
 * networks" 0.18, AlphaGo's "… with deep neural networks and tree search"/"… without human
 * knowledge" 0.56).
 */
const SIMILAR_TITLE = 0.75;

/** Titles that differ in a number or a part ("Part II", "GPT-3"/"GPT-4") name different works. */
const DIFFERENT_NUMBERS_CAP = 0.7;

/**
 * Whether a record found by the entry's DOI or PubMed id is clearly another work: its title is
 * unrelated to the entry's (neither the same title with another spelling or subtitle, nor its
 * beginning), whoever the authors are, since a group's other paper shares its authors.
 */
export function titlesConflict(entry: BibEntry, record: SourceRecord): boolean {
  const title = compareTitles(entry.title, record.title);
  return title.field.status === 'differ' && !title.shortened && title.similarity < UNRELATED_TITLE;
}

export function compareEntryToRecord(entry: BibEntry, record: SourceRecord): MatchResult {
  const title = compareTitles(entry.title, record.title);
  const authors = compareAuthorLists(entry.authors, record.authors, entry.authorsTruncated === true);
  const year = compareYears(entry.year, record.year);
  const venue = compareVenues(entry.venue, record.venue);
  const doi = compareDois(entry.doi, record.doi);
  const arxiv = compareArxivIds(arxivIdOf(entry.arxivId, entry.doi), arxivIdOf(record.arxivId, record.doi));
  const fields = [title.field, authors.field, year, venue, doi, arxiv];
  const differences = fields.filter(isDifference);

  const identifiedBy = identify(entry, title, authors, year, doi, arxiv);
  const decision: MatchDecision = identifiedBy === undefined ? 'different-work' : differences.length === 0 ? 'same-work' : 'same-work-with-differences';
  // The title dominates; authors and dates separate versions of one work; an identifier settles it.
  const score =
    title.similarity +
    0.5 * authors.f1 +
    (year.status === 'agree' ? (year.note === undefined ? 0.2 : 0.1) : 0) +
    (venue.status === 'agree' ? 0.1 : 0) +
    (doi.status === 'agree' || arxiv.status === 'agree' ? 0.5 : 0);
  return { decision, identifiedBy, record, fields, differences, titleSimilarity: title.similarity, score };
}

/**
 * Among the results of a title search, the record that is the entry's work; undefined when none
 * is. A record that agrees on everything wins over a closer-looking one with differences, so that
 * a correct entry is never reported as mismatched because a sibling version was returned first.
 */
export function pickBestMatch(entry: BibEntry, candidates: readonly SourceRecord[]): MatchResult | undefined {
  let best: MatchResult | undefined;
  for (const candidate of candidates) {
    const result = compareEntryToRecord(entry, candidate);
    if (result.decision === 'different-work') continue;
    if (best === undefined || rank(result) > rank(best) || (rank(result) === rank(best) && result.score > best.score)) {
      best = result;
    }
  }
  return best;
}

function isDifference(field: FieldComparison): field is FieldDifference {
  return field.status === 'differ' && field.expected !== undefined && field.found !== undefined;
}

function rank(result: MatchResult): number {
  return result.decision === 'same-work' ? 1 : 0;
}

function identify(
  entry: BibEntry,
  title: TitleComparison,
  authors: AuthorComparison,
  year: FieldComparison,
  doi: FieldComparison,
  arxiv: FieldComparison,
): Identification | undefined {
  const authorsKnown = authors.entryCount > 0 && authors.recordCount > 0;
  const sharesAuthor = authors.matched > 0;
  const strong: Identification | undefined = doi.status === 'agree' ? 'doi' : arxiv.status === 'agree' ? 'arxiv' : undefined;
  if (strong !== undefined) {
    const titleUnrelated = title.field.status !== 'unknown' && title.similarity < UNRELATED_TITLE;
    return titleUnrelated && !sharesAuthor ? undefined : strong;
  }
  if (title.field.status === 'agree') {
    // The same title with none of the same authors: one work cited with wrong authors, unless the
    // title is so generic ("Deep learning") that different works share it.
    if (sharesAuthor || !authorsKnown || isDistinctive(entry.title ?? '', year)) return 'title';
    return undefined;
  }
  const sameLeadAuthors = authorsKnown && authors.firstAuthorMatches && authors.matched / authors.entryCount >= 0.5;
  return (title.similarity >= SIMILAR_TITLE || title.shortened) && sameLeadAuthors ? 'title' : undefined;
}

function isDistinctive(title: string, year: FieldComparison): boolean {
  const words = significantWordCount(titleWords(title));
  return words >= 4 || (words >= 3 && year.status === 'agree');
}

// ---------------------------------------------------------------------------------------
// Titles

export interface TitleComparison {
  readonly field: FieldComparison;
  /**
   * 1 for the same title, 0.95 when one title is the other without its subtitle, otherwise one
   * minus the edit distance between the normalised titles over the longer one's length.
   * Character edits rather than shared words, because what separates two spellings of one title
   * is character-level (hyphenation, British spelling, a typo, a dropped plural), which costs a few
   * edits, while two works on one topic share many words but differ in the rest, which costs many.
   */
  readonly similarity: number;
  /** One title is the beginning of the other, long enough to be meant as it ("Deep residual learning"). */
  readonly shortened: boolean;
}

export function compareTitles(expectedTitle: string | undefined, foundTitle: string | undefined): TitleComparison {
  const base = { field: 'title' as const, expected: expectedTitle, found: foundTitle };
  // "RETRACTED: " before a record's title (or an entry's copied from it) says what became of the work; it is no difference of title.
  const expected = expectedTitle === undefined ? undefined : withoutRetractionMark(expectedTitle);
  const found = foundTitle === undefined ? undefined : withoutRetractionMark(foundTitle);
  const a = expected === undefined ? [] : titleWords(expected);
  const b = found === undefined ? [] : titleWords(found);
  if (a.length === 0 || b.length === 0) return { field: { ...base, status: 'unknown' }, similarity: 0, shortened: false };
  const joinedA = a.join('');
  const joinedB = b.join('');
  const spaced = (words: readonly string[]): string => words.join(' ');
  const ratio = 1 - distance(spaced(a), spaced(b)) / Math.max(spaced(a).length, spaced(b).length);
  if (joinedA === joinedB) return { field: { ...base, status: 'agree' }, similarity: 1, shortened: false };
  if (onlySpellingDiffers(a, b)) {
    return { field: { ...base, status: 'agree', note: 'differs only in spelling' }, similarity: ratio, shortened: false };
  }
  const subtitle = subtitleRelation(expected ?? '', found ?? '', joinedA, joinedB);
  if (subtitle !== undefined) return { field: { ...base, status: 'agree', note: subtitle }, similarity: 0.95, shortened: false };
  const numbersAgree = sameNumbers(a, b);
  const similarity = numbersAgree ? ratio : Math.min(ratio, DIFFERENT_NUMBERS_CAP);
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  // Only the end may be missing: "Improved denoising diffusion models" is a paper of its own.
  const shortened = numbersAgree && significantWordCount(shorter) >= 3 && shorter.every((w, i) => longer[i] === w);
  return { field: { ...base, status: 'differ' }, similarity, shortened };
}

/**
 * Word-for-word the same but for a few longer words one or two letters apart and not by a plural
 * ending: "modelling"/"modeling", "optimisation"/"optimization", a typo. A changed plural is a
 * different title in the near-miss sense ("Embedding" for "Embeddings") and is not excused.
 */
function onlySpellingDiffers(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  let changed = 0;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) continue;
    const [x, y] = a[i].length <= b[i].length ? [a[i], b[i]] : [b[i], a[i]];
    const plural = y === `${x}s` || y === `${x}es`;
    if (plural || x.length < 5 || /\d/.test(x + y) || distance(x, y) > 2 || ++changed > 2) return false;
  }
  return true;
}

/** Whether one title is the other without a subtitle; a main title must say enough to stand alone. */
function subtitleRelation(expected: string, found: string, joinedA: string, joinedB: string): string | undefined {
  const mainOf = (title: string): string[] | undefined => {
    const main = mainTitle(title);
    const words = main === undefined ? undefined : titleWords(main);
    return words !== undefined && significantWordCount(words) >= 2 ? words : undefined;
  };
  if (mainOf(found)?.join('') === joinedA) return 'the entry omits the subtitle';
  if (mainOf(expected)?.join('') === joinedB) return 'the record has no subtitle';
  return undefined;
}

function sameNumbers(a: readonly string[], b: readonly string[]): boolean {
  const numbers = (words: readonly string[]): string =>
    [...(words.join('').match(/\d+/g) ?? []), ...words.filter((w) => /^(?:ii|iii|iv|vi|vii|viii|ix)$/.test(w))].sort().join(' ');
  return numbers(a) === numbers(b);
}

// ---------------------------------------------------------------------------------------
// Authors

export interface AuthorComparison {
  readonly field: FieldComparison;
  /** Authors of the entry, without an "et al." written as a name. */
  readonly entryCount: number;
  readonly recordCount: number;
  /** Entry authors found on the record. */
  readonly matched: number;
  readonly firstAuthorMatches: boolean;
  /** Agreement of the two lists, 0–1; only the listed part when the entry is truncated. */
  readonly f1: number;
}

/** Names shown in a message before "et al.". */
const SHOWN_NAMES = 8;

/** A record with this many authors may have been cut short by its source. */
const LONG_AUTHOR_LIST = 10;

export function compareAuthorLists(expected: readonly Author[], found: readonly Author[], truncated: boolean): AuthorComparison {
  const listed = expected.filter((a) => !isEtAl(a));
  const isTruncated = truncated || listed.length < expected.length;
  const base = { field: 'authors' as const, expected: describeAuthors(listed, isTruncated), found: describeAuthors(found, false) };
  if (listed.length === 0 || found.length === 0) {
    const field: FieldComparison = { ...base, status: 'unknown' };
    return { field, entryCount: listed.length, recordCount: found.length, matched: 0, firstAuthorMatches: false, f1: 0 };
  }
  const expectedKeys = listed.map(nameKey);
  const foundKeys = found.map(nameKey);
  const partner = pairNames(expectedKeys, foundKeys);
  const matched = partner.filter((j) => j >= 0).length;
  const firstAuthorMatches = partner[0] === 0;

  // Some sources list only the first authors of a long paper; the rest of the entry's list is then
  // neither confirmed nor contradicted.
  const recordCut = found.length >= LONG_AUTHOR_LIST && found.every((_, j) => partner[j] === j);
  const notOnRecord = recordCut ? [] : listed.filter((_, i) => partner[i] < 0);
  const used = new Set(partner);
  const missing = isTruncated ? [] : found.filter((_, j) => !used.has(j));
  const notes: string[] = [];
  if (notOnRecord.length > 0) notes.push(`not on the record: ${namesOf(notOnRecord)}`);
  if (!firstAuthorMatches) notes.push(`the record's first author is ${familyOf(found[0])}`);
  if (missing.length > 0) notes.push(`missing from the entry: ${namesOf(missing)}`);
  const status: FieldStatus = notes.length === 0 ? 'agree' : 'differ';
  const f1 = isTruncated ? matched / listed.length : (2 * matched) / (listed.length + found.length);
  // Fewer than half of the names cited are the work's: an author list made up, not misspelt.
  const mostlyWrong = notOnRecord.length * 2 > listed.length;
  const field: FieldComparison = notes.length === 0 ? { ...base, status } : { ...base, status, note: notes.join('; '), ...(mostlyWrong && { hallucinated: true as const }) };
  return { field, entryCount: listed.length, recordCount: found.length, matched, firstAuthorMatches, f1 };
}

/** "et al." typed as an author: it means the list is truncated, not a person called Al. */
function isEtAl(author: Author): boolean {
  const text = normalizeText([author.given, author.family, author.literal].filter((p) => p !== undefined).join(' '));
  return text === 'et al' || text === 'al et' || text === 'etal' || text === 'others';
}

/**
 * For each expected name, the index of the found name it is, or -1. Each found name is used once;
 * the same position is tried first so that two co-authors sharing a family name pair up in order.
 */
function pairNames(expected: readonly NameKey[], found: readonly NameKey[]): number[] {
  const used = new Set<number>();
  return expected.map((name, i) => {
    const order = i < found.length ? [i, ...found.keys()] : [...found.keys()];
    const j = order.find((k) => !used.has(k) && sameName(name, found[k]));
    if (j === undefined) return -1;
    used.add(j);
    return j;
  });
}

function sameName(a: NameKey, b: NameKey): boolean {
  if (a.organisation || b.organisation) return sameFamily(a.family, b.family);
  if (sameFamily(a.family, b.family)) return initialsCompatible(a.initials, b.initials);
  // Given and family swapped by one side, as happens with East Asian names.
  return a.given.length > 0 && b.given.length > 0 && sameFamily(a.family, b.given) && sameFamily(a.given, b.family);
}

/**
 * Family names are the same when their letters are, allowing for German transliteration
 * (Müller/Mueller), a double name given in part (Martín-Brualla/Brualla), and one typo in a long
 * name; within one paper's author list these cannot make two different people collide.
 */
function sameFamily(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  const x = a.join('');
  const y = b.join('');
  if (x === y || foldTransliteration(x) === foldTransliteration(y)) return true;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  if (shorter.length < longer.length && shorter.every((w) => longer.includes(w))) return true;
  return Math.min(x.length, y.length) >= 7 && distance(x, y) <= 1;
}

function foldTransliteration(name: string): string {
  return name.replace(/ae/g, 'a').replace(/oe/g, 'o').replace(/ue/g, 'u');
}

/** "J. Smith" is "John Smith"; "H. Vincent Poor" is "Vincent Poor"; "K. Lee" is not "Lisa Lee". */
function initialsCompatible(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return true;
  return b.includes(a[0]) || a.includes(b[0]);
}

function familyOf(author: Author): string {
  return author.family ?? author.literal ?? author.given ?? '';
}

function namesOf(authors: readonly Author[]): string {
  const names = authors.slice(0, SHOWN_NAMES).map(familyOf);
  return authors.length > SHOWN_NAMES ? `${names.join(', ')} and ${authors.length - SHOWN_NAMES} more` : names.join(', ');
}

function describeAuthors(authors: readonly Author[], truncated: boolean): string | undefined {
  if (authors.length === 0) return undefined;
  const shown = authors.slice(0, SHOWN_NAMES).map(displayName).join('; ');
  return authors.length > SHOWN_NAMES || truncated ? `${shown}; et al.` : shown;
}

// ---------------------------------------------------------------------------------------
// Year

/**
 * A year one off is accepted: the arXiv version precedes the published one, journals publish
 * online a year before the issue, and proceedings carry the year after the conference. None of it
 * makes a citation wrong.
 */
export function compareYears(expected: number | undefined, found: number | undefined): FieldComparison {
  const base = { field: 'year' as const, expected: expected?.toString(), found: found?.toString() };
  if (expected === undefined || found === undefined) return { ...base, status: 'unknown' };
  const delta = Math.abs(expected - found);
  if (delta === 0) return { ...base, status: 'agree' };
  if (delta === 1) return { ...base, status: 'agree', note: 'one year apart, as preprint and published or online and print dates often are' };
  return { ...base, status: 'differ' };
}

// ---------------------------------------------------------------------------------------
// Venue

/**
 * Venues are written in many ways: "CVPR", "Proc. of the IEEE Conf. on CVPR", "2022 IEEE/CVF
 * Conference on Computer Vision and Pattern Recognition (CVPR)". They agree when, after dropping
 * years, ordinals and words like "Proceedings" or "International", they are the same words, one is
 * a single word of the other, one abbreviates the other word by word ("J. Mach. Learn. Res."), or
 * one is the other's acronym. A preprint server or a publisher's series says nothing about where a
 * paper appeared, so it is never a mismatch. Only venues that are clearly different are reported.
 */
export function compareVenues(expected: string | undefined, found: string | undefined): FieldComparison {
  const base = { field: 'venue' as const, expected, found };
  const a = expected === undefined ? undefined : venueWords(expected);
  const b = found === undefined ? undefined : venueWords(found);
  if (a === undefined || b === undefined || a.words.length === 0 || b.words.length === 0) return { ...base, status: 'unknown' };
  if (a.preprint || b.preprint) {
    const note = a.preprint ? 'the entry cites the preprint' : 'the record is the preprint, which does not confirm or refute the venue';
    return { ...base, status: b.preprint && a.preprint ? 'agree' : 'unknown', note };
  }
  if (a.host || b.host) return { ...base, status: 'unknown', note: 'a publisher series, not a venue' };
  return { ...base, status: venuesAgree(a, b) ? 'agree' : 'differ' };
}

function venuesAgree(a: VenueWords, b: VenueWords): boolean {
  const x = a.words.filter((w) => !w.generic);
  const y = b.words.filter((w) => !w.generic);
  if (x.length === 0 || y.length === 0) return false;
  const texts = (words: readonly VenueWord[]): string[] => words.map((w) => w.text);
  if (texts(x).join(' ') === texts(y).join(' ')) return true;
  // One name inside a longer one: "CVPR" in "… Conference on CVPR", "NeurIPS" in "NeurIPS Workshop on …".
  // Several words must match all of it: "Quantum Machine Learning" is not "Machine Learning".
  if ((x.length === 1 && texts(y).includes(x[0].text)) || (y.length === 1 && texts(x).includes(y[0].text))) return true;
  if (abbreviates(a.words, b.words) || abbreviates(b.words, a.words)) return true;
  return isAcronymOf(x, b) || isAcronymOf(y, a);
}

/**
 * Each word of `short` begins a word of `long`, in order, and every other word of `long` is
 * generic: "IEEE Trans. Pattern Anal. Mach. Intell." for "IEEE Transactions on Pattern Analysis
 * and Machine Intelligence".
 */
function abbreviates(short: readonly VenueWord[], long: readonly VenueWord[]): boolean {
  // A single word would make "ICML" an abbreviation of "ICMLA", another conference.
  if (short.filter((w) => !w.generic).length < 2) return false;
  let j = 0;
  for (const word of short) {
    while (j < long.length && !long[j].text.startsWith(word.text) && long[j].generic) j++;
    if (j < long.length && long[j].text.startsWith(word.text)) j++;
    else if (!word.generic) return false;
  }
  return long.slice(j).every((w) => w.generic);
}

/**
 * A name made of acronyms, each the initials of the other venue's words or a known alias of it:
 * "ICLR", "NAACL-HLT". A lone word counts as an acronym however it is capitalised ("icml").
 */
function isAcronymOf(names: readonly VenueWord[], other: VenueWords): boolean {
  if (names.length > 1 && !names.every((w) => w.acronym)) return false;
  const words = other.words.map((w) => w.text);
  const initials = (ws: readonly string[]): string => ws.map((w) => w[0]).join('');
  const spelled = [initials(words), initials(other.words.flatMap((w) => w.withStopwords))];
  return names.every(({ text }) => text.length >= 3 && (words.includes(text) || other.acronyms.includes(text) || spelled.some((s) => s.includes(text))));
}

// ---------------------------------------------------------------------------------------
// Identifiers

/**
 * A paper often has two DOIs, arXiv's (10.48550/arXiv.…) and its publisher's; one of each is no
 * disagreement. Two publisher DOIs that differ are, and a DOI that resolved to this record was
 * already found to agree.
 */
export function compareDois(expected: string | undefined, found: string | undefined): FieldComparison {
  const base = { field: 'doi' as const, expected, found };
  if (expected === undefined || found === undefined) return { ...base, status: 'unknown' };
  const a = normalizeDoi(expected) ?? expected.trim().toLowerCase();
  const b = normalizeDoi(found) ?? found.trim().toLowerCase();
  if (a === b) return { ...base, status: 'agree' };
  const arxivA = arxivPartOfDoi(a);
  const arxivB = arxivPartOfDoi(b);
  if (arxivA !== undefined && arxivB !== undefined) {
    const idA = parseArxivId(arxivA)?.id.toLowerCase();
    const same = idA !== undefined && idA === parseArxivId(arxivB)?.id.toLowerCase();
    return same ? { ...base, status: 'agree', note: 'the same arXiv paper, another version' } : { ...base, status: 'differ' };
  }
  if (arxivA !== undefined || arxivB !== undefined) {
    return { ...base, status: 'unknown', note: "one is arXiv's DOI, the other the publisher's" };
  }
  return { ...base, status: 'differ' };
}

/** Versionless arXiv ids, as `arxivIdOf` returns them. */
function compareArxivIds(expected: string | undefined, found: string | undefined): FieldComparison {
  const base = { field: 'arxiv' as const, expected, found };
  if (expected === undefined || found === undefined) return { ...base, status: 'unknown' };
  return { ...base, status: expected.toLowerCase() === found.toLowerCase() ? 'agree' : 'differ' };
}
