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
 * `calibration` (optional; written by `npm run calibrate`, see calibration.ts): how often the model's
 * `supported` verdicts were right on the dev splits, by entailment probability, and from which
 * probability they are shown as sure:
 *
 *   "calibration": { "strongEntailment": 0.74, "precision": 0.85, "dev": ["scifact/claims_dev.jsonl", …],
 *                    "bins": [{ "from": 0.26, "to": 0.3, "verdicts": 61, "right": 22 }, …] }
 *
 * `strongEntailment` is null when no level reached `precision`. Without `calibration` (an older
 * attest.json) every `supported` verdict is shown as "may support": nothing says it is more.
 * A folder without attest.json (any Hugging Face NLI export) is judged sentence by sentence.
 */
import { isStringList } from '../json';
import type { Calibration, CalibrationBin } from './calibration';
import { ModelError } from './errors';

export interface JudgingParameters {
  readonly premise: 'abstract';
  readonly thresholds: { readonly entailment: number; readonly contradiction: number; readonly neutral?: number };
  readonly calibration?: Calibration;
}

const PREMISES: readonly JudgingParameters['premise'][] = ['abstract'];

/** attest.json's object, checked; throws a `ModelError` naming the value at fault. */
export function readJudging(json: object, file: string): JudgingParameters {
  const { premise, thresholds, calibration } = json as Record<string, unknown>;
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
    ...(calibration !== undefined && { calibration: readCalibration(calibration, wrong) }),
  };
}

/** The most dev files and bins a calibration names: it is read with the model, so it is bounded. */
const MOST_LISTED = 100;

function readCalibration(value: unknown, wrong: (what: string) => ModelError): Calibration {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw wrong('"calibration" should be an object');
  const { strongEntailment, precision, dev, bins } = value as Record<string, unknown>;
  const probability = (x: unknown): x is number => typeof x === 'number' && x > 0 && x <= 1;
  if (strongEntailment !== null && !probability(strongEntailment)) throw wrong(`"calibration.strongEntailment" should be a probability or null, not ${JSON.stringify(strongEntailment) ?? 'missing'}`);
  if (!probability(precision)) throw wrong(`"calibration.precision" should be a probability, not ${JSON.stringify(precision) ?? 'missing'}`);
  if (!Array.isArray(dev) || dev.length > MOST_LISTED || !isStringList(dev)) throw wrong('"calibration.dev" should list the dev files');
  if (!Array.isArray(bins) || bins.length > MOST_LISTED || !bins.every(isBin)) throw wrong('"calibration.bins" should list bins of { from, to, verdicts, right }, from below to');
  return { strongEntailment: strongEntailment ?? Number.POSITIVE_INFINITY, precision, dev, bins: bins.map(({ from, to, verdicts, right }: CalibrationBin) => ({ from, to, verdicts, right })) };
}

function isBin(value: unknown): value is CalibrationBin {
  if (typeof value !== 'object' || value === null) return false;
  const { from, to, verdicts, right } = value as Record<string, unknown>;
  const count = (x: unknown): x is number => Number.isSafeInteger(x) && (x as number) >= 0;
  return typeof from === 'number' && typeof to === 'number' && from >= 0 && from < to && to <= 1 && count(verdicts) && count(right) && right <= verdicts;
}

/** A calibration as attest.json holds it: a strong level never reached is null. */
export function calibrationJson(calibration: Calibration): object {
  return { ...calibration, strongEntailment: Number.isFinite(calibration.strongEntailment) ? calibration.strongEntailment : null };
}
