import type { BibEntry } from '../bibliography/types';
import { arxivPartOfDoi, isbnsIn, normalizeArxivId, normalizeDoi, normalizeIsbn } from '../identifiers';
import { SourceError, type PaperSource, type RequestOptions, type SourceRecord } from '../sources/types';
import type { SourceErrorKind } from '../sources/health';
import type { SourceId } from '../sources/ids';
import { SOURCE_NAMES } from '../sources/config';
import { whyNotIndexed } from './indexable';
import { compareDois, compareEntryToRecord, pickBestMatch, titlesConflict, type FieldDifference } from './match';
import { normalizeText, venueWords } from './normalize';
import { venueUnknownTo } from './venues';

/** How the matched record was found. */
export type LookupRoute = 'doi' | 'arxiv' | 'pubmed' | 'isbn' | 'title';

/** What the open sources say about one bibliography entry. */
export type ExistenceVerdict = Verdict & {
  /**
   * Reached while a source that could have changed it did not answer (it might have held the work, or
   * its published version): kept no longer than an unchecked verdict, so that it is reached again once
   * the source is back. A failure is never evidence, not even for as long as a session lasts.
   */
  readonly provisional?: true;
};

type Verdict =
  | {
      readonly status: 'found';
      readonly record: SourceRecord;
      readonly via: LookupRoute;
      /**
       * The venue the entry claims, when the only record found is a preprint: it neither confirms nor
       * refutes the venue (real conference papers are often indexed only as arXiv preprints).
       */
      readonly venueUnconfirmed?: string;
      /**
       * The entry cites a preprint (arXiv, bioRxiv, medRxiv) that has since been published: that
       * version, as a source has it (Crossref's `is-preprint-of`, a record holding both versions).
       */
      readonly publishedVersion?: SourceRecord;
    }
  | {
      readonly status: 'metadata-mismatch';
      readonly record: SourceRecord;
      readonly via: LookupRoute;
      readonly differences: readonly FieldDifference[];
    }
  | {
      readonly status: 'not-found';
      /**
       * The sources that answered and had no matching record, in the configured order: those whose
       * answers the verdict waited for, the same in every run, not others that happened to be quicker.
       */
      readonly asked: readonly SourceId[];
    }
  | {
      readonly status: 'doi-title-conflict';
      /** The work the entry's DOI (or, without one, PubMed id) names, whose title is clearly not the entry's. */
      readonly record: SourceRecord;
      readonly via: 'doi' | 'pubmed';
      /** The work found under the entry's title, when one was: the work the identifier should name. */
      readonly titled?: SourceRecord;
      /** The sources that answered and had no work of the entry's title, when none had. */
      readonly titleNotFoundIn?: readonly SourceId[];
    }
  | {
      readonly status: 'unchecked';
      /** Why, one short line per source that could not answer. */
      readonly reason: string;
      /** What kept each source that could not answer from answering, for plain words in the editor. */
      readonly failures?: readonly SourceFailure[];
      /** The check's time limit ran out before this entry was looked up: not kept, asked again next time. */
      readonly timedOut?: boolean;
      /** The sources answered without a record, for an entry of a kind they index incompletely (a book, software). */
      readonly notIndexed?: boolean;
    };

/** A source that could not answer, and why in one word. */
export interface SourceFailure {
  readonly source: SourceId;
  readonly kind: SourceErrorKind;
}

/** A not-found verdict needs this many sources to have answered, so one source's gap is not taken for fabrication. */
const MIN_ANSWERS_FOR_NOT_FOUND = 2;
/**
 * Answers without a match, from sources that index every field, after which the sources not yet
 * heard from are not waited for: the slowest (arXiv, one request every 3 s) would otherwise set the
 * pace of the whole check.
 */
const ENOUGH_BROAD_ANSWERS = 2;
/**
 * How long the first source has the question to itself. Most works are found by the first source
 * asked; asking the others only when it does not find the work spares their allowance for the
 * entries that need them.
 */
const HEAD_START_MS = 2000;
const UNRESOLVED_DOI = 'the DOI does not resolve';
/** Long enough for the host and what it said; the rest of an error body is noise in a hover. */
const MAX_REASON_LENGTH = 160;

interface Attempts {
  /**
   * The sources that answered and whose answers a lookup waited for (`askAll`): which others answered
   * before it ended is chance, so only these count and are named, the same in every run and output.
   */
  readonly awaited: Set<SourceId>;
  /** The first failure of each source that could not answer. */
  readonly failures: Map<SourceId, SourceError>;
}

/**
 * Looks an entry up: by DOI, then arXiv id, then title with first author and year, each asked of
 * every source at once, and compares what it finds with what the entry says. The first record that
 * matches ends the search. A source that cannot answer never counts against the entry.
 */
export async function resolveEntry(entry: BibEntry, sources: readonly PaperSource[], request: RequestOptions = {}): Promise<ExistenceVerdict> {
  const failures: Attempts['failures'] = new Map();
  const verdict = await resolveWith(failures, entry, sources, request);
  return failures.size > 0 && verdict.status !== 'unchecked' && !isSettled(verdict) ? { ...verdict, provisional: true } : verdict;
}

async function resolveWith(failures: Attempts['failures'], entry: BibEntry, sources: readonly PaperSource[], request: RequestOptions): Promise<ExistenceVerdict> {
  const verdict = await findEntry(entry, sources, request, failures);
  if (verdict.status !== 'found') return verdict;
  if (verdict.venueUnconfirmed === undefined) {
    const published = citesPreprint(entry) ? await publishedVersionOf(entry, verdict.record, sources, request, failures) : undefined;
    return published ? { ...verdict, publishedVersion: published } : verdict;
  }
  return (await publishedVersion(entry, verdict.record, sources, request, failures)) ?? withVenueChecked(verdict, verdict.venueUnconfirmed, sources, request);
}

/** The published version a preprint's record links to (Crossref's `is-preprint-of`), compared with the entry. */
async function publishedVersion(
  entry: BibEntry,
  preprint: SourceRecord,
  sources: readonly PaperSource[],
  request: RequestOptions,
  failures: Attempts['failures'],
): Promise<ExistenceVerdict | undefined> {
  const doi = preprint.publishedDoi;
  if (!doi) return undefined;
  const attempts: Attempts = { awaited: new Set(), failures };
  return askAll(
    sources,
    attempts,
    request,
    (s, options) => s.byDoi?.(doi, options),
    (record) => {
      const comparison = record && compareEntryToRecord(entry, record);
      return comparison && comparison.decision !== 'different-work' ? verdictFor(entry, record, 'doi', comparison.differences) : undefined;
    },
  );
}

/**
 * The published version of the preprint `record` stands for: the record itself where it holds both
 * (OpenAlex's work with a journal's location, Semantic Scholar's paper with a DOI beside its arXiv
 * id), else the work its `publishedDoi` names, asked by that DOI and compared with the entry.
 */
async function publishedVersionOf(
  entry: BibEntry,
  record: SourceRecord,
  sources: readonly PaperSource[],
  request: RequestOptions,
  failures: Attempts['failures'],
): Promise<SourceRecord | undefined> {
  if (!isPreprintRecord(record) && record.venue !== undefined && (record.doi === undefined || !isPreprintDoi(record.doi))) return record;
  const doi = record.publishedDoi;
  if (!doi) return undefined;
  // A title often changes on publication; the source's link and the same first author say it is the same work.
  const attempts: Attempts = { awaited: new Set(), failures };
  const linked = await askAll(
    sources,
    attempts,
    request,
    (s, options) => s.byDoi?.(doi, options),
    (found) => (found && sameFirstAuthor(entry, found) ? { status: 'found', record: found, via: 'doi' } : undefined),
  );
  return linked?.status === 'found' ? linked.record : undefined;
}

function sameFirstAuthor(entry: BibEntry, record: SourceRecord): boolean {
  const family = (author: BibEntry['authors'][number] | undefined): string => normalizeText(author?.family ?? author?.literal ?? '');
  const cited = family(entry.authors[0]);
  return cited !== '' && cited === family(record.authors[0]);
}

/** The entry cites a preprint: by its arXiv id or a preprint server's DOI, or naming a preprint server as its venue, and no other venue. */
function citesPreprint(entry: BibEntry): boolean {
  if (entry.venue !== undefined) return venueWords(entry.venue).preprint;
  return entry.arxivId !== undefined || (entry.doi !== undefined && isPreprintDoi(entry.doi));
}

/** arXiv's DOIs, and bioRxiv's and medRxiv's (`10.1101/` and a date, or six digits and more: the press's journals' DOIs have neither). */
function isPreprintDoi(doi: string): boolean {
  const normalized = normalizeDoi(doi) ?? doi;
  return arxivPartOfDoi(normalized) !== undefined || /^10\.1101\/(?:\d{4}\.\d{2}\.\d{2}\.)?\d{6,}(?:v\d+)?$/.test(normalized);
}

/**
 * A preprint does not confirm a venue, since real conference papers are often indexed only as
 * preprints; but a venue that no source knows at all is no venue, and the entry's claim is wrong.
 */
async function withVenueChecked(
  verdict: ExistenceVerdict & { status: 'found' },
  claimed: string,
  sources: readonly PaperSource[],
  request: RequestOptions,
): Promise<ExistenceVerdict> {
  const unknownTo = await venueUnknownTo(claimed, sources, request);
  if (unknownTo === undefined) return verdict;
  const names = unknownTo.map((id) => SOURCE_NAMES[id]).join(', ');
  const difference: FieldDifference = { field: 'venue', status: 'differ', expected: claimed, found: `(no such venue in ${names})`, note: 'no such venue', hallucinated: true };
  return { status: 'metadata-mismatch', record: verdict.record, via: verdict.via, differences: [difference] };
}

async function findEntry(entry: BibEntry, sources: readonly PaperSource[], request: RequestOptions, failures: Attempts['failures']): Promise<ExistenceVerdict> {
  if (sources.length === 0) return { status: 'unchecked', reason: 'No bibliographic source is enabled.' };
  const attempts: Attempts = { awaited: new Set(), failures };
  /** The work the entry's DOI or PubMed id names, when its title is clearly another's. */
  let conflict: IdentifierConflict | undefined;
  /** Sources that answered that they know no work with the entry's DOI. */
  const doiUnknownTo: SourceId[] = [];

  /** A preprint found while the entry claims a venue: kept while a published version may turn up. */
  let preprint: ExistenceVerdict | undefined;
  for (const [route, id, lookup] of identifierLookups(entry)) {
    const verdict = await askAll(
      sources,
      attempts,
      request,
      (s, options) => lookup(s, id, options),
      (record, source) => {
        if (!record) {
          if (route === 'doi') doiUnknownTo.push(source.id);
          return undefined;
        }
        // The identifier exists but names another work: the entry's title may still be a real work's. An
        // ISBN of another title is left to the comparison: a volume or edition of a set may carry it.
        if ((route === 'doi' || route === 'pubmed') && titlesConflict(entry, record)) {
          conflict ??= { record, via: route === 'doi' ? 'doi' : 'pubmed' };
          return undefined;
        }
        const comparison = compareEntryToRecord(entry, record);
        return comparison.decision === 'different-work' ? undefined : verdictFor(entry, record, route, comparison.differences);
      },
    );
    if (verdict && !isPreprintOnly(verdict)) return withConflict(entry, conflict, verdict);
    preprint ??= verdict;
  }

  if (hasSearchWords(entry)) {
    const query = {
      title: entry.title,
      authors: entry.authors.map((a) => a.family ?? a.literal ?? '').filter((n) => n),
      year: entry.year,
      ...(entry.reference !== undefined && { citation: entry.reference.slice(0, MAX_CITATION_CHARACTERS) }),
      limit: 5,
    };
    // A source of books only is asked about books only: its silence about an article says nothing.
    const searched = isWholeBook(entry) ? sources : sources.filter((s) => !s.booksOnly);
    const verdict = await askAll(
      searched,
      attempts,
      request,
      (s, options) => s.search(query, options),
      (records) => {
        // The identifier's own work, met again by title, is not the entry's work whatever they share.
        const best = pickBestMatch(entry, conflict ? records.filter((r) => !titlesConflict(entry, r)) : records);
        return best && verdictFor(entry, best.record, 'title', withUnresolvedDoi(entry, best.differences, conflict ? [] : doiUnknownTo));
      },
    );
    // A published version found by title is compared with the venue the entry claims; another preprint adds nothing.
    if (verdict && !(preprint && isPreprintOnly(verdict))) return withConflict(entry, conflict, verdict);
  }

  return withConflict(entry, conflict, preprint ?? notFoundOrUnchecked(entry, sources, attempts));
}

interface IdentifierConflict {
  readonly record: SourceRecord;
  readonly via: 'doi' | 'pubmed';
}

/**
 * The verdict once the entry's identifier was found to name another work: a conflict, with the work
 * the entry's title names when one was found, unless that work has the entry's DOI after all (one
 * source's record of the DOI was wrong, another's is the entry's).
 */
function withConflict(entry: BibEntry, conflict: IdentifierConflict | undefined, verdict: ExistenceVerdict): ExistenceVerdict {
  if (!conflict) return verdict;
  const { record, via } = conflict;
  switch (verdict.status) {
    case 'found':
    case 'metadata-mismatch':
      if (compareDois(entry.doi, verdict.record.doi).status === 'agree') return verdict;
      return { status: 'doi-title-conflict', record, via, titled: verdict.record };
    case 'not-found':
      return { status: 'doi-title-conflict', record, via, titleNotFoundIn: verdict.asked };
    default:
      // The title search could not be answered: what the identifier names is an answer all the same.
      return { status: 'doi-title-conflict', record, via };
  }
}

/**
 * A verdict no other source's answer could change: the work found as cited, or found with a DOI that
 * two sources said does not exist, which stays wrong whatever record another source has.
 */
function isSettled(verdict: ExistenceVerdict): boolean {
  if (verdict.status === 'found') return !isPreprintOnly(verdict);
  return verdict.status === 'metadata-mismatch' && verdict.differences.some((d) => d.note === UNRESOLVED_DOI);
}

function isPreprintOnly(verdict: ExistenceVerdict): boolean {
  return verdict.status === 'found' && verdict.venueUnconfirmed !== undefined;
}

/** The record is a preprint (arXiv's own, or one whose venue is a preprint server) and the entry claims a venue. */
function claimedVenueOfPreprint(entry: BibEntry, record: SourceRecord): string | undefined {
  if (!entry.venue || venueWords(entry.venue).preprint) return undefined;
  return isPreprintRecord(record) ? entry.venue : undefined;
}

/** arXiv's own record, one its source calls a preprint, or one whose venue is a preprint server. */
function isPreprintRecord(record: SourceRecord): boolean {
  return (
    record.source === 'arxiv' ||
    record.preprint === true ||
    (record.venue === undefined ? record.arxivId !== undefined || (record.doi !== undefined && arxivPartOfDoi(record.doi) !== undefined) : venueWords(record.venue).preprint)
  );
}

/**
 * Asks the sources and judges each answer as it comes: the first source alone, then, once it answers
 * without a match, fails, or has had its head start, all the others at once. A record that matches
 * (`found`, or one settled otherwise: `isSettled`) ends the asking; a mismatch is kept while the others may still find the work as the entry
 * describes it; once the first `ENOUGH_BROAD_ANSWERS` broad sources in the configured order that can
 * answer have answered, the rest are not waited for. Those are the same sources whichever is quicker,
 * so a verdict names the same ones each run (`Attempts.awaited`). Questions still under way are cancelled.
 */
async function askAll<T>(
  sources: readonly PaperSource[],
  attempts: Attempts,
  { signal, run }: RequestOptions,
  question: (source: PaperSource, options: RequestOptions) => Promise<T> | undefined,
  judge: (answer: T, source: PaperSource) => ExistenceVerdict | undefined,
): Promise<ExistenceVerdict | undefined> {
  const done = new AbortController();
  const options = { signal: signal ? AbortSignal.any([signal, done.signal]) : done.signal, run };
  let releaseOthers = (): void => undefined;
  const headStart = new Promise<void>((resolve) => (releaseOthers = resolve));
  const timer = setTimeout(releaseOthers, HEAD_START_MS);
  const pending = new Map(
    sources.map((source, i) => {
      const asked = (i === 0 ? Promise.resolve() : headStart).then(() => (done.signal.aborted ? undefined : ask(source, attempts, signal, () => question(source, options))));
      return [source.id, asked.then((answer) => ({ source, answer }))] as const;
    }),
  );
  let kept: ExistenceVerdict | undefined;
  const heard = new Set<SourceId>();
  try {
    while (pending.size > 0 && enoughBroadAnswers(sources, pending, heard) === undefined) {
      const { source, answer } = await Promise.race(pending.values());
      pending.delete(source.id);
      releaseOthers();
      if (!answer) continue;
      heard.add(source.id);
      const verdict = judge(answer.value, source);
      if (verdict && isSettled(verdict)) return verdict;
      // A published version, even one whose metadata differs, says more about a claimed venue than a preprint.
      if (verdict && (kept === undefined || (isPreprintOnly(kept) && !isPreprintOnly(verdict)))) kept = verdict;
    }
    // Without enough answers from broad sources, every source was waited for.
    for (const id of enoughBroadAnswers(sources, pending, heard) ?? heard) attempts.awaited.add(id);
    return kept;
  } finally {
    clearTimeout(timer);
    releaseOthers();
    done.abort();
    // What is still under way ends as cancelled, which nobody waits for.
    for (const rest of pending.values()) rest.catch(() => undefined);
  }
}

/**
 * The first `ENOUGH_BROAD_ANSWERS` broad sources in the configured order that answered, once none
 * before them is still to answer; undefined while the answers to wait for are not all in. A source
 * that failed or has no such lookup is passed over, and the next broad source waited for instead.
 */
function enoughBroadAnswers(sources: readonly PaperSource[], pending: ReadonlyMap<SourceId, unknown>, heard: ReadonlySet<SourceId>): readonly SourceId[] | undefined {
  const answered: SourceId[] = [];
  for (const source of sources) {
    if (source.partialCoverage) continue;
    if (pending.has(source.id)) return undefined;
    if (heard.has(source.id)) answered.push(source.id);
    if (answered.length === ENOUGH_BROAD_ANSWERS) return answered;
  }
  return undefined;
}

/**
 * A DOI that sources asked directly say does not exist is wrong metadata once the work is found by its
 * title, whatever DOI (or none) the record has. It takes two such answers, because one index's gap
 * (a DataCite DOI Crossref does not hold) is not a DOI's absence.
 */
function withUnresolvedDoi(entry: BibEntry, differences: readonly FieldDifference[], unknownTo: readonly SourceId[]): readonly FieldDifference[] {
  if (!entry.doi || unknownTo.length < 2 || differences.some((d) => d.field === 'doi')) return differences;
  const names = unknownTo.map((id) => SOURCE_NAMES[id]).join(', ');
  return [...differences, { field: 'doi', status: 'differ', expected: entry.doi, found: `(no such DOI in ${names})`, note: UNRESOLVED_DOI }];
}

function verdictFor(entry: BibEntry, record: SourceRecord, via: LookupRoute, differences: readonly FieldDifference[]): ExistenceVerdict {
  if (differences.length > 0) return { status: 'metadata-mismatch', record, via, differences };
  const venueUnconfirmed = claimedVenueOfPreprint(entry, record);
  return venueUnconfirmed ? { status: 'found', record, via, venueUnconfirmed } : { status: 'found', record, via };
}

type IdentifierLookup = readonly [LookupRoute, string, (source: PaperSource, id: string, options: RequestOptions) => Promise<SourceRecord | undefined> | undefined];

/**
 * The lookups by the entry's identifiers that can be made: an identifier the sources cannot read (the
 * intrinsic check reports it as malformed) is asked of none, so that nothing counts it as answered.
 */
function identifierLookups(entry: BibEntry): IdentifierLookup[] {
  const lookups: IdentifierLookup[] = [];
  const doi = entry.doi === undefined ? undefined : normalizeDoi(entry.doi);
  const arxivId = entry.arxivId === undefined ? undefined : normalizeArxivId(entry.arxivId);
  if (doi) lookups.push(['doi', doi, (s, id, options) => s.byDoi?.(id, options)]);
  if (arxivId) lookups.push(['arxiv', arxivId, (s, id, options) => s.byArxivId?.(id, options)]);
  // A PubMed or PubMed Central id: Europe PMC's, for works cited that way (`pmid = {…}`) without a DOI.
  const pubMed = entry.pmid ?? entry.pmcid;
  if (pubMed && !entry.doi) lookups.push(['pubmed', pubMed, (s, id, options) => s.byPubMedId?.(id, options)]);
  const isbn = isWholeBook(entry) ? isbnOf(entry) : undefined;
  if (isbn) lookups.push(['isbn', isbn, (s, id, options) => s.byIsbn?.(id, options)]);
  return lookups;
}

/** The first valid ISBN of the entry, as ISBN-13; the intrinsic check reports one that is not. */
function isbnOf(entry: BibEntry): string | undefined {
  for (const written of entry.isbn === undefined ? [] : isbnsIn(entry.isbn)) {
    const isbn = normalizeIsbn(written);
    if (isbn) return isbn;
  }
  return undefined;
}

const BOOK_TYPES = new Set(['book', 'mvbook']);
/** Parts of a book or a periodical, whose ISBN is the whole book's and whose title is not. */
const PART_TYPES = new Set(['article', 'inbook', 'incollection', 'inproceedings', 'conference', 'bookinbook', 'suppbook']);

/** A book as a whole: of a book's type, or with an ISBN and not a part of one. */
function isWholeBook(entry: BibEntry): boolean {
  return BOOK_TYPES.has(entry.type) || (entry.isbn !== undefined && !PART_TYPES.has(entry.type));
}

/** A citation string longer than this is cut before it is sent: a reference is far shorter, and a URL has a length limit. */
const MAX_CITATION_CHARACTERS = 1000;

/** Whether the entry has a title with a word to search for: "???" would ask the sources nothing. */
function hasSearchWords(entry: BibEntry): entry is BibEntry & { readonly title: string } {
  return entry.title !== undefined && /[\p{L}\p{N}]/u.test(entry.title);
}

/**
 * Asks one source. Undefined when it could not answer (its failure recorded) or has no such
 * lookup; otherwise its answer, which may itself be "no such work". Throws only when the check is
 * cancelled (`signal`); a question cancelled because another source already answered is no answer.
 */
async function ask<T>(
  source: PaperSource,
  attempts: Attempts,
  signal: AbortSignal | undefined,
  question: () => Promise<T> | undefined,
): Promise<{ readonly value: T } | undefined> {
  if (signal?.aborted) throw new SourceError('cancelled', 'The reference check was cancelled.');
  try {
    const pending = question();
    if (pending === undefined) return undefined;
    return { value: await pending };
  } catch (error) {
    if (!(error instanceof SourceError)) throw error;
    if (error.kind === 'cancelled') {
      if (signal?.aborted) throw error;
      return undefined;
    }
    if (!attempts.failures.has(source.id)) attempts.failures.set(source.id, error);
    return undefined;
  }
}

function notFoundOrUnchecked(entry: BibEntry, sources: readonly PaperSource[], attempts: Attempts): ExistenceVerdict {
  if (!hasSearchWords(entry) && identifierLookups(entry).length === 0) {
    const reason =
      entry.reference === undefined
        ? 'The entry has no title, DOI or arXiv id that can be looked up.'
        : 'The reference text is too short, or could not be read as authors and a title, and has no DOI or arXiv id to look up.';
    return { status: 'unchecked', reason };
  }
  // In the configured order, not the order the answers happened to arrive in.
  const answered = sources.map((s) => s.id).filter((id) => attempts.awaited.has(id));
  // arXiv and Europe PMC finding nothing says little of a work from elsewhere: one of the answers must come from a source that indexes every field.
  const broadAnswered = sources.some((s) => !s.partialCoverage && attempts.awaited.has(s.id));
  if (answered.length < MIN_ANSWERS_FOR_NOT_FOUND || !broadAnswered) {
    const failed = sources.flatMap((s) => {
      const failure = attempts.failures.get(s.id);
      return failure === undefined ? [] : [[s.id, failure] as const];
    });
    const why = failed.map(([id, failure]) => `${SOURCE_NAMES[id]}: ${shorten(failure.message)}`);
    const heard =
      answered.length === 0
        ? 'No source could answer.'
        : answered.length < MIN_ANSWERS_FOR_NOT_FOUND
          ? `Only ${SOURCE_NAMES[answered[0]]} answered; a verdict needs two.`
          : `Only ${answered.map((id) => SOURCE_NAMES[id]).join(' and ')} answered, and they index only part of the literature.`;
    const failures = failed.map(([source, failure]): SourceFailure => ({ source, kind: failure.kind }));
    return { status: 'unchecked', reason: [heard, ...why].join('\n'), ...(failures.length > 0 && { failures }) };
  }
  const notIndexed = entry.doi || entry.arxivId ? undefined : whyNotIndexed(entry);
  if (notIndexed) return { status: 'unchecked', reason: `No record found, but ${notIndexed}.`, notIndexed: true };
  return { status: 'not-found', asked: answered };
}

function shorten(message: string): string {
  return message.length > MAX_REASON_LENGTH ? `${message.slice(0, MAX_REASON_LENGTH - 1)}…` : message;
}
