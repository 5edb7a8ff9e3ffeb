import MiniSearch from 'minisearch';
import { listAuthors } from '../bibliography/describe';
import type { BibEntry } from '../bibliography/types';

/** A key the writer may cite, with what the completion item shows of its work. */
export interface KeyCandidate {
  readonly key: string;
  readonly title?: string;
  readonly authors: string;
  readonly year?: number;
  readonly venue?: string;
}

export function candidateOf(entry: BibEntry): KeyCandidate {
  return { key: entry.key, title: entry.title, authors: listAuthors(entry.authors, 3), year: entry.year, venue: entry.venue };
}

/**
 * Ranks citation keys for what the writer typed: prefix and fuzzy search over key, title, authors,
 * year and venue, every word required, so "vaswani attent" finds `vaswani2017attention`. MiniSearch
 * does the matching and ranking; no hand-written index.
 */
export class KeyCompleter {
  private readonly search = new MiniSearch<KeyCandidate & { id: number }>({
    fields: ['key', 'keyWords', 'title', 'authors', 'year', 'venue'],
    // A key's own words ("vaswani2017attention" is vaswani, 2017, attention) are what a writer recalls it by.
    extractField: (document, field) =>
      field === 'keyWords' ? document.key.replace(/(\p{Ll})(\p{Lu})|(\p{L})(\p{N})|(\p{N})(\p{L})/gu, '$1$3$5 $2$4$6') : String(document[field as keyof KeyCandidate] ?? ''),
    // A one-letter word after others ("vitamin d") is a word, not the start of every word with that letter.
    searchOptions: { prefix: (term, _i, terms) => term.length > 1 || terms.length === 1, fuzzy: (term) => (term.length > 4 ? 0.2 : 0), combineWith: 'AND', boost: { key: 2, keyWords: 2, title: 1.5, authors: 1.5 } },
  });
  private readonly candidates: KeyCandidate[];

  constructor(candidates: Iterable<KeyCandidate>) {
    const seen = new Set<string>();
    this.candidates = [...candidates].filter((c) => !seen.has(c.key) && seen.add(c.key));
    this.search.addAll(this.candidates.map((c, id) => ({ ...c, id })));
  }

  /** The best candidates for `typed`, best first; every candidate, in order, when nothing is typed. */
  complete(typed: string, limit = 100): KeyCandidate[] {
    if (typed.trim() === '') return this.candidates.slice(0, limit);
    return this.search.search(typed).slice(0, limit).map((hit) => this.candidates[hit.id as number]);
  }
}

/** Where the key being typed starts on its line, and what is typed of it so far. */
export interface KeyContext {
  readonly start: number;
  readonly typed: string;
}

/** `\cite{`, `\citep[p. 3]{a, `, `\textcite*{`: the open key list of a LaTeX citation command. */
const LATEX_CITE = /\\[a-zA-Z]*cite[a-zA-Z]*\*?(?:\[[^\]\n]*\]){0,2}\{([^{}\n]*)$/;
/** `[@`, `[see @a; @`, `@` at a word start: a pandoc citation being typed. */
const PANDOC_CITE = /(?:^|[\s[;(])-?@([^\s@;,[\]{}]*)$/;

/**
 * Whether the text before the cursor on its line is inside a citation, and the key typed so far:
 * in LaTeX, what follows the last comma of the key list, spaces included ("vaswani attent").
 */
export function keyContext(lineBefore: string, language: 'latex' | 'markdown'): KeyContext | undefined {
  if (language === 'latex') {
    const match = LATEX_CITE.exec(lineBefore);
    if (!match) return undefined;
    const list = match[1];
    const afterComma = list.lastIndexOf(',') + 1;
    const leading = /^\s*/.exec(list.slice(afterComma))?.[0].length ?? 0;
    const start = lineBefore.length - list.length + afterComma + leading;
    return { start, typed: lineBefore.slice(start) };
  }
  const match = PANDOC_CITE.exec(lineBefore);
  if (!match) return undefined;
  return { start: lineBefore.length - match[1].length, typed: match[1] };
}
