import { authorName } from '../bibliography/describe';
import type { BibEntry } from '../bibliography/types';
import type { CheckResult } from '../check';
import { sortFindings, type Evidence, type Finding } from '../findings';
import { SOURCE_IDS, SOURCE_NAMES } from '../sources/config';
import { CheckRun, type SourceErrorKind } from '../sources/health';
import { SignalFanOut } from '../signalFanOut';
import { SourceError, type PaperSource, type RequestOptions, type SourceRecord } from '../sources/types';
import type { SourceId } from '../sources/ids';
import { abstractOf } from './abstracts';
import { resolveEntry, type ExistenceVerdict, type SourceFailure } from './existence';
import { retractionOf, type RetractionStatus } from './retraction';
import { retractionFindings, type Acknowledged } from './retractionFindings';
import type { Lookup, Verdicts } from './results';

export interface ReferenceCheckOptions {
  readonly signal?: AbortSignal;
  /** Called after each entry, for a progress bar. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Entries looked up at once; each source's own rate limit still applies. */
  readonly concurrency?: number;
  /** Verdicts already reached, so an edit to one entry does not look the others up again. */
  readonly cache?: VerdictCache;
  /** How long the whole check may take; entries not looked up by then are unchecked. */
  readonly timeLimitMs?: number;
}

/** Enough entries under way to keep every source's allowance in use while each waits on latency. */
const DEFAULT_CONCURRENCY = 32;
/** Long enough that edits do not ask a failing source again, short enough that a recovered one is soon asked. */
const UNCHECKED_KEPT_MS = 5 * 60_000;

/**
 * Verdicts by what an entry says, not by its key: editing an entry's fields looks it up again.
 * Unchecked and provisional verdicts (reached while a source that could have changed them failed)
 * are kept a few minutes only, so a source that was down is asked again soon, but not after every
 * keystroke. A lookup cut short by the time limit, or whose abstract no source could be asked for, is
 * not kept: the next check asks again. Lookups under way are shared, so checks at once (two
 * manuscripts with one bibliography, a .bib checked while its manuscript is) look an entry up once.
 */
export class VerdictCache {
  private readonly lookups = new Map<string, Omit<Lookup, 'entry'> & { readonly storedAt: number }>();
  private readonly underWay = new Map<string, Promise<Lookup>>();

  get(entry: BibEntry): Lookup | undefined {
    const key = fingerprint(entry);
    const known = this.lookups.get(key);
    if (known && (known.verdict.status === 'unchecked' || known.verdict.provisional) && Date.now() - known.storedAt > UNCHECKED_KEPT_MS) {
      this.lookups.delete(key);
      return undefined;
    }
    return known && { verdict: known.verdict, abstract: known.abstract, retraction: known.retraction, entry };
  }

  set(lookup: Lookup): void {
    if (!worthKeeping(lookup)) return;
    this.lookups.set(fingerprint(lookup.entry), { verdict: lookup.verdict, abstract: lookup.abstract, retraction: lookup.retraction, storedAt: Date.now() });
  }

  /**
   * The entry's lookup by another check, when one is under way and ends with a lookup worth keeping;
   * else `lookUp`'s, which later checks then share. Throws `SourceError('cancelled')` when `signal`
   * aborts while the other check's lookup is awaited.
   */
  async shared(entry: BibEntry, signal: AbortSignal | undefined, lookUp: () => Promise<Lookup>): Promise<Lookup> {
    const key = fingerprint(entry);
    const other = this.underWay.get(key);
    const theirs =
      other &&
      (await unlessAborted(
        other.then(
          (l) => (worthKeeping(l) ? l : undefined),
          () => undefined,
        ),
        signal,
      ));
    if (theirs) return { ...theirs, entry };
    const mine = lookUp();
    this.underWay.set(key, mine);
    const done = (): void => {
      if (this.underWay.get(key) === mine) this.underWay.delete(key);
    };
    mine.then(done, done);
    return mine;
  }

  clear(): void {
    this.lookups.clear();
    this.underWay.clear();
  }
}

/**
 * A lookup cut short (the time limit, a cancel, an abstract or a retraction status no source could be
 * asked for) is asked again by the next check.
 */
function worthKeeping(lookup: Lookup): boolean {
  return !(lookup.verdict.status === 'unchecked' && lookup.verdict.timedOut) && !lookup.abstractUnanswered && !lookup.retraction?.failed;
}

/** What `promise` gives, unless `signal` aborts first: then `SourceError('cancelled')`. */
async function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  let stop = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    stop = () => reject(new SourceError('cancelled', 'The reference check was cancelled.'));
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

function fingerprint(entry: BibEntry): string {
  const { type, title, authors, year, venue, doi, arxivId, url, describedAs, isbn } = entry;
  return JSON.stringify([type, title, authors, year, venue, doi, arxivId, url, describedAs, isbn]);
}

/** Looks every entry up in the sources, and fetches the abstracts of those found. Throws `SourceError('cancelled')` when the signal aborts. */
export async function verifyEntries(entries: readonly BibEntry[], sources: readonly PaperSource[], options: ReferenceCheckOptions = {}): Promise<Verdicts> {
  const unique = new Map<string, BibEntry>();
  for (const entry of entries) if (!unique.has(entry.key)) unique.set(entry.key, entry);
  const queue = [...unique.values()];
  const deadline = options.timeLimitMs === undefined ? undefined : AbortSignal.timeout(options.timeLimitMs);
  const signals = [options.signal, deadline].filter((s): s is AbortSignal => s !== undefined);
  const signal = signals.length > 0 ? AbortSignal.any(signals) : undefined;
  // A source that keeps failing is skipped for the rest of this check, and said so once.
  const request: RequestOptions = { signal, run: new CheckRun() };
  // Each lookup listens to a signal of its own, so the check's does not carry one listener per request waiting.
  const lookups = new SignalFanOut(signal);
  const timedOut = (entry: BibEntry): Lookup => ({
    entry,
    verdict: { status: 'unchecked', reason: `The check's time limit (${Math.round((options.timeLimitMs ?? 0) / 1000)} s) ran out first.`, timedOut: true },
  });
  const verdicts = new Map<string, Lookup>();
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      let lookup = options.cache?.get(entry);
      try {
        const looked = (own: AbortSignal | undefined): Promise<Lookup> => {
          const fresh = (): Promise<Lookup> => lookUp(entry, sources, { ...request, signal: own });
          return options.cache?.shared(entry, own, fresh) ?? fresh();
        };
        lookup ??= deadline?.aborted ? timedOut(entry) : await lookups.run(looked);
      } catch (error) {
        if (!(error instanceof SourceError && error.kind === 'cancelled' && deadline?.aborted && !options.signal?.aborted)) throw error;
        lookup = timedOut(entry);
      }
      options.cache?.set(lookup);
      verdicts.set(entry.key, lookup);
      options.onProgress?.(++done, unique.size);
    }
  };
  try {
    await prefetch(queue, sources, request);
  } catch (error) {
    if (!deadline?.aborted || options.signal?.aborted) throw error;
  }
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? DEFAULT_CONCURRENCY) }, worker));
  } finally {
    lookups.dispose();
  }
  if (options.signal?.aborted) throw new SourceError('cancelled', 'The reference check was cancelled.');
  // Keep the bibliography's order, whatever order the workers finished in.
  return new Map([...unique.keys()].filter((k) => verdicts.has(k)).map((k) => [k, verdicts.get(k)!]));
}

/** Lets sources that can answer many identifiers at once do so before entries are looked up one by one. */
async function prefetch(entries: readonly BibEntry[], sources: readonly PaperSource[], request: RequestOptions): Promise<void> {
  const dois = entries.flatMap((e) => (e.doi ? [e.doi] : []));
  const arxivIds = entries.flatMap((e) => (e.arxivId ? [e.arxivId] : []));
  if (dois.length + arxivIds.length < 2) return;
  await Promise.all(
    sources.map(async (source) => {
      try {
        await source.prefetch?.({ dois, arxivIds }, request);
      } catch (error) {
        // The lookups one by one that follow ask again, and report what fails then.
        if (!(error instanceof SourceError) || error.kind === 'cancelled') throw error;
      }
    }),
  );
}

async function lookUp(entry: BibEntry, sources: readonly PaperSource[], request: RequestOptions): Promise<Lookup> {
  const verdict = await resolveEntry(entry, sources, request);
  if (verdict.status !== 'found' && verdict.status !== 'metadata-mismatch') return { entry, verdict };
  const [abstract, retraction] = await Promise.all([
    abstractOf(entry, verdict.record, sources, request).catch(whenCancelled(undefined)),
    retractionOf(entry, verdict.record, sources, request).catch(whenCancelled(CUT_SHORT)),
  ]);
  // Out of time or cancelled while fetching the abstract: the verdict itself stands.
  const abstractPart = abstract ? { abstract: abstract.abstract, ...(abstract.incomplete && { abstractUnanswered: true as const }) } : { abstractUnanswered: true as const };
  return { entry, verdict, ...abstractPart, retraction };
}

const CUT_SHORT: RetractionStatus = { status: 'unchecked', notices: [], sources: [], reason: 'The check was cut short before the sources were asked.', failed: true };

/** A cancel (or the time limit) answers `value`; any other error stays an error. */
function whenCancelled<T>(value: T): (error: unknown) => T {
  return (error) => {
    if (error instanceof SourceError && error.kind === 'cancelled') return value;
    throw error;
  };
}

/** What kept a source from answering, as a writer would say it. */
const FAILURE_WORDS: Readonly<Record<SourceErrorKind, string>> = {
  offline: 'had no answer saved from an earlier check (offline)',
  unreachable: 'could not be reached (offline, or a proxy or firewall in the way?)',
  timeout: 'did not answer in time',
  'rate-limited': 'asked Attest to slow down',
  unauthorized: 'refused the request (check the API key)',
  unavailable: 'answered with errors',
  malformed: 'sent answers Attest could not read',
  cancelled: 'were stopped before they answered',
};

/**
 * Why references could not be checked, one plain line per cause, commonest first: the sources that
 * failed in one way ("Crossref and arXiv could not be reached (offline, …?): 12 references not
 * checked"), working offline, the time limit, entries of kinds the sources index incompletely, and
 * entries with nothing to look up. The sources' own words (hosts, HTTP codes) are for the log
 * (`failureReasons`). Undefined when every reference was checked.
 */
export function describeUnchecked(verdicts: Verdicts): string | undefined {
  const unreached = unreachedSources(verdicts);
  if (unreached) {
    return (
      `No source could be reached (${listNames(unreached)}), so none of the ${verdicts.size} references was checked; none is marked wrong. ` +
      'Check the internet connection, or a proxy or firewall between this machine and the sources.'
    );
  }
  const causes = new Map<string, { count: number; sources: Set<SourceId>; say: (sources: readonly SourceId[], count: number) => string }>();
  const count = (cause: string, say: (sources: readonly SourceId[], count: number) => string, sources: readonly SourceId[] = []): void => {
    const known = causes.get(cause) ?? { count: 0, sources: new Set<SourceId>(), say };
    known.count++;
    for (const source of sources) known.sources.add(source);
    causes.set(cause, known);
  };
  for (const { verdict } of verdicts.values()) {
    if (verdict.status !== 'unchecked') continue;
    if (verdict.timedOut)
      count('time limit', (_, n) => `The check's time limit ran out before ${referenceCount(n)} ${n === 1 ? 'was' : 'were'} looked up (attest.references.timeLimitSeconds).`);
    else if (verdict.notIndexed)
      count(
        'not indexed',
        (_, n) =>
          `${referenceCount(n)} of a kind the sources index incompletely (a book, software, data, a web page) ${n === 1 ? 'was' : 'were'} not found there; not checked, and not marked wrong.`,
      );
    else if (verdict.failures?.length) {
      for (const [kind, sources] of failuresByKind(verdict.failures)) {
        if (kind === 'offline')
          count(kind, (_, n) => `Offline: ${referenceCount(n)} with no answer saved from an earlier check ${n === 1 ? 'was' : 'were'} not checked; none is marked wrong.`);
        else count(kind, (names, n) => `${listNames(names)} ${FAILURE_WORDS[kind]}: ${referenceCount(n)} not checked.`, sources);
      }
    } else {
      const [summary] = verdict.reason.split('\n');
      count(summary, (_, n) => `${summary.replace(/\.$/, '')}: ${referenceCount(n)} not checked.`);
    }
  }
  if (causes.size === 0) return undefined;
  return [...causes.values()]
    .sort((a, b) => b.count - a.count)
    .map(({ count: n, sources, say }) =>
      say(
        SOURCE_IDS.filter((id) => sources.has(id)),
        n,
      ),
    )
    .join('\n');
}

/** Each way sources failed, with the sources that failed so, in the order first met. */
function failuresByKind(failures: readonly SourceFailure[]): Map<SourceErrorKind, SourceId[]> {
  const kinds = new Map<SourceErrorKind, SourceId[]>();
  for (const { source, kind } of failures) kinds.set(kind, [...(kinds.get(kind) ?? []), source]);
  return kinds;
}

/** Why one reference could not be checked, on one line: what the answers allowed, then each way sources failed, in plain words. */
function uncheckedReason(verdict: ExistenceVerdict & { status: 'unchecked' }): string {
  if (!verdict.failures?.length) return verdict.reason;
  const [summary] = verdict.reason.split('\n');
  const failed = [...failuresByKind(verdict.failures)].map(([kind, sources]) => `${listNames(sources)} ${FAILURE_WORDS[kind]}.`);
  return [summary, ...failed].join(' ');
}

function referenceCount(n: number): string {
  return `${n} reference${n === 1 ? '' : 's'}`;
}

/** "Crossref", "Crossref and arXiv", "Crossref, OpenAlex and arXiv". */
function listNames(sources: readonly SourceId[]): string {
  const names = sources.map((id) => SOURCE_NAMES[id]);
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * Why references could not be checked, each reason with the number of references it stopped: a
 * source's failure (its host and what it answered, if anything), or why the entry was not asked.
 */
export function failureReasons(verdicts: Verdicts): Map<string, number> {
  const reasons = new Map<string, number>();
  for (const { verdict } of verdicts.values()) {
    if (verdict.status !== 'unchecked') continue;
    const lines = verdict.reason.split('\n');
    // The first line says how many answered; the source lines after it say why the others did not.
    for (const line of new Set(lines.length > 1 ? lines.slice(1) : lines)) reasons.set(line, (reasons.get(line) ?? 0) + 1);
  }
  return reasons;
}

/** Failures that say the source was not reached at all (no network, a firewall, a dead address), as opposed to an answer. */
const UNREACHED_KINDS: ReadonlySet<SourceErrorKind> = new Set(['unreachable', 'timeout']);

/**
 * The sources asked, when not one of them could be reached for any reference: no network, a proxy or
 * a firewall, which is the machine's state and says nothing of the references. Undefined when any
 * source answered for any reference, or a source answered with a refusal, a limit or garbage.
 */
export function unreachedSources(verdicts: Verdicts): SourceId[] | undefined {
  const sources = new Set<SourceId>();
  for (const { verdict } of verdicts.values()) {
    if (verdict.status !== 'unchecked') return undefined;
    // The check's time limit may end lookups that had not failed yet: they neither show nor refute it.
    if (verdict.timedOut) continue;
    if (!verdict.failures || verdict.failures.some((f) => !UNREACHED_KINDS.has(f.kind))) return undefined;
    for (const { source } of verdict.failures) sources.add(source);
  }
  return sources.size > 0 ? [...sources] : undefined;
}

/** The entries of a check worth looking up: those the manuscript cites (all of them under `\nocite{*}`). */
export function citedEntries(result: CheckResult): BibEntry[] {
  const entries = result.bibliographies.flatMap((b) => b.entries);
  if (result.manuscript.citesAll) return entries;
  const cited = new Set(result.citations.map((c) => c.key));
  const printed = new Set(result.bibliographies.filter((b) => b.printedWhole).flatMap((b) => b.entries));
  return entries.filter((e) => cited.has(e.key) || printed.has(e));
}

/**
 * Findings for the verdicts: on the entry in its .bib, and for a reference that was not found or whose
 * identifier names another work, on each citation of it too, where the writer is looking.
 */
export function referenceFindings(verdicts: Verdicts, citations: CheckResult['citations'], showUnchecked: boolean, acknowledged?: Acknowledged): Finding[] {
  const findings: Finding[] = retractionFindings(verdicts.values(), citations, acknowledged);
  for (const { entry, verdict } of verdicts.values()) {
    const finding = findingFor(entry, verdict, showUnchecked);
    if (!finding) continue;
    findings.push(finding);
    if (verdict.status !== 'not-found' && verdict.status !== 'doi-title-conflict') continue;
    for (const citation of citations) {
      if (citation.key === entry.key) findings.push({ ...finding, file: citation.file, range: citation.range });
    }
  }
  return findings;
}

function findingFor(entry: BibEntry, verdict: ExistenceVerdict, showUnchecked: boolean): Finding | undefined {
  const at = { file: entry.file, range: entry.keyRange, key: entry.key };
  switch (verdict.status) {
    case 'found':
      if (verdict.publishedVersion) return preprintPublished(entry, verdict.publishedVersion, at);
      if (!verdict.venueUnconfirmed) return undefined;
      return {
        ...at,
        code: 'venue-unconfirmed',
        severity: 'hint',
        message: `'${entry.key}' is known only as a preprint in ${SOURCE_NAMES[verdict.record.source]}; no source confirms that it appeared in ${verdict.venueUnconfirmed}.`,
        evidence: recordEvidence(verdict.record, verdict.via),
      };
    case 'not-found': {
      const names = verdict.asked.map((id) => SOURCE_NAMES[id]).join(', ');
      return {
        ...at,
        code: 'not-found',
        severity: 'error',
        message: `No record of '${entry.key}' in ${names}; possibly fabricated.`,
        evidence: { asked: verdict.asked.map((id) => SOURCE_NAMES[id]) },
      };
    }
    case 'doi-title-conflict':
      return conflictFinding(entry, verdict, at);
    case 'metadata-mismatch': {
      const name = SOURCE_NAMES[verdict.record.source];
      const fields = verdict.differences.map((d) => `${d.field} "${d.expected ?? '(none)'}" here, "${d.found ?? '(none)'}" in ${name}`).join('; ');
      return {
        ...at,
        code: 'metadata-mismatch',
        severity: 'warning',
        category: verdict.differences.some((d) => d.hallucinated) ? 'hallucinated' : 'error-to-report',
        message: `'${entry.key}' matches a record in ${name} whose metadata differs: ${fields}.`,
        evidence: {
          ...recordEvidence(verdict.record, verdict.via),
          differences: verdict.differences.map((d) => ({ field: d.field, expected: d.expected ?? '', found: d.found ?? '' })),
        },
      };
    }
    case 'unchecked':
      return showUnchecked ? { ...at, code: 'unchecked', severity: 'hint', message: `'${entry.key}' could not be checked: ${uncheckedReason(verdict)}` } : undefined;
  }
}

/**
 * The entry's DOI or PubMed id names another work: both titles, and the work the entry's title names
 * where a source has it, so the writer sees which of the two the reference meant.
 */
function conflictFinding(entry: BibEntry, verdict: ExistenceVerdict & { status: 'doi-title-conflict' }, at: Pick<Finding, 'file' | 'range' | 'key'>): Finding {
  const { record, titled } = verdict;
  const identifier = verdict.via === 'doi' ? `DOI ${entry.doi ?? record.doi ?? ''}` : `PubMed id ${entry.pmid ?? entry.pmcid ?? ''}`;
  const cited = entry.title ?? '';
  const elsewhere = titled
    ? ` A work titled "${titled.title}" is in ${SOURCE_NAMES[titled.source]}${titled.doi ? ` with DOI ${titled.doi}` : ''}.`
    : verdict.titleNotFoundIn
      ? ` No work of the cited title is in ${verdict.titleNotFoundIn.map((id) => SOURCE_NAMES[id]).join(', ')}; possibly fabricated.`
      : '';
  return {
    ...at,
    code: 'doi-title-conflict',
    severity: 'error',
    message: `'${entry.key}': its ${identifier} is "${record.title}" in ${SOURCE_NAMES[record.source]}, another work than the title cited, "${cited}".${elsewhere}`,
    evidence: {
      ...recordEvidence(record, verdict.via),
      differences: [{ field: 'title', expected: cited, found: record.title }],
      ...(titled && { titled: recordOf(titled) }),
    },
  };
}

/** A cited preprint with a published version: said, with that version as the evidence the quick fix writes. */
function preprintPublished(entry: BibEntry, published: SourceRecord, at: Pick<Finding, 'file' | 'range' | 'key'>): Finding {
  const where = [published.venue, published.year].filter((part) => part !== undefined).join(', ');
  const doi = published.doi ? ` (DOI ${published.doi})` : '';
  return {
    ...at,
    code: 'preprint-published',
    severity: 'information',
    message: `'${entry.key}' cites a preprint that has since been published${where ? ` in ${where}` : ''}${doi}: "${published.title}".`,
    evidence: recordEvidence(published, 'doi'),
  };
}

function recordEvidence(record: SourceRecord, via: string): Evidence {
  return { source: SOURCE_NAMES[record.source], via, record: recordOf(record) };
}

function recordOf(record: SourceRecord): NonNullable<Evidence['record']> {
  return {
    id: record.id,
    url: record.url,
    title: record.title,
    authors: record.authors.map(authorName).filter((a) => a.length > 0),
    year: record.year,
    venue: record.venue,
    doi: record.doi,
    arxivId: record.arxivId,
  };
}

/** The check's result with the reference findings added in their places. */
export function withReferenceFindings(result: CheckResult, verdicts: Verdicts, showUnchecked: boolean, acknowledged?: Acknowledged): CheckResult {
  return { ...result, verdicts, findings: sortFindings([...result.findings, ...referenceFindings(verdicts, result.citations, showUnchecked, acknowledged)]) };
}
