import type * as BackgroundTable from './backgroundTable';

/** Words in an abstract, about: how many chances a term has to occur in one. */
const ABSTRACT_WORDS = 200;
/** The rarest a term is taken to be; beyond it, rarity in general English says nothing more. */
const RAREST_FRACTION = 1e-4;
/** From this share of abstracts on, a term is among the commonest words (about the top 1,000 of English). */
const COMMON_FRACTION = 0.01;

/**
 * How common terms are in general English (scripts/background-terms.js builds the table from the
 * SUBTLEX-US word counts), as the share of abstract-sized texts that would hold each. Every
 * manuscript's bibliography is on one topic, so its own statistics call the topic's words worthless;
 * this background says which words are common anywhere.
 */
export class BackgroundFrequencies {
  private constructor(
    private readonly counts: ReadonlyMap<string, number>,
    private readonly total: number,
  ) {}

  static english(): BackgroundFrequencies {
    if (!english) {
      const table = (require('./backgroundTable') as typeof BackgroundTable).default;
      english = new BackgroundFrequencies(new Map(Object.entries(table.counts)), table.total);
    }
    return english;
  }

  /** The share of abstract-sized texts that would hold the term, from 1e-4 (rare) to 1. */
  fraction(term: string): number {
    return Math.max(RAREST_FRACTION, Math.min(1, (ABSTRACT_WORDS * (this.counts.get(term) ?? 0)) / this.total));
  }

  /** Inverse document frequency on the scale of `TermStatistics.idf`: 1 for the commonest terms. */
  idf(term: string): number {
    return Math.log(1 / this.fraction(term)) + 1;
  }

  isCommon(term: string): boolean {
    return this.fraction(term) >= COMMON_FRACTION;
  }
}

let english: BackgroundFrequencies | undefined;
