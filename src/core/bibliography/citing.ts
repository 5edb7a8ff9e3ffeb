/**
 * The key each paper is cited by when Attest cites it: its entry's when one of the manuscript's
 * bibliographies has it (by DOI, arXiv id or title), else a new key with the BibTeX entry to add.
 * The editor's Cite here, Add to bibliography and a suggestion's Accept use it, and `attest suggest`.
 */
import type { Paper } from '../papers/paper';
import type { SourceRecord } from '../sources/types';
import { bibtexFor, citationKeyFor, findExisting } from './generate';
import type { BibEntry } from './types';

export type CitingReference =
  | { readonly kind: 'existing'; readonly key: string; readonly entry: BibEntry }
  /** `bibtex` ends without a line break. */
  | { readonly kind: 'new'; readonly key: string; readonly bibtex: string };

/** `taken`: keys in use besides the entries' (e.g. `\bibitem`s), which a new key must not repeat. */
export function citingReferences(papers: readonly Paper[], entries: readonly BibEntry[], taken: Iterable<string> = []): CitingReference[] {
  const used = new Set([...entries.map((e) => e.key), ...taken]);
  const made = new Map<string, CitingReference>();
  return papers.map((paper): CitingReference => {
    const record = asRecord(paper);
    const entry = findExisting(record, entries);
    if (entry) return { kind: 'existing', key: entry.key, entry };
    const already = made.get(paper.id);
    if (already) return already;
    const key = citationKeyFor(record, used);
    used.add(key);
    const reference: CitingReference = { kind: 'new', key, bibtex: bibtexFor(record, key).trim() };
    made.set(paper.id, reference);
    return reference;
  });
}

/**
 * The paper as the BibTeX writer, the key maker and the de-duplication take it. They read its
 * bibliographic fields and links, never `source` or `id` (see generate.ts), so a paper from a local
 * collection, which came from no source, is not given an invented one.
 */
export function asRecord(paper: Paper): SourceRecord {
  const work: Omit<SourceRecord, 'source' | 'id'> = {
    title: paper.title,
    authors: paper.authors,
    year: paper.year,
    venue: paper.venue,
    doi: paper.doi,
    arxivId: paper.arxivId,
    openAccessUrl: paper.openAccessUrl,
    url: paper.source?.url,
  };
  return work as SourceRecord;
}
