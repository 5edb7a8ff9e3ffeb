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
  /** Whether any source answered: finding nothing where none did says nothing about the reference. */
  readonly answered: boolean;
}

/** How many records each search asks for, and how many are offered. */
const ASKED = 5;
const OFFERED = 5;

/**
 * The records that may be the work an entry no source has meant (a misremembered reference): each
 * source is searched by the entry's title with its authors, and by the title alone, since a wrong
 * co-author hides the real paper. Only a record the existence check would take for the entry's
 * work is offered (`compareEntryToRecord`: a shared identifier, the same title, or a close title by
 * the same first author); a work that merely shares words with a made-up reference is another
 * paper, and writing its metadata into the entry would hide the fabrication. Records are ranked by
 * how well they match, each work once. A source that fails is named in `failures`, never fatal.
 */
export async function nearestRecords(entry: BibEntry, sources: readonly PaperSource[], request: RequestOptions = {}): Promise<NearestRecords> {
  if (!entry.title) return { records: [], failures: [], answered: false };
  const authors = entry.authors.map((a) => a.family ?? a.literal ?? '').filter((name) => name !== '');
  const queries: BibliographicQuery[] = [
    { title: entry.title, authors, year: entry.year, limit: ASKED },
    { title: entry.title, limit: ASKED },
  ];
  const failures: string[] = [];
  let answered = false;
  const answers = await Promise.all(
    sources.flatMap((source) =>
      queries.map(async (query) => {
        try {
          const records = await source.search(query, request);
          answered = true;
          return records;
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
    .filter(({ match }) => match.decision !== 'different-work')
    .sort((a, b) => b.match.score - a.match.score);
  const records = [...distinctWorks(ranked, ({ record }) => paperFromRecord(record))].slice(0, OFFERED).map(({ record, match }) => ({ record, differences: match.differences }));
  return { records, failures: [...new Set(failures)], answered };
}
