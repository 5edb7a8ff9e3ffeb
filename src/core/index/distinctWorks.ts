import { identifiersOf } from '../bibliography/generate';
import type { Paper } from '../papers/paper';
import { normalizeText } from '../verify/normalize';

/**
 * The papers of a ranking, each work once, where it ranks best: the same work found through two
 * sources can be stored under two ids (a DOI, and another source's own id for a record without one)
 * and then ranks twice with the same score. Two papers are one work when they have the same DOI or
 * arXiv id, or the same title and abstract with years at most one apart and no DOI or arXiv id that
 * differs: two records that only share a title (a reply, an erratum) stay apart. Linear in the ranking,
 * and lazy: a caller that needs the first ten works reads only as many papers as it takes to find them.
 */
export function* distinctWorks<T>(ranked: Iterable<T>, paperOf: (item: T) => Paper): Generator<T> {
  const seenIds = new Set<string>();
  const seenTexts = new Map<string, Paper[]>();
  for (const item of ranked) {
    const paper = paperOf(item);
    const { doi, arxiv } = identifiersOf(paper);
    const ids = [doi && `doi:${doi}`, arxiv && `arxiv:${arxiv}`].filter((id): id is string => typeof id === 'string');
    const text = normalizeText(`${paper.title}\n${paper.abstract ?? ''}`);
    const sameText = text === '' ? [] : (seenTexts.get(text) ?? []);
    if (ids.some((id) => seenIds.has(id)) || sameText.some((other) => sameWork(paper, other))) continue;
    yield item;
    for (const id of ids) seenIds.add(id);
    if (text !== '') seenTexts.set(text, [...sameText, paper]);
  }
}

/**
 * The first `limit` works of a ranking, each once (`distinctWorks`); with `openAccessOnly`, only those
 * with an open-access copy. Reads the ranking no further than it needs.
 */
export function firstWorks<T extends { readonly paper: Paper }>(ranked: Iterable<T>, limit: number, openAccessOnly = false): T[] {
  const kept: T[] = [];
  for (const found of distinctWorks(ranked, ({ paper }) => paper)) {
    if (kept.length >= limit) break;
    if (!openAccessOnly || found.paper.openAccessUrl !== undefined) kept.push(found);
  }
  return kept;
}

/** Two papers of one title and abstract: the same work unless their years or identifiers say otherwise. */
function sameWork(a: Paper, b: Paper): boolean {
  if (a.year !== undefined && b.year !== undefined && Math.abs(a.year - b.year) > 1) return false;
  const ia = identifiersOf(a);
  const ib = identifiersOf(b);
  const differ = (x: string | undefined, y: string | undefined): boolean => x !== undefined && y !== undefined && x !== y;
  return !differ(ia.publisherDoi, ib.publisherDoi) && !differ(ia.arxiv, ib.arxiv);
}
