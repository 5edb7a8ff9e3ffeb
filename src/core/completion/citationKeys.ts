import MiniSearch from 'minisearch';
import { asRecord } from '../bibliography/citing';
import { listAuthors } from '../bibliography/describe';
import { citationKeyFor, findExisting, identifiersOf } from '../bibliography/generate';
import type { BibEntry } from '../bibliography/types';
import type { Paper } from '../papers/paper';
import type { PaperMatch } from './libraryKeys';
import { normalizeText } from '../verify/normalize';

/** A key the writer may cite, with what the completion item shows of its work. */
export interface KeyCandidate {
  readonly key: string;
  readonly title?: string;
  readonly authors: string;
  readonly year?: number;
  readonly venue?: string;
}

/** What completion offers: a key of the bibliographies, or a paper of the library cited by the key it would be given. */
export type Completion = KeyCandidate & { readonly paper?: Paper };

function candidateOf(entry: BibEntry): KeyCandidate {
  return { key: entry.key, title: entry.title, authors: listAuthors(entry.authors, 3), year: entry.year, venue: entry.venue };
}

type Indexed = KeyCandidate & { readonly id: string };

const NO_KEYS: ReadonlySet<string> = new Set();
/** How many keys of the bibliographies, and how many papers of the library, completion offers at most. */
export const COMPLETIONS = 100;

/**
 * Ranks the bibliographies' citation keys for what the writer typed: prefix and fuzzy search over key,
 * title, authors, year and venue, every word required, so "vaswani attent" finds
 * `vaswani2017attention`. The index is kept up to date by difference, so that an edit of the
 * bibliography re-indexes only the entries it changed. MiniSearch does the matching and ranking.
 * The library's papers are matched in the library's thread (`PaperKeyIndex`); `fromLibrary` leaves
 * out those the bibliographies already have (same DOI, arXiv id or title, as Add to bibliography
 * decides), since their entries are offered.
 */
export class KeyCompleter {
  private readonly search = new MiniSearch<Indexed>({
    fields: ['key', 'keyWords', 'title', 'authors', 'year', 'venue'],
    // A key's own words ("vaswani2017attention" is vaswani, 2017, attention) are what a writer recalls it by.
    extractField: (document, field) =>
      field === 'keyWords' ? document.key.replace(/(\p{Ll})(\p{Lu})|(\p{L})(\p{N})|(\p{N})(\p{L})/gu, '$1$3$5 $2$4$6') : String(document[field as keyof Indexed] ?? ''),
    // A one-letter word after others ("vitamin d") is a word, not the start of every word with that letter.
    searchOptions: {
      prefix: (term, _i, terms) => term.length > 1 || terms.length === 1,
      fuzzy: (term) => (term.length > 4 ? 0.2 : 0),
      combineWith: 'AND',
      boost: { key: 2, keyWords: 2, title: 1.5, authors: 1.5 },
    },
  });
  /** The bibliographies' keys in their order, each with its candidate and what it was indexed from. */
  private entries = new Map<string, { readonly candidate: KeyCandidate; readonly indexed: string }>();
  /** The bibliographies' entries by DOI, arXiv id and title, to tell which library papers they have. */
  private owners = new Map<string, BibEntry[]>();
  private lowerKeys: ReadonlySet<string> = NO_KEYS;

  /** Updates of the bibliographies, one after the other: each compares with what the one before left. */
  private updating: Promise<void> = Promise.resolve();

  constructor(entries: Iterable<KeyCandidate> = []) {
    this.search.addAll(this.setCandidates(entries));
  }

  /**
   * The manuscript's bibliographies are now `entries`: what changed is re-indexed, the rest kept, a
   * chunk at a time. Meanwhile, completion offers every
   * key already but finds a changed entry by its words only once it is indexed.
   */
  setEntries(entries: readonly BibEntry[]): Promise<void> {
    const update = this.updating.then(() => this.update(entries));
    this.updating = update.catch(() => undefined);
    return update;
  }

  private async update(entries: readonly BibEntry[]): Promise<void> {
    const added = this.setCandidates(entries.map(candidateOf));
    await inChunks(added, (chunk) => this.search.addAll(chunk));
    // The library papers are compared with the entries before until every title is normalised.
    const owners = new Map<string, BibEntry[]>();
    await inChunks(entries, (chunk) => {
      for (const entry of chunk) {
        for (const id of identities(entry)) {
          const same = owners.get(id);
          if (same) same.push(entry);
          else owners.set(id, [entry]);
        }
      }
    });
    this.owners = owners;
  }

  /**
   * The best keys for `typed`, best first: the keys it begins, in their order, then what the search
   * ranks; every key of the bibliographies, in order, when nothing is typed.
   */
  complete(typed: string, limit = COMPLETIONS): KeyCandidate[] {
    const words = typed.trim();
    if (words === '') return [...this.entries.values()].slice(0, limit).map((e) => e.candidate);
    // A key is typed as it is written: `smith:2` or `Foreman-Mackey:2` begins `smith:2020`, though the
    // search, which splits it into words, takes a last word of one letter for a whole word.
    const starting = this.startingWith(words, limit);
    if (words.length === 1 || starting.length === limit) return starting;
    const offered = new Set(starting.map((c) => c.key));
    const ranked = this.search
      .search(words)
      .slice(0, limit)
      .flatMap((hit) => this.entries.get(String(hit.id).slice(1))?.candidate ?? [])
      .filter((c) => !offered.has(c.key));
    return [...starting, ...ranked].slice(0, limit);
  }

  /**
   * The library's `matches` as completions, in their order: those a bibliography has are left out, and
   * one whose key a bibliography uses for another work gets the key Add to bibliography would give it.
   */
  fromLibrary(matches: readonly PaperMatch[], limit = COMPLETIONS): Completion[] {
    const found: Completion[] = [];
    for (const { key, paper } of matches) {
      if (found.length === limit) break;
      const completion = this.paperCompletion(key, paper);
      if (completion) found.push(completion);
    }
    return found;
  }

  /**
   * The keys that start with `prefix`, in their order, compared without case as BibTeX compares keys.
   * One letter says how a key starts, not which of the title words with that letter is meant: these
   * are all it offers. Not a prefix search of the index, which would walk every word of every field
   * that starts with the letter.
   */
  private startingWith(prefix: string, limit: number): KeyCandidate[] {
    const lower = prefix.toLowerCase();
    const found: KeyCandidate[] = [];
    for (const { candidate } of this.entries.values()) {
      if (found.length === limit) return found;
      if (candidate.key.toLowerCase().startsWith(lower)) found.push(candidate);
    }
    return found;
  }

  /** Takes `candidates` as the bibliographies' keys, and returns what the index has yet to add of them. */
  private setCandidates(candidates: Iterable<KeyCandidate>): Indexed[] {
    const next = new Map<string, { candidate: KeyCandidate; indexed: string }>();
    for (const candidate of candidates) {
      if (!next.has(candidate.key)) next.set(candidate.key, { candidate, indexed: JSON.stringify(candidate) });
    }
    for (const [key, before] of this.entries) {
      if (next.get(key)?.indexed !== before.indexed) this.search.discard(`k${key}`);
    }
    const added = [...next].filter(([key, now]) => this.entries.get(key)?.indexed !== now.indexed).map(([key, now]) => ({ ...now.candidate, id: `k${key}` }));
    this.entries = next;
    this.lowerKeys = new Set([...next.keys()].map((k) => k.toLowerCase()));
    return added;
  }

  /** A library paper as it would be cited, unless a bibliography has it already. */
  private paperCompletion(key: string, paper: Paper): Completion | undefined {
    const record = asRecord(paper);
    const owners = identities(paper).flatMap((i) => this.owners.get(i) ?? []);
    if (owners.length > 0 && findExisting(record, owners)) return undefined;
    return {
      key: this.lowerKeys.has(key) ? citationKeyFor(record, new Set(this.entries.keys())) : key,
      title: paper.title,
      authors: listAuthors(paper.authors, 3),
      year: paper.year,
      venue: paper.venue,
      paper,
    };
  }
}

/** How many entries are indexed before the thread is let go: a few milliseconds of work. */
const INDEX_CHUNK = 100;

/** Does `work` on `items` a chunk at a time, letting the thread go between chunks, so that indexing thousands never holds it long. */
async function inChunks<T>(items: readonly T[], work: (chunk: readonly T[]) => void): Promise<void> {
  for (let start = 0; start < items.length; start += INDEX_CHUNK) {
    work(items.slice(start, start + INDEX_CHUNK));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** What Add to bibliography compares a work by: its DOI, its arXiv id and its title, each normalised as it does. */
function identities(work: { readonly doi?: string; readonly arxivId?: string; readonly title?: string }): string[] {
  const { doi, arxiv } = identifiersOf(work);
  const title = work.title === undefined ? '' : normalizeText(work.title);
  return [doi && `doi:${doi}`, arxiv && `arxiv:${arxiv}`, title && `title:${title}`].filter((i): i is string => typeof i === 'string' && i !== '');
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
