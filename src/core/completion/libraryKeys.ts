import MiniSearch, { type QueryCombination } from 'minisearch';
import SearchableMap from 'minisearch/SearchableMap';
import { asRecord } from '../bibliography/citing';
import { listAuthors } from '../bibliography/describe';
import { citationKeyFor } from '../bibliography/generate';
import type { Paper } from '../papers/paper';

/** A library paper that matches what was typed, with the key it gets in a bibliography without a key like it. */
export interface PaperMatch {
  readonly key: string;
  readonly paper: Paper;
}

interface IndexedPaper {
  readonly id: number;
  readonly key: string;
  readonly title: string;
  readonly authors: string;
  readonly year: string;
  readonly venue: string;
}

const FIELDS = ['key', 'title', 'authors', 'year', 'venue'] as const;
const NO_KEYS: ReadonlySet<string> = new Set();
const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/**
 * Which typed words rank the matches. Every word is required, so the rarest bounds what can match:
 * a word whose completions are many (the two letters of a word being typed: "co" completes to
 * thousands of words) or listed by many papers only filters what the others found, a string search
 * per candidate instead of a score per paper. When every word is such a word, the longest ranks by
 * its closest completions only.
 */
const RANKING_TERMS = 100;
const RANKING_POSTINGS = 5_000;
/** How many completions of a common word are looked at for the closest, when no rarer word is typed, and how many of those rank. */
const ENUMERATED = 2_000;
const CLOSEST_TERMS = 64;
/** MiniSearch's weight of a prefix match, so that the closest completions rank as MiniSearch ranks them. */
const PREFIX_WEIGHT = 0.375;
/** As the bibliographies' index forgives typos: one in a word of 5 to 7 letters, two (a swap of letters) from 8 on. */
const FUZZINESS = 0.2;
const MAX_FUZZY = 2;
/** How long indexing holds the thread before letting a search or a load go first. */
const INDEX_SLICE_MS = 8;

/** One typed word, and what it matches in the index. */
interface Expansion {
  readonly word: string;
  readonly prefix: boolean;
  /** How many typos it may have: one from 5 letters on, two from 8. */
  readonly fuzzy: number;
  /** Terms it matches with a typo: a prefix test does not find them. */
  readonly typos: readonly string[];
  /** Whether no term of the index matches it. */
  readonly unmatched: boolean;
  /** Whether it is too common to rank (`RANKING_TERMS`, `RANKING_POSTINGS`). */
  readonly common: boolean;
}

/**
 * The paper library's papers as citation completion ranks them, in the library's own thread: each
 * under the key it would be cited by, found by prefix and fuzzy search over key, title, authors,
 * year and venue, every typed word required. The cost of a keystroke is bounded by the rarest typed
 * word rather than by the library's size (see `RANKING_TERMS`). MiniSearch does the ranking; its
 * radix tree of the words' document counts chooses which words rank and which filter.
 *
 *   const index = new PaperKeyIndex();
 *   await index.catchUp((from) => store.papers(from));   // the papers not indexed yet, a slice at a time
 *   index.complete('residual lear', 100);        // [{ key: 'he2016deep', paper }]
 */
export class PaperKeyIndex {
  private readonly search = new MiniSearch<IndexedPaper>({
    fields: [...FIELDS],
    searchOptions: { boost: { key: 2, title: 1.5, authors: 1.5 } },
  });
  /** By the number each paper is indexed under. */
  private readonly papers: Paper[] = [];
  private readonly keys: string[] = [];
  /** Each paper's words, " word word … ", for the filter by the words that do not rank. */
  private readonly words: string[] = [];
  private readonly ids = new Set<string>();
  /** How many papers list each word. */
  private readonly vocabulary = new SearchableMap<number>();
  /** How many papers of the source the passes so far went through. */
  private read = 0;
  private pass?: Promise<void>;

  get size(): number {
    return this.papers.length;
  }

  /** Indexes the papers it has not seen yet. */
  add(papers: Iterable<Paper>): void {
    const added: IndexedPaper[] = [];
    for (const paper of papers) {
      if (this.ids.has(paper.id) || paper.title.trim() === '') continue;
      this.ids.add(paper.id);
      const id = this.papers.length;
      const key = citationKeyFor(asRecord(paper), NO_KEYS);
      const indexed = { id, key, title: paper.title, authors: listAuthors(paper.authors, 3), year: paper.year?.toString() ?? '', venue: paper.venue ?? '' };
      const words = new Set(FIELDS.flatMap((field) => termsOf(indexed[field])));
      for (const word of words) this.vocabulary.update(word, (count = 0) => count + 1);
      this.papers.push(paper);
      this.keys.push(key);
      this.words.push(` ${[...words].join(' ')} `);
      added.push(indexed);
    }
    this.search.addAll(added);
  }

  /**
   * Indexes the papers of `source` beyond those earlier passes read (a library only adds at its end),
   * a slice of milliseconds at a time, letting the thread go between slices. One pass at a time: a
   * call during a pass gets that pass, which reads on to the end.
   */
  catchUp(source: (from: number) => Iterable<Paper>): Promise<void> {
    this.pass ??= this.readOn(source).finally(() => (this.pass = undefined));
    return this.pass;
  }

  private async readOn(source: (from: number) => Iterable<Paper>): Promise<void> {
    for (;;) {
      const started = performance.now();
      let more = false;
      // Read afresh after each pause, from the first paper not read: the library may have been reloaded meanwhile.
      for (const paper of source(this.read)) {
        if (performance.now() - started > INDEX_SLICE_MS) {
          more = true;
          break;
        }
        this.add([paper]);
        this.read++;
      }
      if (!more) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The best matches for `typed`, best first; for one letter, the papers whose key starts with it. */
  complete(typed: string, limit: number): PaperMatch[] {
    const trimmed = typed.trim();
    if (trimmed.length === 1) return this.startingWith(trimmed.toLowerCase(), limit);
    const words = termsOf(trimmed);
    if (words.length === 0) return [];
    // A one-letter word after others ("vitamin d") is a word, not the start of every word with that letter.
    const expansions = words.map((word) => this.expand(word, word.length > 1 || words.length === 1));
    if (expansions.some((expansion) => expansion.unmatched)) return [];
    const rare = expansions.filter((expansion) => !expansion.common);
    if (rare.length === 0) return this.commonest(expansions, limit);
    const filtering = expansions.filter((expansion) => expansion.common);
    return this.ranked({ combineWith: 'AND', queries: rare.map(searchOf) }, filtering, limit);
  }

  /** The matches of `query` that have every word of `filtering` too, best first. */
  private ranked(query: QueryCombination, filtering: readonly Expansion[], limit: number): PaperMatch[] {
    const hits = this.search.search(query, filtering.length === 0 ? {} : { filter: (hit) => filtering.every((expansion) => matches(this.words[hit.id as number], expansion)) });
    return hits.slice(0, limit).map((hit) => ({ key: this.keys[hit.id as number], paper: this.papers[hit.id as number] }));
  }

  /**
   * When every typed word is common, the longest ranks by the completions MiniSearch weighs most (the
   * word itself, then the shortest of the first `ENUMERATED`, the more common first among equals), up
   * to `CLOSEST_TERMS` and as many as `RANKING_POSTINGS` papers list. When the word itself is listed by more ("of"), the newest
   * papers with every word are offered, in that order: most papers have them.
   */
  private commonest(expansions: readonly Expansion[], limit: number): PaperMatch[] {
    const longest = expansions.reduce((a, b) => (b.word.length > a.word.length ? b : a));
    const seen: { term: string; weight: number; count: number }[] = [];
    for (const [term, count] of longest.prefix ? this.vocabulary.atPrefix(longest.word) : [[longest.word, this.vocabulary.get(longest.word) ?? 0] as const]) {
      seen.push({ term, count, weight: term === longest.word ? 1 : (PREFIX_WEIGHT * term.length) / (term.length + 0.3 * (term.length - longest.word.length)) });
      if (seen.length === ENUMERATED) break;
    }
    const weights = new Map<string, number>();
    let postings = 0;
    for (const { term, weight, count } of seen.sort((a, b) => b.weight - a.weight || b.count - a.count)) {
      if (postings + count > RANKING_POSTINGS || weights.size === CLOSEST_TERMS) break;
      weights.set(term, weight);
      postings += count;
    }
    if (weights.size === 0) return this.newestWith(expansions, limit);
    const closest: QueryCombination = {
      combineWith: 'OR',
      queries: [[...weights.keys()].join(' ')],
      prefix: false,
      fuzzy: false,
      boostTerm: (term: string) => weights.get(term) ?? 1,
    };
    return this.ranked(
      closest,
      expansions.filter((expansion) => expansion !== longest),
      limit,
    );
  }

  private newestWith(expansions: readonly Expansion[], limit: number): PaperMatch[] {
    const found: PaperMatch[] = [];
    for (let id = this.words.length - 1; id >= 0 && found.length < limit; id--) {
      if (expansions.every((expansion) => matches(this.words[id], expansion))) found.push({ key: this.keys[id], paper: this.papers[id] });
    }
    return found;
  }

  /** One letter says how a key starts, not which of the words with that letter is meant. */
  private startingWith(letter: string, limit: number): PaperMatch[] {
    const found: PaperMatch[] = [];
    for (let id = 0; id < this.keys.length && found.length < limit; id++) {
      if (this.keys[id].startsWith(letter)) found.push({ key: this.keys[id], paper: this.papers[id] });
    }
    return found;
  }

  /** What `word` matches as MiniSearch matches it (itself, the words it starts with `prefix`, those a typo or two away), counted until it is known to be common. */
  private expand(word: string, prefix: boolean): Expansion {
    const fuzzy = word.length > 4 ? Math.min(MAX_FUZZY, Math.round(word.length * FUZZINESS)) : 0;
    const typos = fuzzy > 0 ? [...this.vocabulary.fuzzyGet(word, fuzzy)] : [];
    let terms = typos.length;
    let postings = typos.reduce((sum, [, [count]]) => sum + count, 0);
    if (prefix) {
      for (const [, count] of this.vocabulary.atPrefix(word)) {
        terms++;
        postings += count;
        if (terms > RANKING_TERMS || postings > RANKING_POSTINGS) break;
      }
    } else {
      const count = this.vocabulary.get(word);
      if (count !== undefined) {
        terms++;
        postings += count;
      }
    }
    const typoTerms = typos.map(([term]) => term);
    return { word, prefix, fuzzy, typos: typoTerms, unmatched: terms === 0, common: terms > RANKING_TERMS || postings > RANKING_POSTINGS };
  }
}

/** The words of `text` as the index holds them. */
function termsOf(text: string): string[] {
  return tokenize(text)
    .map((term) => term.toLowerCase())
    .filter((term) => term !== '');
}

/** A query for the terms MiniSearch matches `expansion` with, as it ranks them. */
function searchOf({ word, prefix, fuzzy }: Expansion): QueryCombination {
  return { combineWith: 'OR', queries: [word], prefix, fuzzy: fuzzy > 0 && FUZZINESS, maxFuzzy: MAX_FUZZY };
}

/** Whether a paper's " word word … " has a word `expansion` matches. */
function matches(words: string, { word, prefix, typos }: Expansion): boolean {
  return words.includes(prefix ? ` ${word}` : ` ${word} `) || typos.some((term) => words.includes(` ${term} `));
}
