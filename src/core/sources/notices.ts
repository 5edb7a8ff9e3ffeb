/**
 * What the sources say about a work's editorial notices (retractions, withdrawals, expressions of
 * concern, corrections), read from each service's own shapes into one form:
 *
 *   Crossref    the work's `updated-by` (a notice about it) and `update-to` (it is itself a notice)
 *   OpenAlex    `is_retracted`
 *   Europe PMC  `pubTypeList` ("Retracted Publication", "Retraction of Publication", …) and
 *               `commentCorrectionList` ("Retraction in", "Expression of concern in", "Erratum in", …)
 *   arXiv       the e-print's comment, which says when its authors withdrew it
 */
import { normalizeDoi } from '../identifiers';
import { isObject, text, type Json } from '../json';
import type { NoticeType, UpdateNotice, UpdateSignals } from './types';

/** The notices after which the work no longer stands. */
export const RETRACTING: ReadonlySet<NoticeType> = new Set(['retraction', 'partial-retraction', 'removal', 'withdrawal']);

// ---------------------------------------------------------------------------------------------
// Crossref

/** Crossref's update types (both spellings seen for expressions of concern); others (new versions, addenda) are not notices of this kind. */
const CROSSREF_TYPES: Readonly<Record<string, NoticeType>> = {
  retraction: 'retraction',
  partial_retraction: 'partial-retraction',
  removal: 'removal',
  withdrawal: 'withdrawal',
  expression_of_concern: 'expression-of-concern',
  correction: 'correction',
  erratum: 'correction',
  corrigendum: 'correction',
};

function crossrefType(value: unknown): NoticeType | undefined {
  const type = text(value)?.toLowerCase().replace(/-/g, '_');
  return type === undefined ? undefined : CROSSREF_TYPES[type];
}

/** `updated: { date-parts: [[2020, 6, 4]], date-time, timestamp }` → `2020-06-04`. */
function crossrefDate(updated: unknown): string | undefined {
  const parts: unknown = isObject(updated) && Array.isArray(updated['date-parts']) ? updated['date-parts'][0] : undefined;
  if (!Array.isArray(parts) || typeof parts[0] !== 'number' || !Number.isInteger(parts[0])) return undefined;
  const numbers = parts.slice(0, 3).filter((p): p is number => typeof p === 'number' && Number.isInteger(p) && p > 0);
  return numbers.map((n, i) => (i === 0 ? String(n).padStart(4, '0') : String(n).padStart(2, '0'))).join('-');
}

/**
 * A Crossref work's notices: each `updated-by` entry of a known type, once per notice and type (the
 * publisher and Retraction Watch often list one notice each), never the work itself (a notice that
 * points at its own DOI); and whether the work is itself a notice (`update-to` of a known type).
 */
export function crossrefUpdates(work: Json, ownDoi: string): UpdateSignals {
  const notices = new Map<string, UpdateNotice>();
  for (const update of Array.isArray(work['updated-by']) ? work['updated-by'] : []) {
    if (!isObject(update)) continue;
    const type = crossrefType(update.type);
    const raw = text(update.DOI);
    const doi = raw === undefined ? undefined : normalizeDoi(raw);
    if (!type || doi === ownDoi) continue;
    const recordId = text(update['record-id']) ?? (typeof update['record-id'] === 'number' ? String(update['record-id']) : undefined);
    const key = `${type} ${doi ?? `retraction-watch ${recordId ?? notices.size}`}`;
    const notice: UpdateNotice = {
      type,
      ...(doi ? { doi, url: `https://doi.org/${doi}` } : {}),
      ...optional('date', crossrefDate(update.updated)),
      ...optional('label', text(update.label)),
      source: 'crossref',
    };
    // The publisher's entry and Retraction Watch's name one notice: the first with a date is kept.
    const known = notices.get(key);
    if (!known || (!known.date && notice.date)) notices.set(key, notice);
  }
  const targets = (Array.isArray(work['update-to']) ? work['update-to'] : []).filter((u: unknown): u is Json => isObject(u) && crossrefType(u.type) !== undefined);
  const updatesOthers = targets.some((u) => normalizeDoi(text(u.DOI) ?? '') !== ownDoi);
  const updatesItself = !updatesOthers && targets.length > 0;
  return { notices: [...notices.values()], ...(updatesOthers ? { isNotice: true } : {}), ...(updatesItself ? { updatesItself: true } : {}) };
}

function optional<K extends string>(key: K, value: string | undefined): Partial<Record<K, string>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, string>);
}

// ---------------------------------------------------------------------------------------------
// OpenAlex

/** `is_retracted: true|false`; any other shape (the field left out of an answer) says nothing, and is not read. */
export function openAlexUpdates(isRetracted: boolean): UpdateSignals {
  return isRetracted ? { notices: [], retracted: true } : { notices: [] };
}

// ---------------------------------------------------------------------------------------------
// Europe PMC

/** `commentCorrection.type` of a notice about the work (MEDLINE's wording), by kind. */
const EUROPE_PMC_NOTICES: Readonly<Record<string, NoticeType>> = {
  'retraction in': 'retraction',
  'retracted and republished in': 'retraction',
  'partial retraction in': 'partial-retraction',
  'expression of concern in': 'expression-of-concern',
  'erratum in': 'correction',
  'correction in': 'correction',
};

/** Types of a record that is itself a notice about another: "Retraction of", "Erratum for", … */
const EUROPE_PMC_NOTICE_OF = /^(retraction|partial retraction|expression of concern|erratum|correction) (of|for)$/;
const EUROPE_PMC_NOTICE_TYPES = new Set(['retraction of publication', 'published erratum', 'expression of concern']);

/** `resultType=core`: the publication types and the comment-and-correction links of one result. */
export function europePmcUpdates(result: Json): UpdateSignals {
  const typeList = isObject(result.pubTypeList) ? result.pubTypeList.pubType : undefined;
  const pubTypes = (Array.isArray(typeList) ? typeList : [typeList]).flatMap((t: unknown) => (text(t) ? [text(t)!.toLowerCase()] : []));
  const list = isObject(result.commentCorrectionList) ? result.commentCorrectionList.commentCorrection : undefined;
  const links = (Array.isArray(list) ? list : [list]).filter(isObject);
  const notices = new Map<string, UpdateNotice>();
  let isNotice = pubTypes.some((t) => EUROPE_PMC_NOTICE_TYPES.has(t));
  for (const link of links) {
    const linkType = text(link.type)?.toLowerCase();
    if (linkType === undefined) continue;
    if (EUROPE_PMC_NOTICE_OF.test(linkType)) isNotice = true;
    const type = EUROPE_PMC_NOTICES[linkType];
    if (!type) continue;
    const id = text(link.id);
    const database = text(link.source);
    const key = `${type} ${database ?? ''} ${id ?? notices.size}`;
    if (notices.has(key)) continue;
    const reference = text(link.reference);
    notices.set(key, {
      type,
      ...(id && database ? { url: `https://europepmc.org/article/${encodeURIComponent(database)}/${encodeURIComponent(id)}` } : {}),
      ...optional('date', reference && yearOf(reference)),
      ...optional('label', reference),
      source: 'europepmc',
    });
  }
  return {
    notices: [...notices.values()],
    ...(pubTypes.includes('retracted publication') ? { retracted: true as const } : {}),
    ...(isNotice ? { isNotice: true as const } : {}),
  };
}

/** MEDLINE references give the issue's date after the journal: "Lancet. 2020 Jun 13;395(10240):1820". */
function yearOf(reference: string): string | undefined {
  return /\.\s((?:19|20)\d\d)\b/.exec(reference)?.[1];
}

// ---------------------------------------------------------------------------------------------
// arXiv

/** How authors word a withdrawal in the comment arXiv shows in place of the paper. */
const WITHDRAWN =
  /\b(?:(?:has|have) been|is|was|are|were|been|hereby)\s+withdrawn\b|\bwithdrawn\s+(?:by|due|because|for|from|as|pending|until|owing)\b|^\s*(?:paper\s+|article\s+|submission\s+)?withdrawn\b|\bwithdraw(?:s|ing)?\s+(?:this|the|our)\s+(?:paper|article|submission|manuscript|preprint|e-?print)\b/i;

/**
 * Whether an e-print is withdrawn: its comment says so. A withdrawn version has no PDF, so a comment
 * that merely mentions "withdrawn" counts only on an entry without one.
 */
export function arxivUpdates(comment: string | undefined, hasPdf: boolean): UpdateSignals {
  const withdrawn = comment !== undefined && (WITHDRAWN.test(comment) || (!hasPdf && /\bwithdrawn\b/i.test(comment)));
  return withdrawn ? { notices: [], withdrawn: comment } : { notices: [] };
}
