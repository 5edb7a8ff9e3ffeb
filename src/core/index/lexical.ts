/**
 * Lexical search over papers: the side of Find Evidence that needs no model, and all of it when no
 * sentence encoder is installed.
 *
 *   const index = new LexicalIndex();
 *   index.add(paper);                                  // again with the same id replaces it
 *   index.search('IL-6 predicts mortality', 20)        // [{ id, score }], best first
 *   index.bestSentence(query, paper.abstract)          // the sentence to show under the title
 *   LexicalIndex.fromJSON(JSON.parse(JSON.stringify(index)))
 *
 * A paper is two fields: its title, and its title and abstract as one text. Ranking is BM25 over
 * the text plus a fifth of the title's BM25, so a title that names the query's terms lifts a paper
 * a little. Measured on BEIR SciFact's 809 training claims (nDCG@10): title and abstract as separate
 * fields with MiniSearch's defaults, 0.672; one text field, 0.698; text plus title at 0.2, 0.704.
 * The title at weight 1 (0.670), MiniSearch's reward for matching more distinct query terms (0.677),
 * the BM25+ floor, RM3 query expansion (+0.003 ± 0.003, for a second and longer search), word-pair
 * matching and adding best-sentence scores all did no better.
 */
import type { Paper } from '../papers/paper';
import { analyze, termFrequencies } from './analyzer';
import { Bm25Index, Bm25Searcher, partsIdf, type Bm25Hit, type Bm25IndexData, type Bm25Part, type Bm25Settings } from './bm25';
import { bestSentence, type Passage } from './passages';

/** Fields in the order `add` gives them: the title, then title and abstract as one text. */
const TEXT = 1;

/**
 * k1 and b are MiniSearch's defaults, near Lucene's (1.2, 0.75); on SciFact's training claims every
 * k1 in 0.8–1.4 with b in 0.4–0.7 came within 0.005 of the best.
 */
const SETTINGS: Bm25Settings = { k1: 1.2, b: 0.7, fieldWeights: [0.2, 1] };

export type LexicalHit = Bm25Hit;
export type LexicalIndexData = Bm25IndexData;

/** What Find Evidence asks of the lexical side, whether one index in memory or the library's segments. */
export interface LexicalSearch {
  /** The `limit` papers that best match the query, best first. */
  search(query: string, limit: number): LexicalHit[];
  /** The abstract's sentence that best matches the query, weighing terms by their rarity in the papers searched. */
  bestSentence(query: string, abstract: string): Passage | undefined;
}

export class LexicalIndex implements LexicalSearch {
  private bm25 = new Bm25Index(SETTINGS);

  static fromJSON(data: LexicalIndexData): LexicalIndex {
    const index = new LexicalIndex();
    index.bm25 = Bm25Index.fromJSON(data, SETTINGS);
    return index;
  }

  get size(): number {
    return this.bm25.size;
  }

  has(id: string): boolean {
    return this.bm25.has(id);
  }

  add(paper: Paper): void {
    const title = analyze(paper.title);
    this.bm25.add(paper.id, [title, [...title, ...analyze(paper.abstract ?? '')]]);
  }

  remove(id: string): boolean {
    return this.bm25.remove(id);
  }

  /** The `limit` papers that best match the query, best first. */
  search(query: string, limit: number): LexicalHit[] {
    return this.bm25.search(termFrequencies(analyze(query)), limit);
  }

  /** The abstract's sentence that best matches the query, weighing terms by their rarity in this index. */
  bestSentence(query: string, abstract: string): Passage | undefined {
    return bestSentence(query, abstract, (term) => this.bm25.idf(term, TEXT));
  }

  toJSON(): LexicalIndexData {
    return this.bm25.toJSON();
  }

  /** The index as a part of a search over several (see `LexicalParts`). */
  asPart(): Bm25Part {
    return this.bm25.asPart();
  }

  /** The paper id of a doc number of `asPart`; undefined where it was removed. */
  idAt(doc: number): string | undefined {
    return this.bm25.idAt(doc);
  }

  /** Every term the index holds. */
  terms(): IterableIterator<string> {
    return this.bm25.terms();
  }
}

/** A part of a `LexicalParts` search: its postings, and the paper id of each of its doc numbers. */
export interface LexicalPart {
  readonly bm25: Bm25Part;
  idAt(doc: number): string | undefined;
}

/**
 * Lexical search over several parts as if they were one index: the library's segments on disk, and
 * in memory the papers not saved yet. The ranking is the one a single index of the same papers,
 * added in the same order, gives.
 */
export class LexicalParts implements LexicalSearch {
  private readonly searcher = new Bm25Searcher(SETTINGS);
  /** Each term's weight once read: a best sentence weighs every term of an abstract, each a read of its postings. */
  private readonly idf = new Map<string, number>();

  constructor(private readonly parts: readonly LexicalPart[]) {}

  search(query: string, limit: number): LexicalHit[] {
    const bm25 = this.parts.map((part) => part.bm25);
    return this.searcher.search(bm25, termFrequencies(analyze(query)), limit).map(({ part, doc, score }) => ({ id: this.parts[part].idAt(doc) as string, score }));
  }

  bestSentence(query: string, abstract: string): Passage | undefined {
    const bm25 = this.parts.map((part) => part.bm25);
    return bestSentence(query, abstract, (term) => {
      let weight = this.idf.get(term);
      if (weight === undefined) this.idf.set(term, (weight = partsIdf(bm25, term, TEXT)));
      return weight;
    });
  }
}
