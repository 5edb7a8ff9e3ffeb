/**
 * Retrieval metrics as trec_eval (and so BEIR, through pytrec_eval) defines them, so figures compare
 * with published ones. `judged` maps a query's judged document ids to their relevance grades.
 */

/** nDCG@k: gain is the grade, discounted by log2(rank + 1), over the best order of the judged documents. */
export function ndcgAt(ranking: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  const dcg = discountedGain(ranking.slice(0, k).map((id) => judged.get(id) ?? 0));
  const ideal = discountedGain([...judged.values()].sort((a, b) => b - a).slice(0, k));
  return ideal > 0 ? dcg / ideal : 0;
}

/** Share of the query's relevant documents (grade above 0) among the first k retrieved. */
export function recallAt(ranking: readonly string[], judged: ReadonlyMap<string, number>, k: number): number {
  const relevant = [...judged].filter(([, grade]) => grade > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const retrieved = new Set(ranking.slice(0, k));
  return relevant.filter((id) => retrieved.has(id)).length / relevant.length;
}

function discountedGain(grades: readonly number[]): number {
  return grades.reduce((sum, grade, i) => sum + (grade > 0 ? grade / Math.log2(i + 2) : 0), 0);
}
