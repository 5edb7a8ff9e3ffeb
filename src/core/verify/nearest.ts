import type { BibEntry } from '../bibliography/types';
import { distinctWorks } from '../index/distinctWorks';
import { paperFromRecord } from '../papers/paper';
import { SOURCE_NAMES } from '../sources/config';
import { SourceError, type BibliographicQuery, type PaperSource, type RequestOptions, type SourceRecord } from '../sources/types';
import { compareEntryToRecord, type FieldDifference } from './match';

/** A record that may be the work an entry meant, with what differs between them. */
export interface NearRecord {
  readonly record: SourceRecord;
  readonly differences: readonly FieldDifference[];
}

export interface NearestRecords {
  readonly records: readonly NearRecord[];
  /** Why a source could not be searched, one line each. */
  readonly failures: readonly string[];
}

/** How many records each search asks for, and how many are offered. */
const ASKED = 5;
const OFFERED = 5;

/**
 * The records closest to an entry no source has (a reference that is possibly fabricated, or
 * misremembered): each source is searched by the entry's title with its authors, and by the title
 * alone, since a made-up author list hides the real paper. Records are ranked by how well they match
 * the entry, each work once. A source that fails is named in `failures`, never fatal.
 */
export async function nearestRecords(entry: BibEntry, sources: readonly PaperSource[], request: RequestOptions = {}): Promise<NearestRecords> {
  if (!entry.title) return { records: [], failures: [] };
  const authors = entry.authors.map((a) => a.family ?? a.literal ?? '').filter((name) => name !== '');
  const queries: BibliographicQuery[] = [{ title: entry.title, authors, year: entry.year, limit: ASKED }, { title: entry.title, limit: ASKED }];
  const failures: string[] = [];
  const answers = await Promise.all(
    sources.flatMap((source) =>
      queries.map(async (query) => {
        try {
          return await source.search(query, request);
        } catch (error) {
          if (!(error instanceof SourceError) || error.kind === 'cancelled') throw error;
          failures.push(`${SOURCE_NAMES[source.id]}: ${error.message}`);
          return [];
        }
      }),
    ),
  );
  const ranked = answers
    .flat()
    .map((record) => ({ record, match: compareEntryToRecord(entry, record) }))
    .sort((a, b) => b.match.score - a.match.score);
  const records = [...distinctWorks(ranked, ({ record }) => paperFromRecord(record))]
    .slice(0, OFFERED)
    .map(({ record, match }) => ({ record, differences: match.differences }));
  return { records, failures: [...new Set(failures)] };
}
