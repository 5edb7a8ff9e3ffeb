/**
 * The top of a ranking reordered by a reranker (models/reranker.ts): its first `depth` papers by
 * weight × the reranker's standardised score + (1 − weight) × the ranking's standardised score, the
 * mix `training/attest_training/rerank.py` chose the weight for; the papers after them keep their
 * place and their scores.
 */
import type { Paper } from '../papers/paper';
import type { Reranker } from '../models/reranker';
import { zScores } from './hybrid';
import { passageText } from './passages';

export interface Scored {
  readonly paper: Paper;
  readonly score: number;
}

export async function rerank<T extends Scored>(reranker: Reranker, claim: string, ranked: readonly T[], signal?: AbortSignal): Promise<T[]> {
  const head = ranked.slice(0, reranker.depth);
  if (head.length < 2) return [...ranked];
  const judged = zScores(
    await reranker.score(
      claim,
      head.map((r) => passageText(r.paper)),
      signal,
    ),
  );
  const own = zScores(head.map((r) => r.score));
  const mixed = head.map((_, at) => reranker.weight * judged[at] + (1 - reranker.weight) * own[at]);
  const order = head.map((_, at) => at).sort((a, b) => mixed[b] - mixed[a] || a - b);
  return [...order.map((at) => ({ ...head[at], score: mixed[at] })), ...ranked.slice(head.length)];
}

const NOT_RERANKED = "The papers are in the search's own order:";

/** The reranker `get` gives; none, with the `problem` a search notes, when it cannot be loaded: the search goes on without it. */
export async function loadedReranker(get: (() => Promise<Reranker | undefined>) | undefined): Promise<{ reranker?: Reranker; problem?: string }> {
  try {
    return { reranker: await get?.() };
  } catch (error) {
    return { problem: `${NOT_RERANKED} the reranker could not be loaded (${(error as Error).message}).` };
  }
}

/** `ranked` reordered by the reranker; as it was, with a note in `notes`, when the reranker fails. A cancelled search rejects. */
export async function rerankedOrAsIs<T extends Scored>(reranker: Reranker, claim: string, ranked: readonly T[], notes: string[], signal?: AbortSignal): Promise<T[]> {
  try {
    return await rerank(reranker, claim, ranked, signal);
  } catch (error) {
    signal?.throwIfAborted();
    notes.push(`${NOT_RERANKED} the reranker failed (${(error as Error).message}).`);
    return [...ranked];
  }
}
