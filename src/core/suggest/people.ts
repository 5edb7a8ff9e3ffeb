/**
 * Whether a drafted sentence names a person as the author of what it says — "Smith showed", "Smith
 * and Jones found", "according to Smith", "said Smith in 2019" — who is not an author of the sources
 * it cites. Such a sentence rests on a work the model was not given, whichever source it cites, so it
 * is dropped whole, as `citationLike` drops other pointers at works; it needs the cited sources'
 * authors, which `citationLike` does not have.
 *
 * A capitalised word before a verb is not always a name: "Treatment showed", "They found", "the
 * Framingham Heart Study reported". A word is taken for an ordinary one when it is a function word, a
 * usual subject of research prose, has a common noun's ending, or is used in lower case by the text of
 * the sources the model was given; a word after an article names a thing. An eponym is never a
 * person here: a possessive ("Parkinson's disease", "Student's t-test") or a word before a noun
 * ("Kaplan–Meier curves", "Western blot") is not in the places an author stands.
 *
 * Linear, as `citationLike` is: a name is matched only from the start of a word, and every
 * repetition and lookbehind is bounded.
 */
import { eng as STOP_WORDS } from 'stopword';
import type { Author } from '../bibliography/types';
import { removal, type DraftSentence, type Removal } from './parse';
import type { NumberedSource } from './sources';

/**
 * A capitalised word, whole, as names are written: "Smith", "O'Brien", "McDonald", "Martín-Brualla";
 * not a possessive ("Smith's"), not "Kaplan" of "Kaplan–Meier", not a gene or cell line ("ChIP", "EiPSCs").
 */
const NAME_WORD = String.raw`(?<![\p{L}\p{N}'’‘-])\p{Lu}(?:['’]\p{Lu})?\p{Ll}{1,30}(?:\p{Lu}\p{Ll}{2,20})?(?:-\p{Lu}?\p{Ll}{2,20}){0,2}`;
const NAME = String.raw`${NAME_WORD}(?![\p{L}\p{N}'’–—-])`;
/** A person as a sentence writes one: "Smith", "John Smith". */
const PERSON = String.raw`${NAME}(?:\s{1,3}${NAME}){0,2}`;
const AND = String.raw`\s{0,2},?\s{1,3}(?:and|&)\s{1,3}`;
/** What a person does as the author of a claim; not "reports", "estimates", "notes" and the like, which are plural nouns as often ("Recent reports suggested"). */
const VERB =
  '(?:show|shows|showed|shown|find|finds|found|report|reported|demonstrate|demonstrates|demonstrated|observe|observes|observed|suggest|suggests|suggested|propose|proposes|proposed|argue|argues|argued|claim|claimed|conclude|concludes|concluded|note|noted|write|writes|wrote|written|say|says|said|describe|describes|described|establish|establishes|established|estimate|estimated|hypothesi[sz]e|hypothesi[sz]es|hypothesi[sz]ed|reveal|reveals|revealed|confirm|confirms|confirmed|identify|identifies|identified|predict|predicts|predicted|discover|discovers|discovered|document|documented|speculate|speculates|speculated|posit|posits|posited|contend|contends|contended|assert|asserts|asserted|emphasi[sz]e|emphasi[sz]es|emphasi[sz]ed|recommend|recommends|recommended|caution|cautioned|warn|warns|warned|state|stated|believe|believes|believed|introduce|introduces|introduced|coin|coined)';
const ADVERB = '(?:also|first|previously|recently|later|further|similarly|subsequently|originally|independently|famously|then|likewise|convincingly)';
/** Verbs that put the person after them: "said Smith", "according to Smith", "as shown by Smith". */
const SPEECH =
  '(?:said|says|wrote|writes|argued|argues|noted|notes|explained|explains|claimed|claims|stated|states|remarked|remarks|concluded|concludes|contended|contends|added|adds|cautioned|cautions|emphasi[sz]ed|emphasi[sz]es)';
const BY = String.raw`(?:shown|reported|described|proposed|suggested|noted|found|demonstrated|observed|argued|stated|claimed|discussed|reviewed|summari[sz]ed|established|estimated|hypothesi[sz]ed|predicted|documented)\s{1,3}by`;
/** What follows a person named after such a verb; a capitalised word before a noun ("by Western blotting") is not one. */
const AFTER_PERSON = String.raw`(?=\s{0,3}(?:[,.;:!?)(]|$)|\s{1,3}(?:in|and|et|who|during|at|from|of)(?![\p{L}]))`;
/**
 * An article, possessive or preposition before capitalised words makes them a thing or a place, not the
 * subject: "the Lancet reported", "the National Cancer Institute found", "in South West Cambodia demonstrated".
 */
const NOT_AFTER_ARTICLE = String.raw`(?<!(?<![\p{L}])(?:[Tt]he|[Aa]n?|[Tt]his|[Tt]hat|[Tt]hese|[Tt]hose|[Oo]ur|[Tt]heir|[Ii]ts|[Hh]is|[Hh]er|[Ii]n|of|from|at|on|to|for|with|into|across|within|among|between)\s{1,3}(?:\p{Lu}[\p{L}'’-]{0,40}\s{1,3}){0,3})`;

/**
 * A person's group: "Smith's lab", "the Smith lab". A possessive before anything else is an eponym
 * ("Parkinson's disease"), and "the Polycomb group" is a family of genes.
 */
const GROUP = String.raw`(?:group|lab|laboratory|team|colleagues|co-?workers|co-?authors)(?![\p{L}])`;
const LAB = String.raw`(?:lab|laboratory)(?![\p{L}])`;

/** Where a sentence names people as the authors of what it says; the group `people` holds them. */
const AUTHOR_PLACES: readonly RegExp[] = [
  new RegExp(
    String.raw`${NOT_AFTER_ARTICLE}(?<people>${PERSON}(?:${AND}${PERSON})?)\s{1,3}(?:${ADVERB}\s{1,3})?(?:(?:has|have|had)\s{1,3}(?:${ADVERB}\s{1,3})?)?${VERB}(?![\p{L}])`,
    'gu',
  ),
  // After "as", the verbs that are nouns as often are verbs: "as Smith notes".
  new RegExp(
    String.raw`(?<![\p{L}])[Aa]s\s{1,3}(?<people>${PERSON}(?:${AND}${PERSON})?)\s{1,3}(?:notes|reports|states|claims|documents|estimates|puts\s{1,3}it|points\s{1,3}out)(?![\p{L}])`,
    'gu',
  ),
  new RegExp(String.raw`(?<people>${NAME_WORD})['’]s\s{1,3}${GROUP}|(?<![\p{L}])[Tt]he\s{1,3}(?<team>${NAME})\s{1,3}${LAB}`, 'gu'),
  new RegExp(
    String.raw`(?<![\p{L}])(?:[Aa]ccording\s{1,3}to|(?:[Aa]s\s{1,3})?${BY}|${SPEECH})\s{1,3}(?<people>${PERSON}(?:\s{0,2},\s{1,3}${PERSON}){0,4}(?:${AND}${PERSON})?)${AFTER_PERSON}`,
    'gu',
  ),
];

/**
 * Capitalised words that begin research sentences without naming anyone. Pronouns and function words
 * come from the stop-word list; these are the subjects of "… showed" and "… found" that are neither.
 */
const USUAL_SUBJECTS = new Set(
  (
    'she others none few several one each such which who everyone neither either another someone later however moreover thus together ' +
    'two three four five six seven eight nine ten although though whereas because unless once among having less first second third current recent previous prior initial early numerous various multiple please overall ' +
    'data findings results evidence analysis analyses study studies trial trials research researchers investigators authors scientists experts experiments ' +
    'models participants patients subjects mice rats cells animals children adults women men people users surveys survey reviews review imaging screening ' +
    'sequencing testing modelling modeling simulations observations measurements estimates reports records registry group groups team teams consortium ' +
    'initiative project program programme cohort committee panel agency society association institute foundation network centre center database ' +
    'guidelines guideline literature work theory experience practice treatment therapy surgery exercise training exposure smoking diet age sex gender sleep ' +
    'stress figure table library journal board court council office ministry service services force ' +
    'january february march april may june july august september october november december monday tuesday wednesday thursday friday saturday sunday'
  ).split(' '),
);
const STOP = new Set(STOP_WORDS);
/**
 * Endings of common words that surnames hardly have: "Supplementation", "Prevalence", "Participants",
 * "Crystallography", "Immunohistochemistry", "Europeans"; an adverb ("Newly", "Additionally", not "Kelly");
 * a long -ing word or a compound ("Immunostaining", "Fate-mapping", not "Fleming").
 */
const NOUN_ENDING =
  /(?:tion|sion|ment|ness|ity|ance|ence|ysis|yses|osis|ology|graphy|istry|metry|scopy|ics|ism|ants|ents|ities|ments|tions|ians|eans|cans|^\p{L}{2,}(?:ally|[^l]ly)|^\p{L}{6,}ing|-\p{L}+ing)$/u;

/** The sentences that name no one but the authors of the sources they cite, and the others as removals, with the reason. */
export function withoutUnlistedPeople(sentences: readonly DraftSentence[], sources: readonly NumberedSource[]): { readonly kept: DraftSentence[]; readonly removed: Removal[] } {
  const byNumber = new Map(sources.map((s) => [s.number, s]));
  const ordinary = lowerCaseWords(sources.flatMap((s) => [s.paper.title, ...s.passages]));
  const kept: DraftSentence[] = [];
  const removed: Removal[] = [];
  for (const sentence of sentences) {
    const authors = sentence.sources.flatMap((n) => byNumber.get(n)?.paper.authors ?? []);
    const reason = unlistedPerson(sentence.text, authors, ordinary);
    if (reason) removed.push(removal(sentence.text, reason));
    else kept.push(sentence);
  }
  return { kept, removed };
}

/** The words a text uses in lower case: `Metformin` in a draft is the sources' "metformin", a drug rather than a person. */
function lowerCaseWords(texts: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const text of texts) for (const [word] of text.matchAll(/(?<![\p{L}\p{N}'’-])\p{Ll}[\p{L}'’-]{0,40}/gu)) words.add(word);
  return words;
}

/**
 * Why `sentence` cannot be kept: it names as the author of a claim someone who is none of `authors`
 * (of the sources it cites); undefined when it names no one, or only them. `ordinary` holds the words
 * the sources use in lower case (`lowerCaseWords`).
 */
export function unlistedPerson(sentence: string, authors: readonly Author[], ordinary: ReadonlySet<string>): string | undefined {
  const surnames = new Set(authors.flatMap((a) => nameParts(a.family ?? a.literal ?? '')));
  for (const place of AUTHOR_PLACES) {
    for (const match of sentence.matchAll(place)) {
      for (const surname of surnamesIn(match.groups?.people ?? match.groups?.team ?? '')) {
        const word = surname.toLowerCase();
        if (STOP.has(word) || USUAL_SUBJECTS.has(word) || NOUN_ENDING.test(word) || ordinary.has(word)) continue;
        if (nameParts(surname).some((part) => surnames.has(part))) continue;
        return `it attributes the claim to ${surname}, who is not an author of the sources it cites`;
      }
    }
  }
  return undefined;
}

/** The last word of each person in "John Smith and Jones", "Smith, Lee and Chen". */
function surnamesIn(people: string): string[] {
  return people.split(/\s{0,2},\s{1,3}|\s{1,3}(?:and|&)\s{1,3}/u).flatMap((person) => {
    const words = person.trim().split(/\s+/u);
    const last = words[words.length - 1];
    return last ? [last] : [];
  });
}

/** "Martín-Brualla" → martin, brualla, martin-brualla: a double name cited by one part is the same person. */
function nameParts(name: string): string[] {
  const folded = name.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase().trim();
  if (!folded) return [];
  return [folded, ...folded.split(/[\s-]+/u).filter((part) => part.length > 1)];
}
