import assert from 'node:assert/strict';
import { calibrate, type Calibration } from '../../../../src/core/models/calibration';
import type { JudgingParameters } from '../../../../src/core/models/judging';
import type { NliModel, NliScores } from '../../../../src/core/models/nli';
import type { CitationSupport } from '../../../../src/core/verify/results';
import { judgeSupport, shownVerdict, type SupportJudgement } from '../../../../src/core/verify/support';
import { verdictView } from '../../../../src/extension/evidence/verdictView';
import { supportWords, type Localize } from '../../../../src/extension/check/supportWords';
import { overlap } from '../../support/ruleNli';

/** A model that gives every pair the same scores. */
class FixedNli implements NliModel {
  constructor(
    private readonly scores: NliScores,
    readonly judging?: JudgingParameters,
  ) {}
  async classify(pairs: readonly unknown[]): Promise<NliScores[]> {
    return pairs.map(() => this.scores);
  }
  async dispose(): Promise<void> {}
}

const CALIBRATION: Calibration = {
  strongEntailment: 0.7,
  precision: 0.85,
  dev: ['scifact/claims_dev.jsonl'],
  bins: [
    { from: 0.26, to: 0.5, verdicts: 100, right: 40 },
    { from: 0.5, to: 0.7, verdicts: 50, right: 30 },
    { from: 0.7, to: 1, verdicts: 40, right: 36 },
  ],
};
const THRESHOLDS = { entailment: 0.26, contradiction: Number.POSITIVE_INFINITY, neutral: 0.78 };
const CALIBRATED: JudgingParameters = { premise: 'abstract', thresholds: THRESHOLDS, calibration: CALIBRATION };
/** An attest.json written before calibration: no `calibration`. */
const OLDER: JudgingParameters = { premise: 'abstract', thresholds: THRESHOLDS };

const ABSTRACT = ['Aldehyde dehydrogenase 1 expression was measured in 577 breast carcinomas.', 'ALDH1 expression correlated with poor prognosis.'];

async function judge(entailment: number, judging: JudgingParameters | undefined): Promise<SupportJudgement> {
  const model = new FixedNli({ entailment, contradiction: 0.01, neutral: 0.99 - entailment }, judging);
  return judgeSupport('ALDH1 expression is associated with better breast cancer outcomes.', ABSTRACT, { relevance: overlap, nli: { model, id: 'm' } });
}

/** English as the extension shows it without a translation: `{n}` filled in from the arguments. */
const english: Localize = (message, ...args) => message.replace(/\{(\d+)\}/g, (_, i: string) => String(args[Number(i)]));

function words(judgement: SupportJudgement, supportedTogether = false): ReturnType<typeof supportWords> {
  return supportWords({ judgement, supportedTogether } satisfies Pick<CitationSupport, 'judgement' | 'supportedTogether'>, english);
}

describe('how sure a supported verdict is shown', () => {
  it('says supported, with a check mark, only from the calibrated level; just under it the same label is "may support"', async () => {
    const under = await judge(0.69, CALIBRATED);
    const at = await judge(0.7, CALIBRATED);
    assert.deepEqual([under.label, at.label], ['supported', 'supported']);
    assert.deepEqual([shownVerdict(under), shownVerdict(at)], ['may-support', 'supported']);
    assert.deepEqual([under.confidence, at.confidence], ['weak', 'strong']);
  });

  it('never shows a strong verdict for a model whose attest.json has no calibration, however high its probability', async () => {
    for (const judging of [OLDER, undefined]) {
      const j = await judge(0.99, judging);
      assert.equal(j.label, 'supported');
      assert.equal(shownVerdict(j), 'may-support');
      assert.equal(j.onDev, undefined);
      assert.equal(words(j).icon, 'circle-large-outline');
    }
    // A judgement cached before confidence was kept is read the same way.
    assert.equal(shownVerdict({ label: 'supported' }), 'may-support');
  });

  it("carries the dev record of its probability's bin, for the hover to say what the probability means", async () => {
    assert.deepEqual((await judge(0.45, CALIBRATED)).onDev, { verdicts: 100, right: 40 });
    assert.deepEqual((await judge(0.92, CALIBRATED)).onDev, { verdicts: 40, right: 36 });
    assert.deepEqual((await judge(1, CALIBRATED)).onDev, { verdicts: 40, right: 36 });
  });
});

describe('the hover and the Find Evidence badge at each level', () => {
  it('strong: a check mark, "supported", and how often such verdicts were right on dev', async () => {
    const w = words(await judge(0.92, CALIBRATED));
    assert.equal(w.icon, 'pass');
    assert.equal(w.verdict, 'supported');
    assert.equal(
      w.meaning,
      "The model's probability that the cited text supports the sentence: 0.92. On the dev claims it was measured on (SciFact, Citation-Integrity, Check-COVID), 9 in 10 verdicts at this level were right (36 of 40); on claims of other kinds it is right less often.",
    );
    assert.equal(verdictView(await judge(0.92, CALIBRATED)).label, 'supported');
  });

  it('weak: no check mark, "may support", and the lower share right on dev', async () => {
    const j = await judge(0.45, CALIBRATED);
    const w = words(j);
    assert.notEqual(w.icon, 'pass');
    assert.equal(w.verdict, 'may support the sentence; the model is not sure');
    assert.equal(
      w.meaning,
      "The model's probability that the cited text supports the sentence: 0.45. On the dev claims it was measured on (SciFact, Citation-Integrity, Check-COVID), 4 in 10 verdicts at this level were right (40 of 100); on claims of other kinds it is right less often.",
    );
    assert.deepEqual(verdictView(j), { label: 'may-support', entailment: 0.45, onDev: { verdicts: 100, right: 40 } });
  });

  it('uncalibrated: "may support", saying the model was not measured', async () => {
    const w = words(await judge(0.9, OLDER));
    assert.equal(w.verdict, 'may support the sentence; the model is not sure');
    assert.match(w.meaning ?? '', /0\.90\. The model was not measured at this level on the dev claims, so the verdict is not shown as sure\.$/);
  });

  it('below the lower threshold: no supported wording at all, and the other verdicts as before', async () => {
    const j = await judge(0.2, CALIBRATED);
    assert.notEqual(j.label, 'supported');
    const w = words(j);
    assert.equal(w.verdict, 'unsupported');
    assert.equal(w.meaning, undefined);
    assert.equal(words(j, true).verdict, 'supported together with the other citations of this sentence');
  });
});

describe('choosing the strong level from dev verdicts', () => {
  const cluster = (entailment: number, verdicts: number, right: number) => Array.from({ length: verdicts }, (_, i) => ({ entailment, right: i < right }));
  // Right 20% of the time at 0.35, 50% at 0.55, 90% at 0.75, always at 0.95.
  const pairs = [...cluster(0.35, 100, 20), ...cluster(0.55, 60, 30), ...cluster(0.75, 40, 36), ...cluster(0.95, 20, 20)];

  it('takes the lowest level whose verdicts are right 85% of the time, with bins of at least 20 verdicts that never straddle it', () => {
    const c = calibrate(pairs, 0.3, ['scifact/claims_dev.jsonl']);
    assert.equal(c.strongEntailment, 0.56);
    assert.deepEqual(
      c.bins.map((b) => [b.from, b.to, b.verdicts, b.right]),
      [
        [0.3, 0.4, 100, 20],
        [0.4, 0.56, 60, 30],
        [0.56, 0.8, 40, 36],
        [0.8, 1, 20, 20],
      ],
    );
  });

  it('never shows a verdict as sure when no level is precise enough', () => {
    const c = calibrate([...cluster(0.35, 100, 20), ...cluster(0.95, 20, 10)], 0.3, []);
    assert.equal(c.strongEntailment, Number.POSITIVE_INFINITY);
  });
});
