/**
 * Whether a drafted sentence, its `[n]` markers already taken out, still points at a work in some
 * other way — and if so, in words, how. A sentence that does is dropped whole: taking out only the
 * pointer would leave a claim resting on a work the model was not given.
 *
 * Anything that could be a pointer counts, so some harmless sentences go too ("(Table 2)",
 * "Node.js"); that is the price of never letting a made-up reference through.
 *
 * Every pattern is linear: a run of letters or digits is matched only from its start (a lookbehind
 * refuses the inside of a run) and every repetition is bounded, so a 1 MB run of capitals or of
 * unclosed brackets costs one pass.
 */
import { NOTE_MARK } from './normalize';

const YEAR = String.raw`(?<![\p{N}.])(?:1[6-9]|20)\d{2}[a-z]?(?![\p{N}])`;
const WORD_START = String.raw`(?<![\p{L}\p{N}])`;
/** Capitalised words that stand before a year without naming anyone: "In 2019", "March 2020". */
const NOT_A_NAME = String.raw`(?!(?:In|By|Since|From|Until|Till|Before|After|During|Of|On|At|For|To|Through|Between|And|Or|The|Early|Late|Mid|Circa|Around|About|Than|As|January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec|Spring|Summer|Autumn|Fall|Winter)(?![\p{L}'’-]))`;
const NAME = String.raw`${WORD_START}${NOT_A_NAME}\p{Lu}[\p{L}'’-]{1,40}`;
/** A year as its last two digits after an apostrophe, `'19`; not a decade, `the '90s`. */
const SHORT_YEAR = String.raw`${WORD_START}['’‘]\d{2}(?![\p{N}s])`;
const ANY_YEAR = `(?:${YEAR}|${SHORT_YEAR})`;
/** A year in words: "twenty-twenty", "nineteen ninety-eight", "two thousand and nineteen". */
const NUMBER_WORD =
  '(?:hundred|oh|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|one|two|three|four|five|six|seven|eight|nine)';
const YEAR_IN_WORDS = String.raw`${WORD_START}(?:nineteen|twenty|two\s{1,3}thousand)(?:[\s-]{1,3}(?:and\s{1,3})?${NUMBER_WORD}){1,2}(?![\p{L}])`;
/** What a piece of work is called when a sentence points at one. */
const WORK = String.raw`(?:study|studies|paper|papers|article|articles|review|report|survey|trial|work|analysis|meta-analysis|preprint|book|thesis|dissertation|findings|experiments?)(?![\p{L}])`;
/** Venues a work is named by ("their NeurIPS paper"): the big conferences and journals, as models write them. */
const VENUE = '(?:NeurIPS|NIPS|ICML|ICLR|CVPR|ICCV|ECCV|ACL|EMNLP|NAACL|AAAI|IJCAI|KDD|SIGIR|NEJM|JAMA|BMJ|PNAS|Lancet|Nature|Science|Cell)';

interface Rule {
  readonly pattern: RegExp;
  readonly reason: string;
}

const RULES: readonly Rule[] = [
  { pattern: new RegExp(NOTE_MARK, 'u'), reason: 'a superscript, circled number or dagger, which marks a note or a citation' },
  { pattern: /[[\]]/u, reason: 'a bracket that is not one of the numbered citations' },
  { pattern: /[【】〔〕〖〗〘〙〚〛⟦⟧⦗⦘]/u, reason: 'a bracket of the kind that holds citations' },
  { pattern: /\\|\^\^/u, reason: 'TeX markup' },
  { pattern: /<\/?[A-Za-z][A-Za-z0-9-]{0,30}(?:\s[^<>]{0,300})?\/?>|&#?[A-Za-z0-9]{1,10};/u, reason: 'HTML markup' },
  { pattern: /@[\p{L}\p{N}_{]/u, reason: 'a citation key' },
  { pattern: /:\/\/|(?<![\p{L}\p{N}])www\./iu, reason: 'a URL' },
  { pattern: new RegExp(String.raw`${WORD_START}doi(?![\p{L}])|${WORD_START}10\.\d{4,9}\/`, 'iu'), reason: 'a DOI' },
  {
    pattern: new RegExp(String.raw`${WORD_START}arxiv(?![\p{L}])|${WORD_START}\d{4}\.\d{4,5}(?!\d)|${WORD_START}[a-z]{2,12}(?:-[a-z]{2,12})?(?:\.[A-Z]{2})?\/\d{7}(?!\d)`, 'iu'),
    reason: 'an arXiv identifier',
  },
  {
    pattern: new RegExp(
      String.raw`${WORD_START}(?:pmid|pmcid|isbn|issn)(?![\p{L}])|${WORD_START}pmc\s?\d|${WORD_START}(?:pubmed|medline)(?:\s{1,3}(?:central\s{1,3})?(?:id|identifier)(?![\p{L}])|(?:\s{1,3}(?:central|no\.|number))?\s{0,3}[:#]?\s{0,3}\d)`,
      'iu',
    ),
    reason: 'an identifier of a publication (PMID, PMC, ISBN, ISSN)',
  },
  { pattern: new RegExp(String.raw`${WORD_START}et\.?\s{0,3}al(?![\p{L}])`, 'iu'), reason: 'works named by "et al."' },
  {
    pattern: new RegExp(String.raw`${WORD_START}refs?(?![\p{L}])|${WORD_START}references?\s{0,3}(?:\d|therein|list|cited)`, 'iu'),
    reason: 'a reference to a work ("ref.", "reference 12")',
  },
  {
    pattern: new RegExp(
      String.raw`${WORD_START}(?:in\s{1,3}press|personal\s{1,3}communication|unpublished|forthcoming|further\s{1,3}reading|works\s{1,3}cited|see\s{1,3}also)(?![\p{L}])|${WORD_START}in\s{1,3}prep(?:\.|aration(?![\p{L}])(?!\s{1,3}(?:for|of)(?![\p{L}])))`,
      'iu',
    ),
    reason: 'a work the sources do not include (in press, in preparation, unpublished, further reading)',
  },
  {
    pattern: new RegExp(
      String.raw`${NAME}(?:['’]s|s['’])\s{1,3}(?:[\p{L}-]{1,30}\s{1,3}){0,2}${YEAR}|${NAME}(?:,|\s{1,3}(?:and|&)\s{1,3}\p{Lu}[\p{L}'’-]{1,40},?)\s{0,3}${ANY_YEAR}`,
      'u',
    ),
    reason: 'a work named by its author and year',
  },
  {
    pattern: new RegExp(String.raw`${YEAR}\s{1,3}(?:study|paper|article|review|report|survey|trial|work|analysis|meta-analysis|guidelines?|preprint)(?![\p{L}])`, 'iu'),
    reason: 'a work named by its year',
  },
  { pattern: new RegExp(String.raw`${NAME}\s{1,3}${YEAR}`, 'u'), reason: 'a work named by its author and year' },
  {
    pattern: new RegExp(String.raw`${NAME}\s{1,3}(?:and|&)\s{1,3}(?:colleagues|co-?workers|co-?authors|collaborators|associates|others|team)(?![\p{L}])`, 'u'),
    reason: 'a work named by its author ("and colleagues")',
  },
  { pattern: new RegExp(String.raw`${NAME}(?:['’]s|s['’])\s{1,3}(?:[\p{L}-]{1,30}\s{1,3}){0,2}${WORK}`, 'u'), reason: 'a work named by its author' },
  {
    pattern: new RegExp(
      String.raw`${WORD_START}${VENUE}(?![\p{L}])\s{1,3}(?:[\p{L}-]{1,30}\s{1,3})?${WORK}|${WORD_START}(?:[Tt]heir|[Hh]is|[Hh]er|[Ii]ts|[Oo]ur|[Mm]y)\s{1,3}\p{Lu}[\p{L}\p{N}-]{0,30}\s{1,3}${WORK}`,
      'u',
    ),
    reason: 'a work named by where it appeared ("their NeurIPS paper")',
  },
  { pattern: new RegExp(String.raw`${YEAR_IN_WORDS}\s{1,3}(?:[\p{L}-]{1,30}\s{1,3})?${WORK}`, 'iu'), reason: 'a work named by its year' },
  { pattern: new RegExp(String.raw`${WORD_START}n\.\s{0,2}d\.`, 'iu'), reason: 'a work without a date ("n.d.")' },
  { pattern: new RegExp(String.raw`${NAME},\s{1,3}\p{Lu}\.`, 'u'), reason: "an author's name as a reference list writes it" },
  {
    pattern: new RegExp(String.raw`${WORD_START}(?:vol|pp)\.?\s{0,3}\d|${WORD_START}(?:ibid|op\.\s{0,3}cit|loc\.\s{0,3}cit)(?![\p{L}])`, 'iu'),
    reason: 'volume, pages or "ibid." of a publication',
  },
];

/** A parenthesis holding only numbers, perhaps labelled: `(7)`, `(7, 12)`, `(S7)`, `(ref 7)`, `(7, p. 4)`. */
const NUMBER_LIST = /^\s{0,3}(?:[\p{L}.]{1,10}\s{0,3})?\p{Nd}{1,6}[a-z]?(?:\s{0,3}[-–—,;]\s{0,3}(?:[\p{L}.]{1,10}\s{0,3})?\p{Nd}{1,6}[a-z]?){0,50}\s{0,3}$/u;
const HAS_YEAR = new RegExp(ANY_YEAR, 'u');

/** Why `sentence` cannot be kept, or undefined when it holds nothing that points at a work. */
export function citationLike(sentence: string): string | undefined {
  for (const { pattern, reason } of RULES) if (pattern.test(sentence)) return reason;
  const parenthesis = citingParenthesis(sentence);
  if (parenthesis) return parenthesis;
  const domain = domainIn(sentence);
  if (domain) return `a web address (${domain})`;
  return undefined;
}

const OPENING = /\p{Ps}/u;
const CLOSING = /\p{Pe}/u;

/**
 * The innermost brackets of every kind (and an unclosed one's tail), each read once: a parenthesis
 * that holds a year or only numbers, or any other bracket (`{7}`, `⁅7⁆`, `〈7〉`) that holds a number.
 */
function citingParenthesis(sentence: string): string | undefined {
  let open = -1;
  const judge = (content: string, opening: string): string | undefined => {
    if (opening !== '(') return /\p{N}/u.test(content) ? `a number in brackets (${opening}…)` : undefined;
    if (HAS_YEAR.test(content)) return 'a year in parentheses';
    if (content.length <= 400 && NUMBER_LIST.test(content)) return 'a number in parentheses, as a citation is written';
    return undefined;
  };
  for (let i = 0; i < sentence.length; i++) {
    const char = sentence[i];
    if (char === '(' || (char > '~' && OPENING.test(char)) || char === '{') open = i;
    else if ((char === ')' || char === '}' || (char > '~' && CLOSING.test(char))) && open >= 0) {
      const reason = judge(sentence.slice(open + 1, i), sentence[open]);
      if (reason) return reason;
      open = -1;
    }
  }
  if (open < 0) return undefined;
  // The sentence's own closing punctuation is not part of what the bracket holds.
  let end = sentence.length;
  while (end > open + 1 && '.!?;:, '.includes(sentence[end - 1])) end--;
  return judge(sentence.slice(open + 1, end), sentence[open]);
}

/** A dot after a letter or digit, then two or more lower-case letters to the end of the word: `.org`, `.pdf`. */
const DOMAIN_END = /(?<=[\p{L}\p{N}])\.[a-z]{2,24}(?![\p{L}\p{N}])/gu;

/** The first word that reads as a domain name or file name, `example.org` or `paper.pdf`; "e.g." and "U.S." do not. */
function domainIn(sentence: string): string | undefined {
  const found = new RegExp(DOMAIN_END).exec(sentence);
  if (!found) return undefined;
  let start = found.index;
  // Back to the start of the word, within reason: the name is for the message.
  while (start > 0 && found.index - start < 60 && !/[\s("'“‘]/u.test(sentence[start - 1])) start--;
  return sentence.slice(start, found.index + found[0].length);
}
