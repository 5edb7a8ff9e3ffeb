/**
 * Whether a found work still stands: retracted (wholly or in part, withdrawn or removed by its
 * publisher), under an expression of concern, corrected, or, for an e-print, withdrawn by its
 * authors. The sources that report notices (`PaperSource.reportsUpdates`) are asked by the work's
 * identifiers; as for existence, only a well-formed answer is evidence, and a source that fails is
 * evidence neither of a retraction nor of its absence.
 */
import type { BibEntry } from '../bibliography/types';
import { RETRACTING } from '../sources/notices';
import { SourceError, type NoticeType, type PaperSource, type RequestOptions, type SourceRecord, type UpdateNotice, type UpdateSignals } from '../sources/types';
import type { SourceId } from '../sources/ids';
import { SOURCE_NAMES } from '../sources/config';
import { hasRetractionMark } from './normalize';

/** How old a cached answer may be for its retraction status: a week, where metadata is kept a month. */
export const RETRACTION_CACHE_MS = 7 * 24 * 60 * 60 * 1000;

export type RetractionState = 'retracted' | 'expression-of-concern' | 'withdrawn' | 'corrected' | 'none' | 'notice' | 'unchecked';

/** What the sources say of a found work's standing. */
export interface RetractionStatus {
  /**
   * `notice`: the work cited is itself a notice (a retraction notice, an erratum), never flagged.
   * `none`: a source that reports notices answered and lists none. `unchecked`: no such source answered.
   */
  readonly status: RetractionState;
  /** The notice the status rests on, when a source names it: for `retracted`, its kind says whether in part, withdrawn or removed. */
  readonly notice?: UpdateNotice;
  /** Every notice the sources list, without repeats. */
  readonly notices: readonly UpdateNotice[];
  /** The sources whose answers say the status. */
  readonly sources: readonly SourceId[];
  /** For `withdrawn`: the authors' comment. */
  readonly comment?: string;
  /** For `unchecked`: why. */
  readonly reason?: string;
  /** For `unchecked`: a source that could have answered failed, so the next check asks again. */
  readonly failed?: true;
}

/** Which retracting notice the finding names: a full retraction before a partial one. */
const RETRACTING_ORDER: readonly NoticeType[] = ['retraction', 'removal', 'withdrawal', 'partial-retraction'];

/**
 * Asks the sources that report notices about the work the entry was matched to: Crossref and OpenAlex
 * by its DOI and arXiv by its id at once, then Europe PMC, whose coverage is the life sciences, by the
 * PubMed id the entry, the record or OpenAlex's answer gives, or by DOI when no broad source answered.
 * Answers come through the lookup cache, none older than `RETRACTION_CACHE_MS`.
 */
export async function retractionOf(entry: BibEntry, record: SourceRecord, sources: readonly PaperSource[], options: RequestOptions = {}): Promise<RetractionStatus> {
  const request: RequestOptions = { ...options, maxCacheAgeMs: RETRACTION_CACHE_MS };
  const reporting = sources.filter((s) => s.reportsUpdates);
  const doi = record.doi ?? entry.doi;
  const arxivId = record.arxivId ?? entry.arxivId;
  const asking = new Asking(options.signal);
  const first = reporting.filter((s) => !s.byPubMedId);
  await Promise.all(first.map((source) => asking.ask(source, source.id === 'arxiv' ? arxivId && source.byArxivId?.(arxivId, request) : doi && source.byDoi?.(doi, request))));
  const pubMed = record.pmid ?? entry.pmid ?? record.pmcid ?? entry.pmcid ?? asking.pubMedId();
  const broadAnswered = asking.answers.some((a) => a.source !== 'arxiv');
  const then = reporting.filter((s) => s.byPubMedId);
  await Promise.all(then.map((source) => asking.ask(source, pubMed ? source.byPubMedId?.(pubMed, request) : !broadAnswered && doi ? source.byDoi?.(doi, request) : undefined)));
  asking.inOrderOf(reporting);
  if (asking.answers.length > 0) return combineUpdates(withTitleMarks(asking.answers));
  if (asking.failures.length > 0)
    return {
      status: 'unchecked',
      notices: [],
      sources: [],
      reason: `No source could say whether it was retracted (${asking.failures.map((f) => `${SOURCE_NAMES[f.source]}: ${f.message}`).join('; ')}).`,
      failed: true,
    };
  const reason = asking.asked
    ? 'No source that reports retractions holds the work.'
    : 'No source that reports retractions could be asked: the work has no DOI, PubMed or arXiv id they hold.';
  return { status: 'unchecked', notices: [], sources: [], reason };
}

/** The answers and failures of the sources asked about one work. */
class Asking {
  readonly answers: Array<{ readonly source: SourceId; readonly updates: UpdateSignals; readonly record: SourceRecord }> = [];
  readonly failures: Array<{ readonly source: SourceId; readonly message: string }> = [];
  asked = false;

  constructor(private readonly signal: AbortSignal | undefined) {}

  /** Answers and failures in the sources' configured order, not the order they happened to arrive in. */
  inOrderOf(sources: readonly PaperSource[]): void {
    const rank = (id: SourceId): number => sources.findIndex((s) => s.id === id);
    this.answers.sort((a, b) => rank(a.source) - rank(b.source));
    this.failures.sort((a, b) => rank(a.source) - rank(b.source));
  }

  /** Waits for one source's answer, when it was asked: `question` is falsy when the source has no way to ask. */
  async ask(source: PaperSource, question: Promise<SourceRecord | undefined> | '' | undefined): Promise<void> {
    if (!question) return;
    this.asked = true;
    try {
      const answer = await question;
      if (answer?.updates) this.answers.push({ source: source.id, updates: answer.updates, record: answer });
    } catch (error) {
      if (!(error instanceof SourceError) || (error.kind === 'cancelled' && this.signal?.aborted)) throw error;
      this.failures.push({ source: source.id, message: error.message });
    }
  }

  /** A PubMed or PubMed Central id an answer gave (OpenAlex's `ids`). */
  pubMedId(): string | undefined {
    const record = this.answers.find((a) => a.record.pmid || a.record.pmcid)?.record;
    return record?.pmid ?? record?.pmcid;
  }
}

/**
 * The answers, each whose record's title bears the publisher's "RETRACTED:" mark counted as calling the
 * work retracted: the mark often comes years before a source lists the notice. Not where an answer shows
 * the record to be a notice: one publisher titles its notices "Retracted: <the work's title>".
 */
function withTitleMarks<A extends { readonly updates: UpdateSignals; readonly record: SourceRecord }>(answers: readonly A[]): A[] {
  if (answers.some((a) => a.updates.isNotice || a.updates.updatesItself)) return [...answers];
  return answers.map((a) => (hasRetractionMark(a.record.title) ? { ...a, updates: { ...a.updates, retracted: true } } : a));
}

/**
 * One status from every source's answer. A retraction any source reports is a retraction; a work one
 * source shows to be a notice itself is the notice, unless a source lists a retraction of it.
 */
export function combineUpdates(answers: ReadonlyArray<{ readonly source: SourceId; readonly updates: UpdateSignals }>): RetractionStatus {
  const notices = distinctNotices(answers.flatMap((a) => a.updates.notices));
  const retracting = notices.filter((n) => RETRACTING.has(n.type));
  const flaggedBy = answers.filter((a) => a.updates.retracted).map((a) => a.source);
  const sourcesOf = (found: readonly UpdateNotice[], also: readonly SourceId[] = []): SourceId[] => [...new Set([...found.map((n) => n.source), ...also])];
  // A record whose notice points at itself is a notice unless another source calls the work retracted.
  const noticeItself = answers.filter((a) => a.updates.isNotice || (a.updates.updatesItself && flaggedBy.length === 0));
  if (retracting.length === 0 && noticeItself.length > 0) return { status: 'notice', notices, sources: noticeItself.map((a) => a.source) };
  if (retracting.length > 0 || flaggedBy.length > 0) {
    const notice = [...retracting].sort((a, b) => RETRACTING_ORDER.indexOf(a.type) - RETRACTING_ORDER.indexOf(b.type) || byDetail(a, b))[0];
    return { status: 'retracted', ...(notice ? { notice } : {}), notices, sources: sourcesOf(retracting, flaggedBy) };
  }
  const concerns = notices.filter((n) => n.type === 'expression-of-concern');
  if (concerns.length > 0) return { status: 'expression-of-concern', notice: [...concerns].sort(byDetail)[0], notices, sources: sourcesOf(concerns) };
  const withdrawn = answers.find((a) => a.updates.withdrawn !== undefined);
  if (withdrawn) return { status: 'withdrawn', comment: withdrawn.updates.withdrawn, notices, sources: [withdrawn.source] };
  const corrections = notices.filter((n) => n.type === 'correction');
  if (corrections.length > 0) return { status: 'corrected', notice: [...corrections].sort(byDetail)[0], notices, sources: sourcesOf(corrections) };
  return { status: 'none', notices, sources: answers.map((a) => a.source) };
}

/** The notice that says most first: one with a DOI and a date, the latest. */
function byDetail(a: UpdateNotice, b: UpdateNotice): number {
  const detail = (n: UpdateNotice): number => (n.doi ? 2 : 0) + (n.date ? 1 : 0);
  return detail(b) - detail(a) || (b.date ?? '').localeCompare(a.date ?? '');
}

/** One notice per kind and DOI (or page), as the first source to list it has it. */
function distinctNotices(notices: readonly UpdateNotice[]): UpdateNotice[] {
  const seen = new Map<string, UpdateNotice>();
  for (const notice of notices) {
    const key = `${notice.type} ${notice.doi ?? notice.url ?? notice.label ?? notice.source}`;
    if (!seen.has(key)) seen.set(key, notice);
  }
  return [...seen.values()];
}
