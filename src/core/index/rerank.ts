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
  const judged = zScores(await reranker.score(claim, head.map((r) => passageText(r.paper)), signal));
  const own = zScores(head.map((r) => r.score));
  const mixed = head.map((_, at) => reranker.weight * judged[at] + (1 - reranker.weight) * own[at]);
  const order = head.map((_, at) => at).sort((a, b) => mixed[b] - mixed[a] || a - b);
  return [...order.map((at) => ({ ...head[at], score: mixed[at] })), ...ranked.slice(head.length)];
}
