import type { Author } from '../bibliography/types';
import { GREEK_NAMES } from '../text/greek';

/*
 * Bibliographic strings reach us from .bib files (LaTeX already turned into Unicode by the
 * reader, but braces and stray commands survive) and from APIs (HTML tags and entities in
 * Crossref titles, MathML, DBLP homonym numbers). Everything is compared in one plain form:
 * lower-case ASCII-ish words separated by single spaces.
 */

const HTML_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Letters NFKD does not decompose into a base letter and a combining mark. */
const SPECIAL_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
  ŋ: 'ng',
};

/** Any letter written out above or in GREEK_NAMES: one pass of a regular expression, not a function call a character. */
const SPELLED_OUT = new RegExp(`[${[...Object.keys(SPECIAL_LETTERS), ...Object.keys(GREEK_NAMES)].join('')}]`, 'gu');

/** LaTeX commands that only format their argument; their names are not words of the text. */
const FORMATTING_COMMANDS =
  /\\(?:emph|textit|textbf|textsc|texttt|textrm|textsf|textup|textnormal|text|mathrm|mathbf|mathit|mathcal|mathbb|mathsf|mathtt|mathfrak|boldsymbol|bm|operatorname|url|href|mbox|hbox|uppercase|lowercase|MakeUppercase|MakeLowercase|NoCaseChange|protect|relax)\b\s*/g;

/** Accent commands the .bib reader normally resolves, for strings that did not go through it. */
const LATEX_ACCENT = /\\(?:['"`^~=.]|[uvHcdbtrk](?![a-zA-Z]))\s*\{?\s*(\\?[a-zA-Z])\s*\}?/g;

/** Lower-case words separated by single spaces: no accents, markup, punctuation or case. */
export function normalizeText(value: string): string {
  let text = value
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => decodeEntity(name) ?? whole)
    .replace(/<\/?[a-z][^<>]*>/gi, ' ')
    .replace(LATEX_ACCENT, (_, letter: string) => letter.replace('\\', ''))
    .replace(FORMATTING_COMMANDS, ' ')
    .replace(/\\&/g, '&')
    // Any other command is probably a symbol whose name is the word: \alpha, \ell, \LaTeX.
    .replace(/\\([a-zA-Z]+)/g, ' $1 ')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase();
  text = text.replace(SPELLED_OUT, (ch) => SPECIAL_LETTERS[ch] ?? ` ${GREEK_NAMES[ch]} `);
  return (
    text
      .replace(/&/g, ' and ')
      // Braces group letters in BibTeX ("{B}ayes"); they never separate words.
      .replace(/['’‘`´{}]/g, '')
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
  );
}

function decodeEntity(name: string): string | undefined {
  if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
  if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
  return HTML_ENTITIES[name.toLowerCase()];
}

// ---------------------------------------------------------------------------------------
// Titles

/** Words that carry no meaning of their own in a title; they do not make a title distinctive. */
const TITLE_STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'for',
  'in',
  'on',
  'and',
  'or',
  'to',
  'with',
  'by',
  'from',
  'at',
  'as',
  'is',
  'are',
  'via',
  'into',
  'its',
  'their',
  'our',
  'we',
  'be',
  'vs',
  'versus',
  'toward',
  'towards',
  'using',
  'based',
]);

/**
 * The mark publishers put before a retracted or withdrawn work's title, as sources show it:
 * "RETRACTED: ", "RETRACTED ARTICLE: ", "WITHDRAWN: ", in JATS or HTML markup ("<i>Retracted:</i> ").
 * "Retraction: …" and "Retraction notice to …" are the titles of notices, which are other works.
 */
const RETRACTION_MARK = /^\s*(?:<[^<>]{1,40}>\s*)*(?:retracted|withdrawn)(?:\s+article)?\s*(?:<\/[^<>]{1,40}>\s*)*[:.]\s*(?:<\/[^<>]{1,40}>\s*)*/i;

/** A title without the retraction mark before it: the mark is a sign about the work, not part of its title. */
export function withoutRetractionMark(title: string): string {
  const match = RETRACTION_MARK.exec(title);
  return match && match[0].length < title.length ? title.slice(match[0].length) : title;
}

/** Whether a title carries the retraction mark. */
export function hasRetractionMark(title: string): boolean {
  return withoutRetractionMark(title) !== title;
}

/** The title's words; "towards" and "toward" are used interchangeably by authors and sources. */
export function titleWords(title: string): string[] {
  const text = normalizeText(title);
  return text === '' ? [] : text.split(' ').map((w) => (w === 'towards' ? 'toward' : w));
}

/** How many of the title's words say something: a two-word title like "Deep learning" names many works. */
export function significantWordCount(words: readonly string[]): number {
  return words.filter((w) => !TITLE_STOPWORDS.has(w)).length;
}

/**
 * The part before a subtitle, as written: "BERT: Pre-training …" → "BERT". Undefined when the
 * title has no subtitle separator.
 */
export function mainTitle(title: string): string | undefined {
  const match = /^(.+?)(?:\s*[:;]\s+|\s+[-–—]{1,2}\s+|[?!]\s+)\S/u.exec(title.trim());
  if (!match) return undefined;
  // "?" and "!" end the main title but belong to it: "Why should I trust you?: Explaining …".
  const end = match[0].length - 1;
  return title
    .trim()
    .slice(0, end)
    .replace(/\s*[:;–—-]+\s*$/u, '')
    .trim();
}

// ---------------------------------------------------------------------------------------
// Names

/** Lower-case particles that belong to a family name but are not what it is sorted or looked up by. */
const PARTICLES = new Set([
  'van',
  'von',
  'der',
  'den',
  'de',
  'del',
  'della',
  'degli',
  'di',
  'da',
  'dos',
  'das',
  'du',
  'le',
  'la',
  'ten',
  'ter',
  'vander',
  'zu',
  'bin',
  'binti',
  'ibn',
  'al',
  'el',
  'y',
  'st',
  'saint',
]);

/** A literal name with one of these words is an organisation, compared as a whole. */
const ORGANISATION_WORDS = new Set([
  'university',
  'consortium',
  'collaboration',
  'group',
  'team',
  'organization',
  'organisation',
  'association',
  'institute',
  'committee',
  'inc',
  'ltd',
  'corporation',
  'project',
  'society',
  'foundation',
  'council',
  'agency',
  'initiative',
  'network',
  'center',
  'centre',
  'laboratory',
  'lab',
  'labs',
  'office',
  'board',
  'department',
  'ministry',
  'alliance',
  'working',
  'openai',
  'google',
  'deepmind',
  'meta',
  'microsoft',
]);

/** A name split into the words that identify it and the initials of the given names. */
export interface NameKey {
  /** Family name words without particles or DBLP homonym numbers: "van der Schaar" → ["schaar"]. */
  readonly family: readonly string[];
  /** Given name words, normalised; used to recognise a given/family swap. */
  readonly given: readonly string[];
  /** First letters of the given names: "Jean-Christophe" → ["j", "c"], "JC" → ["j", "c"]. */
  readonly initials: readonly string[];
  /** An organisation written as one literal name. */
  readonly organisation: boolean;
}

export function nameKey(author: Author): NameKey {
  if (author.family === undefined && author.literal !== undefined) return literalNameKey(author.literal);
  const familyText = author.family ?? author.given ?? '';
  const givenText = author.family === undefined ? '' : (author.given ?? '');
  let family = withoutParticles(nameWords(familyText), 'leading');
  let given = withoutParticles(nameWords(givenText), 'trailing');
  let initials = initialsOf(givenText);
  if (family.length === 0 && given.length > 0) {
    // "Xin Wang 0001" from DBLP, split so that the homonym number became the family name.
    family = given.slice(-1);
    given = given.slice(0, -1);
    initials = initials.slice(0, -1);
  }
  return { family, given, initials, organisation: false };
}

function literalNameKey(literal: string): NameKey {
  const words = nameWords(literal);
  if (words.some((w) => ORGANISATION_WORDS.has(w)) || words.length === 1) {
    return { family: words.filter((w) => w !== 'the'), given: [], initials: [], organisation: words.length > 1 };
  }
  // A person the source could not split: the family name is the last word with its particles.
  let start = words.length - 1;
  while (start > 0 && PARTICLES.has(words[start - 1])) start--;
  const given = words.slice(0, start);
  return { family: withoutParticles(words.slice(start), 'leading'), given, initials: given.map((w) => w[0]), organisation: false };
}

/** Words of a name, without numbers (DBLP's "0001") and without "Jr."-style suffixes. */
function nameWords(value: string): string[] {
  const text = normalizeText(value);
  if (text === '') return [];
  return text.split(' ').filter((w) => !/^\d+$/.test(w) && !/^(?:jr|sr|ii|iii|iv)$/.test(w));
}

/** Particles are dropped only while a real name word remains: "Le" and "Du" are family names too. */
function withoutParticles(words: string[], where: 'leading' | 'trailing'): string[] {
  const result = [...words];
  if (where === 'leading') {
    while (result.length > 1 && PARTICLES.has(result[0])) result.shift();
  } else {
    while (result.length > 1 && PARTICLES.has(result[result.length - 1])) result.pop();
  }
  return result;
}

/** "J.-C." and "Jean-Christophe" both give j, c; an all-capitals "JC" (PubMed style) is two initials. */
function initialsOf(given: string): string[] {
  const initials: string[] = [];
  for (const part of given.split(/[\s.\-‐–]+/u)) {
    if (part === '') continue;
    const letters = normalizeText(part).replace(/ /g, '');
    if (letters === '' || PARTICLES.has(letters)) continue;
    const allCapitals = part.length <= 3 && part === part.toUpperCase() && /\p{Lu}/u.test(part);
    if (allCapitals) initials.push(...letters.split(''));
    else initials.push(letters[0]);
  }
  return initials;
}

/** "Smith, John" / "J. Smith" / "World Health Organization": how a name is shown in messages. */
export function displayName(author: Author): string {
  if (author.family !== undefined) return author.given ? `${author.family}, ${author.given}` : author.family;
  return author.literal ?? author.given ?? '';
}

// ---------------------------------------------------------------------------------------
// Venues

export interface VenueWord {
  readonly text: string;
  /** Written with several capitals, as acronyms are: "NAACL", "NeurIPS", "SIGKDD". */
  readonly acronym: boolean;
  /** "Proceedings", "International", "IEEE": present or absent in different spellings of one venue. */
  readonly generic: boolean;
  /** The word with the stopwords written just before it, for acronyms that keep them ("COLT"). */
  readonly withStopwords: readonly string[];
}

export interface VenueWords {
  /** Without stopwords, years, ordinals and edition numbers. */
  readonly words: readonly VenueWord[];
  /** Acronyms the venue is known by that its initials do not spell ("NAACL", "WWW"). */
  readonly acronyms: readonly string[];
  /** arXiv, CoRR, bioRxiv…: where preprints are posted, not where papers are published. */
  readonly preprint: boolean;
  /** A publisher or a series (PMLR, LNCS) that publishes many venues. */
  readonly host: boolean;
}

const VENUE_STOPWORDS = new Set(['of', 'the', 'on', 'in', 'and', 'for', 'at', 'to', 'a', 'an', 'its']);

const GENERIC_VENUE_WORDS = new Set([
  'proceedings',
  'proc',
  'conference',
  'conf',
  'international',
  'intl',
  'int',
  'annual',
  'annu',
  'meeting',
  'ieee',
  'acm',
  'cvf',
  'rsj',
  'siam',
  'usenix',
  'workshop',
  'workshops',
  'symposium',
  'symp',
  'advances',
  'adv',
  'joint',
  'vol',
  'volume',
  'part',
  'findings',
  'companion',
  'main',
  'track',
  'papers',
  'paper',
  'long',
  'short',
  'edition',
  'series',
  'th',
  'st',
  'nd',
  'rd',
]);

/** Ordinals spelled out: "Thirty-Fifth AAAI Conference". */
const NUMBER_WORDS =
  /^(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|(?:thir|four|fif|six|seven|eigh|nine)teenth|twentieth|thirtieth|fortieth|fiftieth|sixtieth|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)$/;

const VENUE_ALIASES: Readonly<Record<string, string>> = { neurips: 'nips', sigkdd: 'kdd' };

/** Names whose acronym is not their initials, matched on the words without stopwords. */
const VENUE_PHRASES: readonly (readonly [string, string])[] = [
  ['north american chapter association computational linguistics', 'naacl'],
  ['web conference', 'www'],
  ['world wide web', 'www'],
  ['artificial intelligence statistics', 'aistats'],
  ['intelligent robots systems', 'iros'],
  ['neural information processing systems', 'nips'],
];

const PREPRINT = /\b(?:arxiv|corr|biorxiv|medrxiv|chemrxiv|psyarxiv|techrxiv|eartharxiv|ssrn|preprints?|eprints?|research square)\b/;

const HOST =
  /^(?:pmlr|proceedings of machine learning research|lecture notes(?: in)? (?:computer science|artificial intelligence|networks and systems)|lncs|lnai|springer|elsevier|curran associates|openreview(?: net)?|ceur workshop proceedings|acm|ieee)$/;

export function venueWords(venue: string): VenueWords {
  const text = normalizeText(venue);
  const words: VenueWord[] = [];
  let pendingStopwords: string[] = [];
  // Split as written first: capitals tell an acronym from a word, and normalising loses them.
  for (const token of venue.split(/[\s/:;,()[\]{}\-‐–—]+/u)) {
    const acronym = (token.match(/\p{Lu}/gu)?.length ?? 0) >= 2;
    for (const raw of normalizeText(token).split(' ')) {
      if (raw === '') continue;
      if (VENUE_STOPWORDS.has(raw)) {
        pendingStopwords.push(raw);
        continue;
      }
      if (/^\d+(?:st|nd|rd|th)?$/.test(raw) || NUMBER_WORDS.test(raw)) continue;
      // "NeurIPS2021", "ICML'21": the year glued to the name.
      const bare = raw.replace(/^([a-z]{3,})(?:\d{2}|\d{4})$/, '$1');
      const word = VENUE_ALIASES[bare] ?? bare;
      words.push({ text: word, acronym, generic: GENERIC_VENUE_WORDS.has(word), withStopwords: [...pendingStopwords, word] });
      pendingStopwords = [];
    }
  }
  const plain = words.map((w) => w.text).join(' ');
  return {
    words,
    acronyms: VENUE_PHRASES.filter(([phrase]) => plain.includes(phrase)).map(([, acronym]) => acronym),
    preprint: PREPRINT.test(text),
    host: HOST.test(text),
  };
}
