/**
 * Whether a found work still stands: retracted (wholly or in part, withdrawn or removed by its
 * publisher), under an expression of concern, corrected, or, for an e-print, withdrawn by its
 * authors. The sources that report notices (`PaperSource.reportsUpdates`) are asked by the work's
 * identifiers; as for existence, only a well-formed answer is evidence, and a source that fails is
 * evidence neither of a retraction nor of its absence.
 */
import type { BibEntry } from '../bibliography/types';
import { RETRACTING, type NoticeType, type UpdateNotice, type UpdateSignals } from '../sources/notices';
import { SourceError, type PaperSource, type RequestOptions, type SourceId, type SourceRecord } from '../sources/types';
import { SOURCE_NAMES } from '../sources/config';

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
 * Asks every source that reports notices about the work the entry was matched to, by the identifiers
 * it and the record have (a DOI, else a PubMed or PubMed Central id; arXiv by its id), all at once,
 * through the lookup cache with answers no older than `RETRACTION_CACHE_MS`.
 */
export async function retractionOf(entry: BibEntry, record: SourceRecord, sources: readonly PaperSource[], options: RequestOptions = {}): Promise<RetractionStatus> {
  const ids = {
    doi: record.doi ?? entry.doi,
    pubMed: record.pmid ?? entry.pmid ?? record.pmcid ?? entry.pmcid,
    arxivId: record.arxivId ?? entry.arxivId,
  };
  const request: RequestOptions = { ...options, maxCacheAgeMs: RETRACTION_CACHE_MS };
  const asked = sources.filter((s) => s.reportsUpdates).flatMap((source) => {
    const question = questionFor(source, ids, request);
    return question ? [{ source, question }] : [];
  });
  if (asked.length === 0) {
    return { status: 'unchecked', notices: [], sources: [], reason: 'No source that reports retractions could be asked: the work has no DOI, PubMed or arXiv id they hold.' };
  }
  const failures: string[] = [];
  const answers: Array<{ readonly source: SourceId; readonly updates: UpdateSignals }> = [];
  await Promise.all(
    asked.map(async ({ source, question }) => {
      try {
        const answer = await question;
        if (answer?.updates) answers.push({ source: source.id, updates: answer.updates });
      } catch (error) {
        if (!(error instanceof SourceError) || (error.kind === 'cancelled' && options.signal?.aborted)) throw error;
        failures.push(`${SOURCE_NAMES[source.id]}: ${error.message}`);
      }
    }),
  );
  if (answers.length > 0) return combineUpdates(answers);
  if (failures.length > 0) return { status: 'unchecked', notices: [], sources: [], reason: `No source could say whether it was retracted (${failures.join('; ')}).`, failed: true };
  return { status: 'unchecked', notices: [], sources: [], reason: 'No source that reports retractions holds the work.' };
}

function questionFor(source: PaperSource, ids: { doi?: string; pubMed?: string; arxivId?: string }, request: RequestOptions): Promise<SourceRecord | undefined> | undefined {
  if (source.id === 'arxiv') return ids.arxivId ? source.byArxivId?.(ids.arxivId, request) : undefined;
  if (source.byPubMedId && ids.pubMed) return source.byPubMedId(ids.pubMed, request);
  return ids.doi ? source.byDoi?.(ids.doi, request) : undefined;
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
  if (retracting.length === 0 && answers.some((a) => a.updates.isNotice)) {
    return { status: 'notice', notices, sources: answers.filter((a) => a.updates.isNotice).map((a) => a.source) };
  }
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
