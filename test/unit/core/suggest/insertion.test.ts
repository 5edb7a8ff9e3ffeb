import assert from 'node:assert/strict';
import { acceptedSentences, insertionText } from '../../../../src/core/suggest/insertion';
import type { SentenceStatus } from '../../../../src/core/suggest/recheck';

const SENTENCES: readonly { text: string; status: SentenceStatus }[] = [
  { text: 'Supported one.', status: 'supported' },
  { text: 'Unconfirmed one.', status: 'unconfirmed' },
  { text: 'Contradicted one.', status: 'contradicted' },
  { text: 'Uncited one.', status: 'uncited' },
  { text: 'Unconfirmed two.', status: 'unconfirmed' },
];

describe('what Accept inserts', () => {
  it('inserts the supported sentences, and the unconfirmed ones only when ticked', () => {
    assert.deepEqual(
      acceptedSentences(SENTENCES).map((s) => s.text),
      ['Supported one.'],
    );
    assert.deepEqual(
      acceptedSentences(SENTENCES, new Set([4])).map((s) => s.text),
      ['Supported one.', 'Unconfirmed two.'],
    );
    assert.deepEqual(
      acceptedSentences(SENTENCES, 'all').map((s) => s.text),
      ['Supported one.', 'Unconfirmed one.', 'Unconfirmed two.'],
    );
  });

  it('never inserts a contradicted or uncited sentence, even when it is ticked', () => {
    assert.deepEqual(
      acceptedSentences(SENTENCES, new Set([0, 1, 2, 3, 4])).map((s) => s.status),
      ['supported', 'unconfirmed', 'unconfirmed'],
    );
  });

  it("closes each sentence with its citation before the full stop, in the manuscript's command", () => {
    const sentences = [
      { text: 'Caching cuts latency by 40%.', keys: ['lee2019cache', 'kim2020'] },
      { text: 'Is it "fast"?', keys: ['lee2019cache'] },
      { text: 'It scales', keys: ['kim2020'] },
    ];
    assert.equal(
      insertionText(sentences, { kind: 'latex', command: 'parencite' }),
      'Caching cuts latency by 40\\%~\\parencite{lee2019cache,kim2020}. Is it "fast"~\\parencite{lee2019cache}? It scales~\\parencite{kim2020}',
    );
    assert.equal(insertionText(sentences, { kind: 'latex', command: 'footcite' }).split('.')[0], 'Caching cuts latency by 40\\%\\footcite{lee2019cache,kim2020}');
    assert.equal(insertionText(sentences, { kind: 'pandoc' }), 'Caching cuts latency by 40% [@lee2019cache; @kim2020]. Is it "fast" [@lee2019cache]? It scales [@kim2020]');
  });

  it('refuses a key the citation could not carry intact, rather than write a broken one', () => {
    assert.throws(() => insertionText([{ text: 'A.', keys: ['a%b'] }], { kind: 'latex', command: 'cite' }), /The key "a%b" cannot be written in a LaTeX citation/);
    assert.throws(() => insertionText([{ text: 'A.', keys: ['a}b'] }], { kind: 'pandoc' }), /cannot be written in a pandoc citation/);
    assert.equal(insertionText([{ text: 'A.', keys: ['a b'] }], { kind: 'pandoc' }), 'A [@{a b}].');
  });
});
