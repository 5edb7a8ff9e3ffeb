import type { NliModel, NliScores } from '../models/nli';

/** Whether a cited abstract backs the sentence that cites it. */
export type SupportLabel = 'supported' | 'contradicted' | 'unsupported' | 'unverifiable';

export interface SupportThresholds {
  /** Entailment probability from which a sentence of the abstract supports the claim. */
  readonly entailment: number;
  /** Contradiction probability from which a sentence of the abstract contradicts the claim. */
  readonly contradiction: number;
  /** Relevance below which an abstract that shares none of the claim's key terms is taken to be about something else. */
  readonly relevance: number;
}

/**
 * Entailment and contradiction at 0.5 are the models' own decision boundary for a 3-way softmax.
 * Relevance 0.05 (stemmed TF-IDF cosine), chosen on the train splits: 4.1% of SciFact's and 0.5% of
 * Citation-Integrity's cited abstracts score below it, against 90% and 84% of random abstracts.
 * A false alarm costs an information-level note, so the threshold leans to catching unrelated papers.
 */
export const DEFAULT_THRESHOLDS: SupportThresholds = { entailment: 0.5, contradiction: 0.5, relevance: 0.05 };

/** The thresholds from setting keys (`attest.support.entailmentThreshold`, …), defaults where unset or invalid. */
export function thresholdsFrom(get: (key: string) => unknown): { thresholds: SupportThresholds; problems: string[] } {
  const problems: string[] = [];
  const read = (name: keyof SupportThresholds): number => {
    const key = `attest.support.${name}Threshold`;
    const value = get(key);
    if (value === undefined || value === null) return DEFAULT_THRESHOLDS[name];
    if (typeof value === 'number' && value >= 0 && value <= 1) return value;
    problems.push(`${key} must be a number from 0 to 1; using ${DEFAULT_THRESHOLDS[name]}.`);
    return DEFAULT_THRESHOLDS[name];
  };
  return { thresholds: { entailment: read('entailment'), contradiction: read('contradiction'), relevance: read('relevance') }, problems };
}

/**
 * How related a claim is to passages of an abstract: the best passage and its score, 0–1, and, when
 * the scorer knows which words are common, whether any passage holds one of the claim's other terms.
 */
export type RelevanceScorer = (
  claim: string,
  passages: readonly string[],
) => { readonly score: number; readonly best: number; readonly sharesKeyTerm?: boolean };

export interface SupportJudgement {
  readonly label: SupportLabel;
  /** Why, in a few words, when the label alone does not say it (`no abstract`, `no NLI model`). */
  readonly reason?: string;
  readonly relevance: number;
  /** Highest entailment over the abstract and its sentences; undefined without a model. */
  readonly entailment?: number;
  readonly contradiction?: number;
  /** The sentence the label rests on (the entailing or contradicting one, else the closest), or the whole abstract when it decided. */
  readonly sentence?: string;
  readonly model?: string;
}

export interface SupportDependencies {
  readonly relevance: RelevanceScorer;
  readonly nli?: { readonly model: NliModel; readonly id: string };
  readonly thresholds?: SupportThresholds;
  readonly signal?: AbortSignal;
}

/**
 * Judges one (claim, cited abstract) pair. Premises are each sentence of the abstract and, when it
 * has several, the whole abstract (a claim may rest on two sentences together); the hypothesis is the
 * claim. The best entailment and contradiction over the premises decide, with the sentence that gave
 * them. Without a model, only an unrelated abstract can be told: that is `unsupported`.
 */
export async function judgeSupport(claim: string, abstract: readonly string[] | undefined, deps: SupportDependencies): Promise<SupportJudgement> {
  const sentences = (abstract ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
  if (sentences.length === 0) return { label: 'unverifiable', reason: 'no abstract', relevance: 0 };
  const thresholds = deps.thresholds ?? DEFAULT_THRESHOLDS;
  const premises = sentences.length > 1 ? [...sentences, sentences.join(' ')] : sentences;
  // Relevance is the best of the abstract and its sentences; the sentence shown is always a sentence.
  const bySentence = deps.relevance(claim, sentences);
  const relevance = { score: Math.max(bySentence.score, deps.relevance(claim, [sentences.join(' ')]).score) };
  const closest = sentences[bySentence.best];
  if (!deps.nli) {
    // A low score alone is not enough: on a manuscript's own topic every word is common, and a cited
    // abstract that shares the sentence's rarer terms is on its topic, whatever the score.
    return relevance.score < thresholds.relevance && bySentence.sharesKeyTerm !== true
      ? { label: 'unsupported', reason: "the abstract shares none of the sentence's key terms", relevance: relevance.score, sentence: closest }
      : { label: 'unverifiable', reason: 'no NLI model', relevance: relevance.score, sentence: closest };
  }
  const scores = await deps.nli.model.classify(
    premises.map((premise) => ({ premise, hypothesis: claim })),
    deps.signal,
  );
  const entail = strongest(scores, 'entailment');
  const contra = strongest(scores, 'contradiction');
  const base = { relevance: relevance.score, entailment: entail.value, contradiction: contra.value, model: deps.nli.id };
  if (contra.value >= thresholds.contradiction && contra.value > entail.value) {
    return { ...base, label: 'contradicted', sentence: sentenceFor(premises, contra.index, sentences) };
  }
  if (entail.value >= thresholds.entailment) return { ...base, label: 'supported', sentence: sentenceFor(premises, entail.index, sentences) };
  return { ...base, label: 'unsupported', sentence: closest };
}

function strongest(scores: readonly NliScores[], label: 'entailment' | 'contradiction'): { value: number; index: number } {
  let index = 0;
  scores.forEach((s, i) => {
    if (s[label] > scores[index][label]) index = i;
  });
  return { value: scores[index]?.[label] ?? 0, index };
}

/** The text to show for a premise: the sentence, or the whole abstract when the whole decided. */
function sentenceFor(premises: readonly string[], index: number, sentences: readonly string[]): string {
  return index < sentences.length ? sentences[index] : premises[index];
}
