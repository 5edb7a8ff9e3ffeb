import type { Passage } from '../fulltext/types';
import { binOf, confidenceOf, type SupportConfidence } from '../models/calibration';
import type { NliModel, NliScores } from '../models/nli';
import type { RankedPremise } from '../models/tokenizer';
import { premiseOrder } from './premiseOrder';

/** Whether a cited abstract backs the sentence that cites it. */
export type SupportLabel = 'supported' | 'contradicted' | 'unsupported' | 'unverifiable';

/**
 * A verdict as the writer is shown it: `supported` only where the model's calibration says its
 * verdicts are right often enough (with a check mark); a `supported` label below that is `may-support`.
 */
export type ShownVerdict = 'supported' | 'may-support' | Exclude<SupportLabel, 'supported'>;

/** How a judgement is shown; one judged before calibration (no `confidence`) only ever as `may-support`. */
export function shownVerdict(judgement: Pick<SupportJudgement, 'label' | 'confidence'>): ShownVerdict {
  if (judgement.label !== 'supported') return judgement.label;
  return supportConfidence(judgement) === 'strong' ? 'supported' : 'may-support';
}

/** How sure a `supported` label is (weak when judged before calibration); undefined on the other labels. */
export function supportConfidence(judgement: Pick<SupportJudgement, 'label' | 'confidence'>): SupportConfidence | undefined {
  return judgement.label === 'supported' ? (judgement.confidence ?? 'weak') : undefined;
}

export interface SupportThresholds {
  /** Entailment probability from which a sentence of the abstract supports the claim. */
  readonly entailment: number;
  /** Contradiction probability from which a sentence of the abstract contradicts the claim. */
  readonly contradiction: number;
  /** Relevance below which an abstract that shares none of the claim's key terms is reported `unsupported` when no NLI model judges. */
  readonly relevance: number;
  /**
   * Neutral probability from which every premise must say the claim is not there for it to be
   * `unsupported`; below it, and below the other two, the model cannot tell and the claim is
   * `unverifiable`. Only a model's attest.json sets it: other models call whatever they do not
   * confirm or refute unsupported.
   */
  readonly neutral?: number;
}

/**
 * Entailment and contradiction at 0.5 are the models' own decision boundary for a 3-way softmax; a
 * model trained for Attest brings its own, chosen on the dev splits (its attest.json), and settings
 * the user made override both. Relevance 0.05 (stemmed TF-IDF cosine), chosen on the train splits:
 * 4.1% of SciFact's and 0.5% of Citation-Integrity's cited abstracts score below it, against 90% and
 * 84% of random abstracts. A false alarm costs an information-level note, so the threshold leans to
 * catching unrelated papers.
 */
export const DEFAULT_THRESHOLDS: SupportThresholds = { entailment: 0.5, contradiction: 0.5, relevance: 0.05 };

/** The thresholds the user set (`attest.support.entailmentThreshold`, …): those unset or invalid are left out. */
export function thresholdsFrom(get: (key: string) => unknown): { thresholds: Partial<SupportThresholds>; problems: string[] } {
  const problems: string[] = [];
  const thresholds: { -readonly [K in keyof SupportThresholds]?: number } = {};
  for (const name of ['entailment', 'contradiction', 'relevance'] as const) {
    const key = `attest.support.${name}Threshold`;
    const value = get(key);
    if (value === undefined || value === null) continue;
    if (typeof value === 'number' && value >= 0 && value <= 1) thresholds[name] = value;
    else problems.push(`${key} must be a number from 0 to 1; using the model's or the default.`);
  }
  return { thresholds, problems };
}

/** The thresholds a judgement uses: the user's, else the model's own (attest.json), else the defaults. */
export function thresholdsFor(deps: Pick<SupportDependencies, 'nli' | 'thresholds'>): SupportThresholds {
  return { ...DEFAULT_THRESHOLDS, ...deps.nli?.model.judging?.thresholds, ...deps.thresholds };
}

/**
 * How related a claim is to passages of an abstract: the best passage and its score, 0–1, and, when
 * the scorer knows which words are common, whether any passage holds one of the claim's other terms.
 */
export type RelevanceScorer = (claim: string, passages: readonly string[]) => { readonly score: number; readonly best: number; readonly sharesKeyTerm?: boolean };

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
  /**
   * The sentence the label rests on: the entailing or contradicting one, else the closest; when the
   * whole abstract was one premise (a model trained on abstracts), its sentence closest to the claim.
   */
  readonly sentence?: string;
  /** Where `sentence` is: the abstract, or a passage of the full text (its section and page). Absent in judgements cached before full texts. */
  readonly evidence?: EvidencePlace;
  /** The model that judged, by name (e.g. `attest-nli-minilm-l6 (built in)`); absent when relevance alone decided. */
  readonly model?: string;
  /**
   * For `supported`: `strong` when the entailment reaches the level the model's calibration found
   * precise on the dev claims, else `weak` (shown as "may support"); a model without calibration never
   * says `strong`. Absent on other labels and in judgements cached before calibration (read as weak).
   */
  readonly confidence?: SupportConfidence;
  /** For `supported`, from the model's calibration: how many of its dev verdicts at this entailment were said, and were right. */
  readonly onDev?: { readonly verdicts: number; readonly right: number };
}

export type EvidencePlace = { readonly from: 'abstract' } | { readonly from: 'full text'; readonly section: string; readonly page?: number };

export interface SupportDependencies {
  readonly relevance: RelevanceScorer;
  /** `id` keys cached judgements; `name`, when given, says in reports which model judged (else `id`). */
  readonly nli?: { readonly model: NliModel; readonly id: string; readonly name?: string };
  /** The thresholds the user set; the rest come from the model or the defaults (`thresholdsFor`). */
  readonly thresholds?: Partial<SupportThresholds>;
  readonly signal?: AbortSignal;
}

/**
 * Judges one claim against what its cited work says: its abstract and, when the full text was read,
 * the few passages of it that best match the claim. The hypothesis is the claim; the premises are,
 * for a model trained on whole abstracts (attest.json's `premise: "abstract"`), the abstract as one
 * premise (its sentences most relevant to the claim when it is too long for the model) and each
 * passage; for any other model, each abstract sentence, the whole abstract when it has several (a
 * claim may rest on two sentences together) and each passage. The best entailment and contradiction
 * over the premises decide, with the text that gave them; contradiction only above its own threshold
 * and above the entailment, since a wrong "contradicted" is the worst thing a writer can be shown.
 * Without a model, only an unrelated work can be told: that is `unsupported`.
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
  const thresholds = thresholdsFor(deps);
  // Relevance is the best of the abstract, its sentences and the passages; the text shown is never the whole abstract.
  const shown = [...sentences.map((text) => ({ text, place: ABSTRACT })), ...fullText.map((p) => ({ text: p.text, place: placeOf(p) }))];
  const byText = deps.relevance(
    claim,
    shown.map((p) => p.text),
  );
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
  const passagePremises = fullText.map((p): Premise => ({ premise: p.text, shown: p.text, place: placeOf(p) }));
  const premises =
    deps.nli.model.judging?.premise === 'abstract'
      ? [...wholeAbstract(claim, sentences), ...passagePremises]
      : [
          ...sentences.map((text): Premise => ({ premise: text, shown: text, place: ABSTRACT })),
          ...(sentences.length > 1 ? [{ premise: sentences.join(' '), shown: sentences.join(' '), place: ABSTRACT }] : []),
          ...passagePremises,
        ];
  const scores = await deps.nli.model.classify(
    premises.map((p) => ({ premise: p.premise, hypothesis: claim })),
    deps.signal,
  );
  const entail = strongest(scores, 'entailment');
  const contra = strongest(scores, 'contradiction');
  const base = { relevance, entailment: entail.value, contradiction: contra.value, model: deps.nli.name ?? deps.nli.id };
  if (contra.value >= thresholds.contradiction && contra.value > entail.value) {
    return { ...base, label: 'contradicted', sentence: premises[contra.index].shown, evidence: premises[contra.index].place };
  }
  const related = { ...base, ...(unrelated ? { unrelated } : {}) };
  if (entail.value >= thresholds.entailment) {
    const calibration = deps.nli.model.judging?.calibration;
    const bin = binOf(entail.value, calibration);
    return {
      ...related,
      label: 'supported',
      confidence: confidenceOf(entail.value, calibration),
      ...(bin && { onDev: { verdicts: bin.verdicts, right: bin.right } }),
      sentence: premises[entail.index].shown,
      evidence: premises[entail.index].place,
    };
  }
  if (thresholds.neutral !== undefined && Math.min(...scores.map((s) => s.neutral)) < thresholds.neutral) {
    return { ...related, label: 'unverifiable', reason: 'the model could not tell', sentence: closest.text, evidence: closest.place };
  }
  return { ...related, label: 'unsupported', sentence: closest.text, evidence: closest.place };
}

/** What the model reads as evidence, what the user is shown of it, and where it is. */
interface Premise {
  readonly premise: string | RankedPremise;
  readonly shown: string;
  readonly place: EvidencePlace;
}

/** Names how `wholeAbstract` ranks and fits a premise, for caches: judgements made under other rules are not its own. */
export const WHOLE_ABSTRACT_RULES = 'training-order';

/**
 * The abstract as one premise, its sentences ranked as the model's training ranked them (`premiseOrder`)
 * for the worker to fit the model's length; shown by the first of them.
 */
function wholeAbstract(claim: string, sentences: readonly string[]): Premise[] {
  if (sentences.length === 0) return [];
  const priority = premiseOrder(claim, sentences);
  return [{ premise: { sentences, priority }, shown: sentences[priority[0]], place: ABSTRACT }];
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
