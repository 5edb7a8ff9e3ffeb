import assert from 'node:assert/strict';

export function softmax(logits: readonly number[]): number[] {
  const max = Math.max(...logits);
  const exps = logits.map((x) => Math.exp(x - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

export function unit(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return vector.map((x) => x / norm);
}

/** Float32 arithmetic against float64 expectations: equal to about 6 significant digits. */
export function assertClose(actual: ArrayLike<number>, expected: readonly number[], message?: string): void {
  assert.equal(actual.length, expected.length, message);
  for (let i = 0; i < expected.length; i++) {
    assert.ok(Math.abs(actual[i] - expected[i]) < 1e-6, `${message ?? ''} [${i}]: ${actual[i]} is not ${expected[i]}`);
  }
}
