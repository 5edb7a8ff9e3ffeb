/**
 * Hybrid ranking: the lexical index's ranking and the dense index's, fused by reciprocal rank.
 *
 *   rankPapers({ lexical, dense }, { text, vector }, 'hybrid', 100)   // [{ id, score }], best first
 *
 * Reciprocal-rank fusion (Cormack, Clarke and Büttcher, SIGIR 2009) scores a paper Σ 1/(k + rank)
 * over the rankings it appears in. It reads ranks only, so BM25 scores (unbounded) and cosines (in
 * [-1, 1]) never have to be put on one scale, and a paper both rankings place well beats one that
 * only one of them likes. k = 60 is the paper's value and the common default; it is not tuned yet:
 * the retrieval bench measures it against other constants, depths, weights and a score-based fusion
 * on SciFact's training claims (bench/fusion.ts) for every encoder `npm run models:fetch` fetched,
 * once that encoder's SciFact embeddings are in the bench's cache.
 */
import type { SearchMode } from '../evidence';
import type { DenseIndex } from './dense';
import type { LexicalSearch } from './lexical';

export const RRF_K = 60;

export interface Ranked {
  readonly id: string;
  readonly score: number;
}

export interface Indexes {
  readonly lexical: LexicalSearch;
  /** Absent, or missing some papers, while vectors are not computed yet. */
  readonly dense?: DenseIndex;
}

export interface RankQuery {
  readonly text: string;
  /** The query's vector from the encoder that made the dense index's; needed by dense and hybrid. */
  readonly vector?: Float32Array;
}

/**
 * The `depth` best papers for the query in `mode`. A hybrid ranking fuses each side's first `depth`
 * papers, so it can rank a paper that only one side found.
 */
export function rankPapers(indexes: Indexes, query: RankQuery, mode: SearchMode, depth: number): Ranked[] {
  if (mode === 'lexical') return indexes.lexical.search(query.text, depth);
  const { dense } = indexes;
  if (dense === undefined || query.vector === undefined) throw new Error(`A ${mode} search needs a dense index and the query's vector.`);
  const nearest = dense.search(query.vector, depth);
  if (mode === 'dense') return nearest;
  return reciprocalRankFusion([indexes.lexical.search(query.text, depth), nearest]).slice(0, depth);
}

/**
 * Fuses rankings, each best first. Equal scores go to the paper with the better single rank, then to
 * the one the earlier ranking placed first, so the order never depends on map iteration.
 */
export function reciprocalRankFusion(rankings: readonly (readonly { readonly id: string }[])[]): Ranked[] {
  const fused = new Map<string, { score: number; bestRank: number; order: number }>();
  rankings.forEach((ranking) =>
    ranking.forEach(({ id }, at) => {
      const rank = at + 1;
      const entry = fused.get(id);
      if (entry === undefined) fused.set(id, { score: 1 / (RRF_K + rank), bestRank: rank, order: fused.size });
      else {
        entry.score += 1 / (RRF_K + rank);
        entry.bestRank = Math.min(entry.bestRank, rank);
      }
    }),
  );
  return [...fused]
    .sort(([, a], [, b]) => b.score - a.score || a.bestRank - b.bestRank || a.order - b.order)
    .map(([id, { score }]) => ({ id, score }));
}
