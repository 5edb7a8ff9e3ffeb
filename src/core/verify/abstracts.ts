import type { BibEntry } from '../bibliography/types';
import { abstractSentences } from '../index/passages';
import { normalizeArxivId, normalizeDoi } from '../sources/normalize';
import { SourceError, type PaperSource, type RequestOptions, type SourceRecord } from '../sources/types';

/** Where an abstract came from, for the user to judge the evidence drawn from it. */
export interface Abstract {
  readonly text: string;
  /** `bib` for the entry's own `abstract` field, else the source that supplied it. */
  readonly from: string;
}

/** Shorter than this, a field is a note rather than an abstract ("Update Jan.", a publisher's address). */
const MIN_ABSTRACT_LENGTH = 100;

/**
 * Whether a `.bib` `abstract` field can be an abstract to judge a claim against: at least two sentences
 * and 100 characters. The field often holds something else ("R Foundation for Statistical Computing, Vienna,
 * Austria."), and judging a sentence against it would report a problem the manuscript does not have.
 */
export function isAbstract(text: string | undefined): text is string {
  const trimmed = text?.trim() ?? '';
  return trimmed.length >= MIN_ABSTRACT_LENGTH && abstractSentences(trimmed).length >= 2;
}

/** What the sources said of a found work's abstract. */
export interface AbstractAnswer {
  readonly abstract?: Abstract;
  /**
   * A source that might have held the abstract could not answer (down, too slow): without an abstract,
   * that is no answer, not the work's lack of one.
   */
  readonly incomplete: boolean;
}

/**
 * The abstract of a reference that was found: the .bib's own, else the matched record's, else the
 * first other source that has the same work by DOI or arXiv id with an abstract (OpenAlex and Crossref
 * often lack one that Semantic Scholar or Europe PMC hold). Lookups go through the sources' disk cache.
 */
export async function abstractOf(entry: BibEntry, record: SourceRecord, sources: readonly PaperSource[], options: RequestOptions = {}): Promise<AbstractAnswer> {
  if (isAbstract(entry.abstract)) return { abstract: { text: entry.abstract.trim(), from: 'bib' }, incomplete: false };
  if (record.abstract?.trim()) return { abstract: { text: record.abstract.trim(), from: record.source }, incomplete: false };
  // Only identifiers the sources can be asked about: one they cannot read is no question at all.
  const doi = [record.doi, entry.doi].map((d) => d && normalizeDoi(d)).find((d) => d !== undefined);
  const arxivId = [record.arxivId, entry.arxivId].map((a) => a && normalizeArxivId(a)).find((a) => a !== undefined);
  let incomplete = false;
  for (const source of sources) {
    if (source.id === record.source) continue;
    try {
      const other = (doi ? await source.byDoi?.(doi, options) : undefined) ?? (arxivId ? await source.byArxivId?.(arxivId, options) : undefined);
      if (other?.abstract?.trim()) return { abstract: { text: other.abstract.trim(), from: source.id }, incomplete: false };
    } catch (error) {
      if (!(error instanceof SourceError) || error.kind === 'cancelled') throw error;
      incomplete = true;
    }
  }
  return { incomplete };
}
