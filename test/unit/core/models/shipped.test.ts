import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { builtInNliFolder } from '../../../../src/core/models/builtIn';
import { FIXTURES } from '../../support/helpers';
import { attest } from '../../support/cli';

// The model built into Attest, its tokenizer and the judging pipeline together, as a user gets them at
// install: `attest verify --pairs` with no --nli-model, on real dev pairs of Check-COVID and
// Citation-Integrity (test/fixtures/claims/, MIT). SciFact stays out of the repository. The pairs are
// ones the shipped model judges right, a contradiction among them and a supported claim that says "not"
// (which a "not" alone must not make a contradiction), so a change to the model file, the tokenizer or
// the pipeline that changes its verdicts fails here.

const EXPECTED: Readonly<Record<string, string>> = { SUPPORT: 'supported', REFUTE: 'contradicted', CONTRADICT: 'contradicted', NOTENOUGHINFO: 'unsupported', NEI: 'unsupported' };
const PAIRS = ['check-covid', 'citation-integrity'].map((set) => path.join(FIXTURES, 'claims', set, 'dev-pairs.jsonl'));

describe('the built-in NLI model on real claims', function () {
  this.timeout(120_000);
  const saved = process.env.ATTEST_NLI_MODEL;

  before(async function () {
    if ((await builtInNliFolder()) === undefined) {
      console.log('      skipped: models/attest-nli is not in this repository yet');
      this.skip();
    }
    delete process.env.ATTEST_NLI_MODEL;
  });

  after(() => {
    if (saved === undefined) delete process.env.ATTEST_NLI_MODEL;
    else process.env.ATTEST_NLI_MODEL = saved;
  });

  it('shows a supported verdict as sure only from the level its calibration, read from dev files alone, found right 85% of the time', async () => {
    const dir = (await builtInNliFolder()) as string;
    const calibration = (JSON.parse(readFileSync(path.join(dir, 'attest.json'), 'utf8')) as { calibration?: { strongEntailment: number | null; dev: string[] } }).calibration;
    assert.ok(calibration, 'the shipped attest.json has a calibration');
    assert.ok(calibration.dev.length > 0 && calibration.dev.every((f) => /(_dev|corpus)[^/]*\.jsonl$/.test(f)), calibration.dev.join(', '));
    const strong = calibration.strongEntailment ?? Number.POSITIVE_INFINITY;
    const { code, out } = await attest('verify', '--pairs', PAIRS[0]);
    assert.equal(code, 0);
    const supported = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { label: string; confidence: string | null; entailment: number })
      .filter((j) => j.label === 'supported');
    assert.ok(supported.length > 0);
    for (const j of supported) assert.equal(j.confidence, j.entailment >= strong ? 'strong' : 'weak', JSON.stringify(j));
  });

  for (const file of PAIRS) {
    it(`gives each pair of ${path.basename(path.dirname(file))} its gold label, saying which model judged`, async () => {
      const gold = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as { id: string | number; label: string });
      const { code, out } = await attest('verify', '--pairs', file);
      assert.equal(code, 0);
      const judged = out.trim().split('\n').map((line) => JSON.parse(line) as { id: string | number; label: string; model: string | null });
      assert.deepEqual(
        judged.map((j) => [j.id, j.label]),
        gold.map((g) => [g.id, EXPECTED[g.label]]),
      );
      for (const j of judged) assert.match(j.model ?? '', /\(built in\)$/);
    });
  }
});
