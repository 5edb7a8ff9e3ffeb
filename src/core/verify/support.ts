import type { Passage } from '../fulltext/types';
import type { NliModel, NliScores } from '../models/nli';

/** Whether a cited abstract backs the sentence that cites it. */
export type SupportLabel = 'supported' | 'contradicted' | 'unsupported' | 'unverifiable';

export interface SupportThresholds {
  /** Entailment probability from which a sentence of the abstract supports the claim. */
  readonly entailment: number;
  /** Contradiction probability from which a sentence of the abstract contradicts the claim. */
  readonly contradiction: number;
  /** Relevance below which an abstract that shares none of the claim's key terms is reported `unsupported` when no NLI model judges. */
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
  /**
   * The cited text shares none of the claim's key terms: it is about something else, whatever a model
   * made of it (set on every label but `contradicted`).
   */
  readonly unrelated?: true;
  /** Highest entailment over the abstract and its sentences; undefined without a model. */
  readonly entailment?: number;
  readonly contradiction?: number;
  /** The sentence the label rests on (the entailing or contradicting one, else the closest), or the whole abstract when it decided. */
  readonly sentence?: string;
  /** Where `sentence` is: the abstract, or a passage of the full text (its section and page). Absent in judgements cached before full texts. */
  readonly evidence?: EvidencePlace;
  readonly model?: string;
}

export type EvidencePlace = { readonly from: 'abstract' } | { readonly from: 'full text'; readonly section: string; readonly page?: number };

export interface SupportDependencies {
  readonly relevance: RelevanceScorer;
  readonly nli?: { readonly model: NliModel; readonly id: string };
  readonly thresholds?: SupportThresholds;
  readonly signal?: AbortSignal;
}

/**
 * Judges one claim against what its cited work says: the sentences of its abstract and, when the
 * full text was read, the few passages of it that best match the claim. Premises are each abstract
 * sentence, the whole abstract when it has several (a claim may rest on two sentences together) and
 * each passage; the hypothesis is the claim. The best entailment and contradiction over the premises
 * decide, with the text that gave them. Without a model, only an unrelated work can be told: that is
 * `unsupported`.
 */
export async function judgeSupport(
  claim: string,
  abstract: readonly string[] | undefined,
  deps: SupportDependencies,
  passages: readonly Passage[] = [],
): Promise<SupportJudgement> {
  const sentences = (abstract ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
  const fullText = passages.filter((p) => p.text.trim().length > 0);
  if (sentences.length === 0 && fullText.length === 0) return { label: 'unverifiable', reason: 'no abstract', relevance: 0 };
  const thresholds = deps.thresholds ?? DEFAULT_THRESHOLDS;
  const premises: { text: string; place: EvidencePlace }[] = [
    ...sentences.map((text) => ({ text, place: ABSTRACT })),
    ...(sentences.length > 1 ? [{ text: sentences.join(' '), place: ABSTRACT }] : []),
    ...fullText.map((p) => ({ text: p.text, place: placeOf(p) })),
  ];
  // Relevance is the best of the abstract, its sentences and the passages; the text shown is never the whole abstract.
  const shown = [...sentences.map((text) => ({ text, place: ABSTRACT })), ...fullText.map((p) => ({ text: p.text, place: placeOf(p) }))];
  const byText = deps.relevance(claim, shown.map((p) => p.text));
  const whole = sentences.length > 0 ? deps.relevance(claim, [sentences.join(' ')]).score : 0;
  const relevance = Math.max(byText.score, whole);
  const closest = shown[byText.best] ?? shown[0];
  // A low score alone is not enough: on a manuscript's own topic every word is common, and a cited
  // text that shares the sentence's rarer terms is on its topic, whatever the score.
  const unrelated = relevance < thresholds.relevance && byText.sharesKeyTerm !== true ? (true as const) : undefined;
  if (!deps.nli) {
    const about = sentences.length > 0 ? 'the abstract' : 'the full text';
    return unrelated
      ? { label: 'unsupported', reason: `${about} shares none of the sentence's key terms`, relevance, unrelated, sentence: closest.text, evidence: closest.place }
      : { label: 'unverifiable', reason: 'no NLI model', relevance, sentence: closest.text, evidence: closest.place };
  }
  const scores = await deps.nli.model.classify(
    premises.map((premise) => ({ premise: premise.text, hypothesis: claim })),
    deps.signal,
  );
  const entail = strongest(scores, 'entailment');
  const contra = strongest(scores, 'contradiction');
  const base = { relevance, entailment: entail.value, contradiction: contra.value, model: deps.nli.id };
  if (contra.value >= thresholds.contradiction && contra.value > entail.value) {
    return { ...base, label: 'contradicted', sentence: premises[contra.index].text, evidence: premises[contra.index].place };
  }
  const related = { ...base, ...(unrelated ? { unrelated } : {}) };
  if (entail.value >= thresholds.entailment) return { ...related, label: 'supported', sentence: premises[entail.index].text, evidence: premises[entail.index].place };
  return { ...related, label: 'unsupported', sentence: closest.text, evidence: closest.place };
}

const ABSTRACT: EvidencePlace = { from: 'abstract' };

function placeOf(passage: Passage): EvidencePlace {
  return passage.page === undefined ? { from: 'full text', section: passage.section } : { from: 'full text', section: passage.section, page: passage.page };
}

function strongest(scores: readonly NliScores[], label: 'entailment' | 'contradiction'): { value: number; index: number } {
  let index = 0;
  scores.forEach((s, i) => {
    if (s[label] > scores[index][label]) index = i;
  });
  return { value: scores[index]?.[label] ?? 0, index };
}
