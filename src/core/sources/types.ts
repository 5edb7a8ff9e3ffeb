import type { Author } from '../bibliography/types';
import type { CheckRun, SourceErrorKind } from './health';
import type { SourceId } from './ids';

/** A bibliographic record as a source returns it, normalised to one shape. */
export interface SourceRecord {
  readonly source: SourceId;
  /** The source's own identifier: an OpenAlex work id, a Semantic Scholar paperId, an arXiv id, a PMID, … */
  readonly id: string;
  /** The record's page at the source, for "Open record". */
  readonly url?: string;
  readonly title: string;
  readonly authors: readonly Author[];
  readonly year?: number;
  readonly venue?: string;
  /** Lower-case, without a `https://doi.org/` prefix. */
  readonly doi?: string;
  /** Without version suffix: `2305.18248`, `hep-th/9901001`. */
  readonly arxivId?: string;
  /** PubMed's id and PubMed Central's (`PMC…`), where the source gives them. */
  readonly pmid?: string;
  readonly pmcid?: string;
  /** A book's ISBN-13, without separators, where the source gives one. */
  readonly isbn?: string;
  readonly abstract?: string;
  readonly openAccessUrl?: string;
  /** A preprint by the source's own account (Crossref's `posted-content`), whatever its venue says. */
  readonly preprint?: boolean;
  /** For a preprint, the DOI of its published version as the source links them (Crossref's `is-preprint-of`). */
  readonly publishedDoi?: string;
  /** What the source says of the work's retractions, withdrawals, concerns and corrections, where it can say. */
  readonly updates?: UpdateSignals;
}

/** What a title search looks for: the fields of a .bib entry that identify a work. */
export interface BibliographicQuery {
  readonly title: string;
  /** Family names, first author first. */
  readonly authors?: readonly string[];
  readonly year?: number;
  /**
   * The whole reference as written, for an entry read from text: what Crossref's
   * `query.bibliographic` is made for, matched there better than the title alone.
   */
  readonly citation?: string;
  /** How many candidates to return at most. */
  readonly limit?: number;
}

export interface RequestOptions {
  readonly signal?: AbortSignal;
  /** A cached answer older than this is asked again (a retraction status is kept a week, metadata a month). */
  readonly maxCacheAgeMs?: number;
  /** The check the request belongs to: a source that keeps failing is skipped until it ends. */
  readonly run?: CheckRun;
}

/**
 * One open bibliographic source. `byDoi` and `byArxivId` resolve to undefined when the source answers
 * that it has no such work (a 404), and throw `SourceError` when it could not answer.
 */
export interface PaperSource {
  readonly id: SourceId;
  /** The name users know it by: "OpenAlex", "Crossref", … */
  readonly name: string;
  /**
   * True for a source that indexes one field or kind of work (Europe PMC: the life sciences; arXiv:
   * preprints), so that its finding nothing says little about a work from elsewhere.
   */
  readonly partialCoverage?: boolean;
  /**
   * True for a source that holds books only (Open Library): searched by title for an entry that is a
   * book, and for no other, so that it neither spends its allowance nor counts as an answer about an article.
   */
  readonly booksOnly?: boolean;
  /** True for a source whose records carry `updates`: what it knows of retractions and other notices. */
  readonly reportsUpdates?: boolean;
  byDoi?(doi: string, options?: RequestOptions): Promise<SourceRecord | undefined>;
  byArxivId?(arxivId: string, options?: RequestOptions): Promise<SourceRecord | undefined>;
  search(query: BibliographicQuery, options?: RequestOptions): Promise<SourceRecord[]>;
  /**
   * The names of the venues (journals, conferences) the source knows by a name like `name`: display
   * names, abbreviations and former titles. Throws `SourceError` like the others.
   */
  /** A work by its PubMed id (digits) or PubMed Central id (`PMC…`), where the source holds them. */
  byPubMedId?(id: string, options?: RequestOptions): Promise<SourceRecord | undefined>;
  /** A book by its ISBN-13 (`normalizeIsbn`'s form). */
  byIsbn?(isbn: string, options?: RequestOptions): Promise<SourceRecord | undefined>;
  searchVenues?(name: string, options?: RequestOptions): Promise<string[]>;
  /** True when `searchVenues` knows journals only (Crossref's), so a conference it lacks says little. */
  readonly venuesJournalsOnly?: boolean;
  /**
   * Looks many works up in one request where the source offers it, so that later `byDoi` and
   * `byArxivId` calls for them are answered from memory. Throws `SourceError` like the others.
   */
  prefetch?(ids: { readonly dois: readonly string[]; readonly arxivIds: readonly string[] }, options?: RequestOptions): Promise<void>;
  /**
   * Makes a local source ready to answer (DBLP's dump indexed, where it is not yet), reporting progress
   * when that takes a while; a host runs it before a check, or in the background. Throws `SourceError`
   * when the source cannot be made ready; the message says what to do.
   */
  prepare?(options?: PrepareOptions): Promise<void>;
}

/** How a host follows and cancels a local source's preparation. */
export interface PrepareOptions {
  readonly signal?: AbortSignal;
  /** Called as a long preparation (an index being built) advances; not called when there is nothing to do. */
  readonly onProgress?: (progress: PrepareProgress) => void;
}

export interface PrepareProgress {
  /** What is being done, for a progress line: "Indexing DBLP's dump dblp.xml.gz". */
  readonly task: string;
  /** The share done, 0 to 1. */
  readonly fraction: number;
  /** Records read so far. */
  readonly records: number;
}

export class SourceError extends Error {
  constructor(
    readonly kind: SourceErrorKind,
    message: string,
    readonly source?: SourceId,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

/** Kinds of notice, most serious first within each group. */
export type NoticeType = 'retraction' | 'partial-retraction' | 'removal' | 'withdrawal' | 'expression-of-concern' | 'correction';

/** One notice about a work, as one source lists it. */
export interface UpdateNotice {
  readonly type: NoticeType;
  /** The notice's own DOI, lower case; absent where the source names it otherwise (Europe PMC's PubMed id). */
  readonly doi?: string;
  /** The notice's page. */
  readonly url?: string;
  /** When the notice was issued, as `YYYY`, `YYYY-MM` or `YYYY-MM-DD`. */
  readonly date?: string;
  /** How the source describes the notice: Crossref's label, Europe PMC's reference ("Lancet. 2020;395:1820"). */
  readonly label?: string;
  /** The source that listed it. */
  readonly source: SourceId;
}

/**
 * A source's answer about the work's notices. Present on a record only where the source can say (its
 * answer had the fields); an empty `notices` with no flag is then "none known to this source".
 */
export interface UpdateSignals {
  readonly notices: readonly UpdateNotice[];
  /** The source marks the work retracted without naming the notice (OpenAlex's `is_retracted`, Europe PMC's type). */
  readonly retracted?: true;
  /** The record is itself a notice about another work. */
  readonly isNotice?: true;
  /**
   * The record's notice points at the record itself: a notice deposited by a publisher's slip, or a work
   * retracted in place. Only another source's word tells which.
   */
  readonly updatesItself?: true;
  /** arXiv: the authors withdrew this e-print; their comment says why. */
  readonly withdrawn?: string;
}
