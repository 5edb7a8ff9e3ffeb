import assert from 'node:assert/strict';
import type { NliModel, NliPair, NliScores } from '../../../../src/core/models/nli';
import type { Paper } from '../../../../src/core/papers/paper';
import { acceptedSentences } from '../../../../src/core/suggest/insertion';
import { recheck, supportJudge } from '../../../../src/core/suggest/recheck';
import type { NumberedSource } from '../../../../src/core/suggest/sources';
import { premiseText } from '../../support/ruleNli';

/** Entails when the premise says "cuts latency", contradicts on "raises latency". */
class KeywordNli implements NliModel {
  async classify(pairs: readonly NliPair[]): Promise<NliScores[]> {
    return pairs.map(({ premise }) =>
      /cuts median latency/.test(premiseText(premise))
        ? { entailment: 0.92, contradiction: 0.03, neutral: 0.05 }
        : /raises latency/.test(premiseText(premise))
          ? { entailment: 0.05, contradiction: 0.9, neutral: 0.05 }
          : { entailment: 0.1, contradiction: 0.1, neutral: 0.8 },
    );
  }
  async dispose(): Promise<void> {}
}

const paper = (id: string): Paper => ({ id, title: id, authors: [] });
const SOURCES: NumberedSource[] = [
  { number: 1, paper: paper('a'), passages: ['We measured twelve web servers.', 'Caching cuts median latency by forty percent.'] },
  { number: 2, paper: paper('b'), passages: ['Glaciers retreat faster in warm summers.'] },
  { number: 3, paper: paper('c'), passages: ['A larger cache raises latency under churn.'] },
  { number: 5, paper: paper('e'), passages: ['We measured the latency of caching web servers.'] },
];

describe('re-checking drafted sentences against the passages they cite', () => {
  it('with an NLI model, confirms an entailed sentence and names the passage and its paper', async () => {
    const judge = supportJudge({ nli: { model: new KeywordNli(), id: 'keywords' } });
    const [checked] = await recheck([{ text: 'Caching cuts latency.', sources: [1] }], SOURCES, judge);
    assert.equal(checked.status, 'supported');
    assert.equal(checked.evidence?.paper, SOURCES[0].paper);
    assert.equal(checked.evidence?.passage, 'Caching cuts median latency by forty percent.');
    assert.equal(checked.evidence?.judgement.model, 'keywords');
  });

  it('marks a contradicted sentence contradicted, an unrelated one unrelated, and a related one it cannot confirm unconfirmed, saying why', async () => {
    const judge = supportJudge({ nli: { model: new KeywordNli(), id: 'keywords' } });
    const sentences = [3, 2, 5].map((n) => ({ text: 'Caching lowers latency.', sources: [n] }));
    const checked = await recheck(sentences, SOURCES, judge);
    assert.deepEqual(
      checked.map((c) => [c.status, c.reason]),
      [
        ['contradicted', 'a cited passage contradicts it, so it is never inserted'],
        ['unrelated', "the cited passages share none of the sentence's key terms, so it is never inserted"],
        ['unconfirmed', 'the cited passages do not state it'],
      ],
    );
  });

  it('never lets a sentence its source is unrelated to be inserted, whatever the user chooses', async () => {
    for (const judge of [supportJudge(), supportJudge({ nli: { model: new KeywordNli(), id: 'keywords' } })]) {
      const checked = await recheck([{ text: 'Vaccines cause autism.', sources: [2] }], SOURCES, judge);
      assert.equal(checked[0].status, 'unrelated');
      assert.deepEqual(acceptedSentences(checked, 'all'), []);
      assert.deepEqual(acceptedSentences(checked, new Set([0])), []);
    }
  });

  it('without a model, confirms nothing but still catches a citation of something unrelated', async () => {
    const checked = await recheck(
      [
        { text: 'Caching cuts median latency of web servers.', sources: [1] },
        { text: 'Caching cuts median latency of web servers.', sources: [2] },
      ],
      SOURCES,
      supportJudge(),
    );
    assert.deepEqual(
      checked.map((c) => [c.status, c.reason]),
      [
        ['unconfirmed', 'related to the cited passages, but without an NLI model support cannot be confirmed'],
        ['unrelated', "the cited passages share none of the sentence's key terms, so it is never inserted"],
      ],
    );
  });

  it('turns only the numbers of given sources into papers', async () => {
    const judge = supportJudge();
    const [checked] = await recheck([{ text: 'Caching helps.', sources: [4, 9] }], SOURCES, judge);
    assert.deepEqual([checked.citations, checked.status, checked.reason], [[], 'uncited', 'it cites none of the sources, so it is never inserted']);
  });
});
