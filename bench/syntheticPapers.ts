import type { Paper } from '../src/core/papers/paper';

const WORDS = 'gaussian process stellar variability survey kernel inference bayesian network protein folding climate ocean aspirin stroke trial cohort'.split(' ');

/**
 * Paper `i` of a generated library: a 10-word title and a 150-word abstract over a small vocabulary,
 * so that searches match many. The title ends with the paper's number: the words alone repeat every
 * few dozen papers, and a library of copies would measure Find Evidence folding them into one work.
 */
export function syntheticPaper(i: number): Paper {
  const words = (n: number): string => Array.from({ length: n }, (_, k) => WORDS[(i * 31 + k * 7 + ((i >> (k % 5)) & 7)) % WORDS.length]).join(' ');
  return { id: `p${i}`, title: `${words(10)} ${i}`, authors: [{ family: 'Doe', given: 'J.' }], abstract: words(150) };
}

/** A claim whose words are the generated papers' words. */
export const CLAIM = 'bayesian inference of stellar variability with gaussian process kernels';
