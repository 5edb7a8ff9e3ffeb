/**
 * Ways to fuse a lexical and a dense ranking, tried by the retrieval bench on SciFact's training
 * claims so the one Find Evidence ships (src/core/index/hybrid.ts) is chosen by measurement:
 * reciprocal-rank fusion with several constants, weights and depths, and convex combinations of the
 * two sides' scores, scaled to [0, 1] (min-max) or standardised (z, the one shipped) over each side's
 * candidates.
 */
import { standardisedFusion, type Ranked } from '../src/core/index/hybrid';

export interface FusionVariant {
  readonly name: string;
  /** How many papers each side contributes. */
  readonly depth: number;
  fuse(lexical: readonly Ranked[], dense: readonly Ranked[]): Ranked[];
}

function weightedRrf(k: number, denseWeight: number, depth: number): FusionVariant {
  return {
    name: `RRF k=${k}, dense weight ${denseWeight}, depth ${depth}`,
    depth,
    fuse: (lexical, dense) => {
      const scores = new Map<string, number>();
      lexical.forEach(({ id }, at) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + at + 1)));
      dense.forEach(({ id }, at) => scores.set(id, (scores.get(id) ?? 0) + denseWeight / (k + at + 1)));
      return sorted(scores);
    },
  };
}

/** Each side's scores scaled to [0, 1] over its candidates; a paper one side did not return counts 0 there. */
function convex(denseWeight: number, depth: number): FusionVariant {
  return {
    name: `scores, min-max, dense weight ${denseWeight}, depth ${depth}`,
    depth,
    fuse: (lexical, dense) => {
      const scores = new Map<string, number>();
      const add = (ranking: readonly Ranked[], weight: number): void => {
        if (ranking.length === 0) return;
        const top = ranking[0].score;
        const bottom = ranking[ranking.length - 1].score;
        const span = top - bottom || 1;
        for (const { id, score } of ranking) scores.set(id, (scores.get(id) ?? 0) + (weight * (score - bottom)) / span);
      };
      add(lexical, 1 - denseWeight);
      add(dense, denseWeight);
      return sorted(scores);
    },
  };
}

function standardised(denseWeight: number, depth: number): FusionVariant {
  return { name: `scores, z, dense weight ${denseWeight}, depth ${depth}`, depth, fuse: (lexical, dense) => standardisedFusion(lexical, dense, denseWeight) };
}

function sorted(scores: ReadonlyMap<string, number>): Ranked[] {
  return [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([id, score]) => ({ id, score }));
}

const WEIGHTS = [0.4, 0.5, 0.6, 0.7, 0.75, 0.8];
const DEPTHS = [100, 1000];

export const FUSION_VARIANTS: readonly FusionVariant[] = [
  ...[1, 10, 60].flatMap((k) => [1, 2].flatMap((weight) => DEPTHS.map((depth) => weightedRrf(k, weight, depth)))),
  ...WEIGHTS.flatMap((weight) => DEPTHS.map((depth) => convex(weight, depth))),
  ...WEIGHTS.flatMap((weight) => DEPTHS.map((depth) => standardised(weight, depth))),
];
