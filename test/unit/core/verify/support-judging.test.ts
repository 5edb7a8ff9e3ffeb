import assert from 'node:assert/strict';
import { analyze } from '../../../../src/core/index/analyzer';
import type { JudgingParameters } from '../../../../src/core/models/judging';
import type { NliModel, NliPair, NliScores } from '../../../../src/core/models/nli';
import { abstractText, isAbstract } from '../../../../src/core/verify/abstracts';
import { judgePapers } from '../../../../src/core/verify/claims';
import { judgeSupport, thresholdsFrom } from '../../../../src/core/verify/support';
import { overlap } from '../../support/ruleNli';

/** A model that answers the scores it is given for every pair, and keeps the pairs it was asked. */
class FixedNli implements NliModel {
  readonly pairs: NliPair[] = [];
  constructor(
    private readonly scores: NliScores,
    readonly judging?: JudgingParameters,
  ) {}
  async classify(pairs: readonly NliPair[]): Promise<NliScores[]> {
    this.pairs.push(...pairs);
    return pairs.map(() => this.scores);
  }
  async dispose(): Promise<void> {}
}

const WHOLE: JudgingParameters = { premise: 'abstract', thresholds: { entailment: 0.6, contradiction: 0.8 } };

// Ten sentences; the one about the claim (aspirin, stroke) is the ninth.
const LONG_ABSTRACT = [
  'Cardiovascular disease remains a leading cause of death worldwide.',
  'We enrolled adults from forty clinics across three countries.',
  'Participants were followed for a median of five years.',
  'Baseline characteristics were balanced between the groups.',
  'Adherence was assessed by pill counts at every visit.',
  'Blood pressure fell slightly in both groups.',
  'Bleeding events were recorded by an independent committee.',
  'Quality of life did not differ between the groups.',
  'Daily aspirin reduced the risk of stroke by a fifth.',
  'These findings inform guidelines for primary prevention.',
];

describe('judging with a model trained on whole abstracts (attest.json premise "abstract")', () => {
  it('asks the model once, with the whole abstract ranked as its training ranked it, the late relevant sentence first', async () => {
    const model = new FixedNli({ entailment: 0.9, contradiction: 0.02, neutral: 0.08 }, WHOLE);
    const j = await judgeSupport('Aspirin reduces the risk of stroke.', LONG_ABSTRACT, { relevance: overlap, nli: { model, id: 'm#1', name: 'attest-nli-minilm-l6 (built in)' } });
    assert.equal(model.pairs.length, 1);
    const premise = model.pairs[0].premise;
    assert.ok(typeof premise === 'object');
    assert.deepEqual(premise.sentences, LONG_ABSTRACT);
    assert.equal(premise.priority[0], 8);
    assert.deepEqual(
      [...premise.priority].sort((a, b) => a - b),
      LONG_ABSTRACT.map((_, i) => i),
    );
    assert.deepEqual([j.label, j.sentence, j.model], ['supported', LONG_ABSTRACT[8], 'attest-nli-minilm-l6 (built in)']);
  });

  it('judges each full-text passage as a premise of its own beside the abstract', async () => {
    const model = new FixedNli({ entailment: 0.1, contradiction: 0.1, neutral: 0.8 }, WHOLE);
    await judgeSupport('Aspirin reduces the risk of stroke.', LONG_ABSTRACT, { relevance: overlap, nli: { model, id: 'm' } }, [
      { section: 'Results', text: 'Stroke was rarer with aspirin.' },
    ]);
    assert.deepEqual(
      model.pairs.map((p) => typeof p.premise),
      ['object', 'string'],
    );
  });

  it("uses the model's own thresholds: contradiction only from its higher one", async () => {
    const scores = { entailment: 0.05, contradiction: 0.7, neutral: 0.25 };
    const judge = (judging?: JudgingParameters) =>
      judgeSupport('Aspirin raises the risk of stroke.', LONG_ABSTRACT, { relevance: overlap, nli: { model: new FixedNli(scores, judging), id: 'm' } });
    assert.equal((await judge(WHOLE)).label, 'unsupported');
    // A general NLI export keeps the 3-way softmax's boundary.
    assert.equal((await judge()).label, 'contradicted');
  });

  it('says the model could not tell, and reports nothing, when no verdict reaches its threshold', async () => {
    const judging: JudgingParameters = { premise: 'abstract', thresholds: { entailment: 0.6, contradiction: Number.POSITIVE_INFINITY, neutral: 0.7 } };
    const judge = (scores: NliScores) =>
      judgeSupport('Aspirin raises the risk of stroke.', LONG_ABSTRACT, { relevance: overlap, nli: { model: new FixedNli(scores, judging), id: 'm' } });
    assert.deepEqual(
      [
        await judge({ entailment: 0.3, contradiction: 0.3, neutral: 0.4 }),
        await judge({ entailment: 0.1, contradiction: 0.1, neutral: 0.8 }),
        await judge({ entailment: 0.01, contradiction: 0.98, neutral: 0.01 }),
      ].map((j) => [j.label, j.reason]),
      [
        ['unverifiable', 'the model could not tell'],
        ['unsupported', undefined],
        ['unverifiable', 'the model could not tell'],
      ],
    );
  });

  it('never says unsupported with a model whose neutral threshold is null, and still says supported', async () => {
    const judging: JudgingParameters = { premise: 'abstract', thresholds: { entailment: 0.6, contradiction: Number.POSITIVE_INFINITY, neutral: Number.POSITIVE_INFINITY } };
    const judge = (scores: NliScores) =>
      judgeSupport('Aspirin raises the risk of stroke.', LONG_ABSTRACT, { relevance: overlap, nli: { model: new FixedNli(scores, judging), id: 'm' } });
    assert.deepEqual(
      [await judge({ entailment: 0.1, contradiction: 0.1, neutral: 0.8 }), await judge({ entailment: 0.7, contradiction: 0.1, neutral: 0.2 })].map((j) => j.label),
      ['unverifiable', 'supported'],
    );
  });

  it("lets the thresholds the user set override the model's", async () => {
    const nli = { model: new FixedNli({ entailment: 0.55, contradiction: 0.3, neutral: 0.15 }, WHOLE), id: 'm' };
    assert.equal((await judgeSupport('Aspirin reduces the risk of stroke.', LONG_ABSTRACT, { relevance: overlap, nli })).label, 'unsupported');
    const { thresholds } = thresholdsFrom((key) => (key === 'attest.support.entailmentThreshold' ? 0.5 : undefined));
    assert.deepEqual(thresholds, { entailment: 0.5 });
    assert.equal((await judgeSupport('Aspirin reduces the risk of stroke.', LONG_ABSTRACT, { relevance: overlap, nli, thresholds })).label, 'supported');
  });
});

describe('what counts as an abstract', () => {
  const REAL =
    'Daily aspirin is widely used to prevent cardiovascular events. In a randomised trial of 19,114 older adults, aspirin did not prolong disability-free survival and led to more major haemorrhage than placebo.';

  for (const note of [
    '© 2020 Elsevier Ltd. All rights reserved.',
    'Wickham et al., (2019). Welcome to the tidyverse. Journal of Open Source Software, 4(43), 1686, https://doi.org/10.21105/joss.01686',
    'R Foundation for Statistical Computing, Vienna, Austria.',
    'Update Jan.',
    'No abstract available',
    '[No abstract available.]',
    "An abstract is not available for this content so a preview has been provided. As you have access to this content, a full PDF is available via the 'Save PDF' action button.",
  ]) {
    it(`refuses ${JSON.stringify(note.slice(0, 40))}`, () => {
      assert.equal(abstractText(note), undefined);
      assert.equal(isAbstract(note), false);
    });
  }

  it('takes a real abstract, without its heading and copyright line', () => {
    assert.equal(abstractText(REAL), REAL);
    assert.equal(abstractText(`Abstract ${REAL} © 2020 Elsevier Ltd. All rights reserved.`), REAL);
    const adjective = 'Abstract reasoning develops through childhood. We tested 300 children on analogies and found steady gains from age five.';
    assert.equal(abstractText(adjective), adjective);
  });

  it("leaves a placeholder from a paper's record unjudged in Find Evidence", async () => {
    const model = new FixedNli({ entailment: 0.9, contradiction: 0.02, neutral: 0.08 });
    const papers = [
      { id: 'a', title: 'Aspirin in the elderly', authors: [], abstract: REAL },
      { id: 'b', title: 'A letter', authors: [], abstract: 'No abstract available' },
    ];
    const judged = await judgePapers('Aspirin prevents disability.', papers, { analyze, nli: { model, id: 'm' } });
    assert.equal(judged[0]?.label, 'supported');
    assert.equal(judged[1], undefined);
    assert.ok(model.pairs.every((p) => typeof p.premise === 'string' && !p.premise.includes('No abstract')));
  });
});
