import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { premiseOrder } from '../../../../src/core/verify/premiseOrder';
import { REPO_ROOT } from '../../support/helpers';

interface Case {
  readonly claim: string;
  readonly sentences: readonly string[];
  readonly order: readonly number[];
}

/** Orders training's `relevance_order` gave (training/tests/test_pairs.py holds it to the same file). */
const TRAINING_ORDERS = JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/premise-order.json'), 'utf8')) as Case[];

describe('premiseOrder', () => {
  it('ranks an abstract as the model was trained on, for every case training ranked', () => {
    for (const c of TRAINING_ORDERS) assert.deepEqual(premiseOrder(c.claim, c.sentences), c.order, c.claim);
  });

  it('puts first the sentence that shares the claim’s words, and keeps the abstract’s order among the rest', () => {
    const order = premiseOrder('Aspirin reduces the risk of stroke.', [
      'We enrolled adults from forty clinics.',
      'Participants were followed for five years.',
      'Aspirin reduced the risk of stroke by a fifth.',
    ]);
    assert.deepEqual(order, [2, 0, 1]);
  });
});
