import assert from 'node:assert/strict';
import { mostRightAtPrecision } from '../../../bench/metrics';

describe("the bench's reach of a verdict at a precision", () => {
  it('counts the most right answers a threshold finds while that share of what it picks is right', () => {
    // Highest score first: right, right, wrong, right, wrong, wrong.
    const scored = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4].map((score, i) => ({ score, right: [true, true, false, true, false, false][i] }));
    assert.equal(mostRightAtPrecision(scored, 1), 2);
    assert.equal(mostRightAtPrecision(scored, 0.75), 3);
    assert.equal(mostRightAtPrecision(scored, 0.5), 3);
  });

  it('does not part equal scores, which no threshold can', () => {
    const scored = [
      { score: 0.9, right: false },
      { score: 0.9, right: true },
      { score: 0.3, right: true },
    ];
    assert.equal(mostRightAtPrecision(scored, 1), 0);
    assert.equal(mostRightAtPrecision(scored, 0.5), 2);
  });

  it('finds nothing when nothing is right', () => {
    assert.equal(mostRightAtPrecision([{ score: 0.9, right: false }], 0.5), 0);
    assert.equal(mostRightAtPrecision([], 0.75), 0);
  });
});
