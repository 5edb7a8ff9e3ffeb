import type { Author } from '../bibliography/types';
import type { SourceRecord } from '../sources/types';
import type { SourceId } from '../sources/ids';
import { combineUpdates } from '../verify/retraction';
import { hasRetractionMark } from '../verify/normalize';

/** A paper the source that found it shows not to stand: Find Evidence says so, and Suggest does not cite it. */
export type PaperStanding = 'retracted' | 'expression-of-concern' | 'withdrawn';

/** Where a paper's metadata came from, so evidence shown to the user can name and link its source. */
export interface PaperOrigin {
  readonly id: SourceId;
  /** The source's own identifier of the work. */
  readonly recordId: string;
  /** The record's page at the source. */
  readonly url?: string;
}

/** A published work as Attest searches and quotes it: what the index ranks and the verifier reads. */
export interface Paper {
  /** `doi:…`, else `arxiv:…`, else `<source>:<record id>`; see `paperId`. */
  readonly id: string;
  readonly title: string;
  readonly abstract?: string;
  readonly authors: readonly Author[];
  readonly year?: number;
  readonly venue?: string;
  /** Lower-case, without a `https://doi.org/` prefix. */
  readonly doi?: string;
  /** Without version suffix. */
  readonly arxivId?: string;
  readonly openAccessUrl?: string;
  /** Absent for a paper that came from no bibliographic source, such as a local collection. */
  readonly source?: PaperOrigin;
  /** Absent for a paper no source has shown to be retracted, withdrawn or under concern. */
  readonly standing?: PaperStanding;
}

/**
 * A paper's id. DOI first, then arXiv id, because those name the work itself: the same paper found
 * through two sources gets one id and is indexed once.
 */
export function paperId(record: Pick<SourceRecord, 'source' | 'id' | 'doi' | 'arxivId'>): string {
  if (record.doi) return `doi:${record.doi}`;
  if (record.arxivId) return `arxiv:${record.arxivId}`;
  return `${record.source}:${record.id}`;
}

export function paperFromRecord(record: SourceRecord): Paper {
  return {
    id: paperId(record),
    title: record.title,
    abstract: record.abstract,
    authors: record.authors,
    year: record.year,
    venue: record.venue,
    doi: record.doi,
    arxivId: record.arxivId,
    openAccessUrl: record.openAccessUrl,
    source: { id: record.source, recordId: record.id, url: record.url },
    ...optionalStanding(record),
  };
}

/**
 * What the record says of the paper's standing: its source's notices, else a "RETRACTED:" mark on its
 * title. A notice (a retraction notice found by a search) is no evidence either, and reads as retracted.
 */
function optionalStanding(record: SourceRecord): { standing?: PaperStanding } {
  const status = record.updates && combineUpdates([{ source: record.source, updates: record.updates }]).status;
  if (status === 'retracted' || status === 'notice' || hasRetractionMark(record.title)) return { standing: 'retracted' };
  return status === 'expression-of-concern' || status === 'withdrawn' ? { standing: status } : {};
}

/** Each paper once, in the order first cited; papers sharing an id are one work. */
export function distinctPapers(papers: readonly Paper[]): Paper[] {
  return [...new Map(papers.map((paper) => [paper.id, paper])).values()];
}
