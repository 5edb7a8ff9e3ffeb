/**
 * How far a model's `supported` verdicts can be trusted, measured on the dev splits and kept in its
 * attest.json (`calibration`, see judging.ts): the entailment probability from which a verdict is shown
 * as sure ("supported", with a check mark) and, by probability, how many of its dev verdicts were right.
 * A verdict below the strong level is shown as "may support". `calibrate` makes one from judged dev
 * pairs; `bench/calibrate.ts` writes it into a model folder.
 */

/** Share of a level's dev verdicts that must be right for it to be shown as sure: as for `contradicted`. */
export const STRONG_PRECISION = 0.85;

/**
 * Fewer verdicts than this and a precision says little: a threshold is not chosen on fewer, and a bin
 * with fewer is merged into the one below it in the same level.
 */
const LEAST_VERDICTS = 20;

/** Entailment probabilities [from, to) (the last bin includes 1), with how many dev verdicts were said there and how many were right. */
export interface CalibrationBin {
  readonly from: number;
  readonly to: number;
  readonly verdicts: number;
  readonly right: number;
}

export interface Calibration {
  /** The entailment probability from which `supported` is shown as sure; Infinity (null in attest.json) when no level was precise enough. */
  readonly strongEntailment: number;
  /** The precision asked of the strong level on dev. */
  readonly precision: number;
  /** The dev files the figures come from, relative to the evaluation data. */
  readonly dev: readonly string[];
  /** From the model's entailment threshold up, in order. */
  readonly bins: readonly CalibrationBin[];
}

/** One dev pair the model called supported: its entailment probability and whether the gold label agrees. */
export interface JudgedPair {
  readonly entailment: number;
  readonly right: boolean;
}

/** How sure a `supported` verdict is shown: `strong` only at the calibrated level; without calibration never. */
export type SupportConfidence = 'strong' | 'weak';

export function confidenceOf(entailment: number, calibration: Calibration | undefined): SupportConfidence {
  return calibration !== undefined && entailment >= calibration.strongEntailment ? 'strong' : 'weak';
}

/** The bin holding `entailment`; undefined without calibration or below its first bin. */
export function binOf(entailment: number, calibration: Calibration | undefined): CalibrationBin | undefined {
  const bins = calibration?.bins ?? [];
  return bins.find((bin, i) => entailment >= bin.from && (entailment < bin.to || i === bins.length - 1));
}

/**
 * From the dev pairs the model called supported (at its own entailment threshold `lowest`): the
 * lowest threshold on a 0.01 grid whose verdicts are right `precision` of the time, pooled, over at
 * least LEAST_VERDICTS of them; and bins a tenth wide from `lowest`, split at that threshold, each
 * with its counts.
 */
export function calibrate(pairs: readonly JudgedPair[], lowest: number, dev: readonly string[], precision = STRONG_PRECISION): Calibration {
  const grid = Array.from({ length: 100 }, (_, i) => (i + 1) / 100).filter((t) => t >= lowest);
  const strongEntailment =
    grid.find((t) => {
      const said = pairs.filter((p) => p.entailment >= t);
      return said.length >= LEAST_VERDICTS && said.filter((p) => p.right).length >= precision * said.length;
    }) ?? Number.POSITIVE_INFINITY;
  const edges = [...new Set([lowest, ...grid.filter((t) => t > lowest && Math.round(t * 100) % 10 === 0 && t < 1), ...(Number.isFinite(strongEntailment) ? [strongEntailment] : [])])].sort((a, b) => a - b);
  const bins: CalibrationBin[] = [];
  edges.forEach((from, i) => {
    const to = edges[i + 1] ?? 1;
    const inside = pairs.filter((p) => p.entailment >= from && (p.entailment < to || to === 1));
    const bin = { from, to, verdicts: inside.length, right: inside.filter((p) => p.right).length };
    const below = bins[bins.length - 1];
    const sameLevel = below !== undefined && (below.from >= strongEntailment) === (from >= strongEntailment);
    if (sameLevel && below.verdicts < LEAST_VERDICTS) bins[bins.length - 1] = { from: below.from, to, verdicts: below.verdicts + bin.verdicts, right: below.right + bin.right };
    else bins.push(bin);
  });
  // A last bin too small to say much joins the one below it, when that one is of the same level.
  const last = bins[bins.length - 1];
  const before = bins[bins.length - 2];
  if (last && before && last.verdicts < LEAST_VERDICTS && (before.from >= strongEntailment) === (last.from >= strongEntailment)) {
    bins.splice(-2, 2, { from: before.from, to: last.to, verdicts: before.verdicts + last.verdicts, right: before.right + last.right });
  }
  return { strongEntailment, precision, dev, bins };
}
