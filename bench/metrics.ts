/**
 * The bench's metrics. Retrieval's as trec_eval (and so BEIR, through pytrec_eval) defines them, so
 * figures compare with published ones; `judged` maps a query's judged document ids to their relevance
 * grades.
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

/**
 * The most right answers a threshold on `scores` alone finds while at least `precision` of what it
 * picks is right: how far a verdict can reach before its threshold is chosen (issue 34 asks
 * `contradicted` to be 75% right and said for a third of the refuting pairs). A threshold cannot part
 * equal scores, so only the last of a run of equal ones is a place to cut.
 */
export function mostRightAtPrecision(scored: readonly { readonly score: number; readonly right: boolean }[], precision: number): number {
  const ordered = [...scored].sort((a, b) => b.score - a.score);
  let right = 0;
  let most = 0;
  ordered.forEach((item, i) => {
    if (item.right) right += 1;
    const cut = i === ordered.length - 1 || ordered[i + 1].score !== item.score;
    if (cut && right >= precision * (i + 1) - 1e-9) most = Math.max(most, right);
  });
  return most;
}
