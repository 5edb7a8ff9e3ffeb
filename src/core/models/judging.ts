/**
 * attest.json: what a model trained for Attest says about how it is to be used, chosen on the dev
 * splits with the model, beside it in its folder:
 *
 *   { "premise": "abstract", "thresholds": { "entailment": 0.5, "contradiction": 0.8, "neutral": 0.7 } }
 *
 * `premise: "abstract"`: the model was trained on the whole abstract (first segment) against the claim,
 * so it judges the abstract as one premise; when abstract and claim do not fit its length, the
 * abstract's sentences most relevant to the claim, in their own order (see `RankedPremise`).
 * Thresholds: the probabilities from which it calls a claim supported, contradicted or (`neutral`, when
 * given) unsupported: below all three it cannot tell, and says so rather than guess. `contradiction` or
 * `neutral` is null when no threshold reached the precision asked on the dev splits: the model never
 * says it.
 * A folder without attest.json (any Hugging Face NLI export) is judged sentence by sentence.
 */
import { ModelError } from './errors';

export interface JudgingParameters {
  readonly premise: 'abstract';
  readonly thresholds: { readonly entailment: number; readonly contradiction: number; readonly neutral?: number };
}

const PREMISES: readonly JudgingParameters['premise'][] = ['abstract'];

/** attest.json's object, checked; throws a `ModelError` naming the value at fault. */
export function readJudging(json: object, file: string): JudgingParameters {
  const { premise, thresholds } = json as Record<string, unknown>;
  const wrong = (what: string): ModelError => new ModelError(`${file}: ${what}. The model's folder is damaged: install or download it again.`, file);
  if (!PREMISES.includes(premise as JudgingParameters['premise'])) {
    throw wrong(`"premise" should be ${PREMISES.map((p) => JSON.stringify(p)).join(' or ')}, not ${JSON.stringify(premise) ?? 'missing'}`);
  }
  if (typeof thresholds !== 'object' || thresholds === null || Array.isArray(thresholds)) throw wrong('"thresholds" should be an object with "entailment" and "contradiction"');
  const given = thresholds as Record<string, unknown>;
  const threshold = (name: 'entailment' | 'contradiction' | 'neutral'): number => {
    // No probability reaches it: the model never says that verdict.
    if (name !== 'entailment' && given[name] === null) return Number.POSITIVE_INFINITY;
    const value = given[name];
    if (typeof value !== 'number' || !(value > 0 && value <= 1)) throw wrong(`"thresholds.${name}" should be a probability above 0 and at most 1, not ${JSON.stringify(value) ?? 'missing'}`);
    return value;
  };
  return {
    premise: premise as JudgingParameters['premise'],
    thresholds: {
      entailment: threshold('entailment'),
      contradiction: threshold('contradiction'),
      ...(given.neutral !== undefined && { neutral: threshold('neutral') }),
    },
  };
}
