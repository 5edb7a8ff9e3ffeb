import type { NliModel, NliPair, NliScores } from '../../../src/core/models/nli';
import type { RankedPremise } from '../../../src/core/models/tokenizer';
import type { RelevanceScorer } from '../../../src/core/verify/support';

/** Entails when the premise holds every word the claim asks for; contradicts on "decreases" against "increases". */
export class RuleNli implements NliModel {
  calls = 0;
  async classify(pairs: readonly NliPair[]): Promise<NliScores[]> {
    this.calls += pairs.length;
    return pairs.map(({ premise, hypothesis }) => {
      const p = premiseText(premise).toLowerCase();
      const h = hypothesis.toLowerCase();
      if (h.includes('increases') && p.includes('decreases')) return { entailment: 0.05, contradiction: 0.9, neutral: 0.05 };
      const needed = h.match(/\b(increases|memory|speed)\b/g) ?? [];
      if (needed.length > 0 && needed.every((w) => p.includes(w))) return { entailment: 0.9, contradiction: 0.02, neutral: 0.08 };
      return { entailment: 0.1, contradiction: 0.1, neutral: 0.8 };
    });
  }
  async dispose(): Promise<void> {}
}

/** Shared words over claim words: enough to tell related from unrelated in these tests. */
export const overlap: RelevanceScorer = (claim, passages) => {
  const words = new Set(claim.toLowerCase().match(/[a-z]{4,}/g) ?? []);
  const scores = passages.map((p) => (p.toLowerCase().match(/[a-z]{4,}/g) ?? []).filter((w) => words.has(w)).length / Math.max(1, words.size));
  const best = scores.indexOf(Math.max(...scores));
  return { score: scores[best], best };
};

/** A premise as one text: a ranked premise's sentences all, in their order (these rules have no length to fit). */
export function premiseText(premise: string | RankedPremise): string {
  return typeof premise === 'string' ? premise : premise.sentences.join(' ');
}
