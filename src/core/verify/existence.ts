import type { BibEntry } from '../bibliography/types';
import { SourceError, type PaperSource, type SourceId, type SourceRecord } from '../sources/types';
import { SOURCE_NAMES } from '../sources/config';
import { compareEntryToRecord, pickBestMatch, type FieldDifference } from './match';

/** How the matched record was found. */
export type LookupRoute = 'doi' | 'arxiv' | 'title';

/** What the open sources say about one bibliography entry. */
export type ExistenceVerdict =
  | { readonly status: 'found'; readonly record: SourceRecord; readonly via: LookupRoute }
  | {
      readonly status: 'metadata-mismatch';
      readonly record: SourceRecord;
      readonly via: LookupRoute;
      readonly differences: readonly FieldDifference[];
    }
  | {
      readonly status: 'not-found';
      /** The sources that answered and had no matching record. */
      readonly asked: readonly SourceId[];
      /** A DOI of the entry that exists but names a different work. */
      readonly doiNamesOther?: SourceRecord;
    }
  | { readonly status: 'unchecked'; readonly reason: string };

/** Work types the sources index well; for others a failed search is no sign of fabrication. */
const INDEXED_TYPES = new Set(['article', 'inproceedings', 'conference', 'incollection', 'inbook', 'proceedings']);

/** A not-found verdict needs this many sources to have answered, so one source's gap is not taken for fabrication. */
const MIN_ANSWERS_FOR_NOT_FOUND = 2;

interface Attempts {
  readonly answered: Set<SourceId>;
  readonly failures: SourceError[];
}

/**
 * Looks an entry up: by DOI, then arXiv id, then title with first author and year, and compares what
 * it finds with what the entry says. A source that cannot answer never counts against the entry.
 */
export async function resolveEntry(entry: BibEntry, sources: readonly PaperSource[], signal?: AbortSignal): Promise<ExistenceVerdict> {
  if (sources.length === 0) return { status: 'unchecked', reason: 'No bibliographic source is enabled.' };
  const attempts: Attempts = { answered: new Set(), failures: [] };
  let doiNamesOther: SourceRecord | undefined;
  /** Sources that answered that they know no work with the entry's DOI. */
  const doiUnknownTo: SourceId[] = [];

  for (const [route, id, lookup] of identifierLookups(entry)) {
    for (const source of sources) {
      const answer = await ask(source, attempts, signal, (s) => lookup(s, id));
      if (!answer) continue;
      const record = answer.value;
      if (!record) {
        if (route === 'doi') doiUnknownTo.push(source.id);
        continue;
      }
      const comparison = compareEntryToRecord(entry, record);
      if (comparison.decision !== 'different-work') return verdictFor(record, route, comparison.differences);
      // The identifier exists but names another work: the entry may still exist under its title.
      if (route === 'doi') doiNamesOther ??= record;
      break;
    }
  }

  if (entry.title) {
    for (const source of sources) {
      const answer = await ask(source, attempts, signal, (s) =>
        s.search({ title: entry.title ?? '', authors: entry.authors.map((a) => a.family ?? a.literal ?? '').filter((n) => n), year: entry.year, limit: 5 }),
      );
      const best = answer && pickBestMatch(entry, answer.value);
      if (best) return verdictFor(best.record, 'title', withUnresolvedDoi(entry, best.differences, doiNamesOther ? [] : doiUnknownTo));
    }
  }

  return notFoundOrUnchecked(entry, attempts, doiNamesOther);
}

/**
 * A DOI that sources asked directly say does not exist is wrong metadata once the work is found by its
 * title, whatever DOI (or none) the record has. It takes two such answers, because one index's gap
 * (a DataCite DOI Crossref does not hold) is not a DOI's absence.
 */
function withUnresolvedDoi(entry: BibEntry, differences: readonly FieldDifference[], unknownTo: readonly SourceId[]): readonly FieldDifference[] {
  if (!entry.doi || unknownTo.length < 2 || differences.some((d) => d.field === 'doi')) return differences;
  const names = unknownTo.map((id) => SOURCE_NAMES[id]).join(', ');
  return [...differences, { field: 'doi', status: 'differ', expected: entry.doi, found: `(no such DOI in ${names})`, note: 'the DOI does not resolve' }];
}

function verdictFor(record: SourceRecord, via: LookupRoute, differences: readonly FieldDifference[]): ExistenceVerdict {
  return differences.length === 0 ? { status: 'found', record, via } : { status: 'metadata-mismatch', record, via, differences };
}

type IdentifierLookup = readonly [LookupRoute, string, (source: PaperSource, id: string) => Promise<SourceRecord | undefined> | undefined];

function identifierLookups(entry: BibEntry): IdentifierLookup[] {
  const lookups: IdentifierLookup[] = [];
  if (entry.doi) lookups.push(['doi', entry.doi, (s, id) => s.byDoi?.(id)]);
  if (entry.arxivId) lookups.push(['arxiv', entry.arxivId, (s, id) => s.byArxivId?.(id)]);
  return lookups;
}

/**
 * Asks one source, recording whether it answered. Undefined when it could not answer or has no such
 * lookup; otherwise its answer, which may itself be "no such work".
 */
async function ask<T>(
  source: PaperSource,
  attempts: Attempts,
  signal: AbortSignal | undefined,
  question: (source: PaperSource) => Promise<T> | undefined,
): Promise<{ readonly value: T } | undefined> {
  if (signal?.aborted) throw new SourceError('cancelled', 'The reference check was cancelled.');
  try {
    const pending = question(source);
    if (pending === undefined) return undefined;
    const value = await pending;
    attempts.answered.add(source.id);
    return { value };
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    if (error.kind === 'cancelled') throw error;
    attempts.failures.push(error);
    return undefined;
  }
}

function notFoundOrUnchecked(entry: BibEntry, attempts: Attempts, doiNamesOther: SourceRecord | undefined): ExistenceVerdict {
  if (!entry.title && !entry.doi && !entry.arxivId) {
    return { status: 'unchecked', reason: 'The entry has no title, DOI or arXiv id to look up.' };
  }
  const answered = [...attempts.answered];
  if (answered.length < MIN_ANSWERS_FOR_NOT_FOUND) {
    const why = attempts.failures.map((f) => f.message);
    return { status: 'unchecked', reason: why.length > 0 ? `Sources could not answer: ${why.join(' ')}` : 'Too few sources could be asked.' };
  }
  if (!entry.doi && !entry.arxivId && !INDEXED_TYPES.has(entry.type)) {
    return { status: 'unchecked', reason: `No record found, but the sources index @${entry.type} works incompletely.` };
  }
  return { status: 'not-found', asked: answered, doiNamesOther };
}
