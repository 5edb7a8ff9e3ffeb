import assert from 'node:assert/strict';
import { KeyCompleter, keyContext, type KeyCandidate } from '../../src/core/completion/citationKeys';

const CANDIDATES: KeyCandidate[] = [
  { key: 'hochreiter1997lstm', title: 'Long Short-Term Memory', authors: 'Sepp Hochreiter, Jürgen Schmidhuber', year: 1997, venue: 'Neural Computation' },
  { key: 'vaswani2017attention', title: 'Attention Is All You Need', authors: 'Ashish Vaswani, Noam Shazeer, Niki Parmar', year: 2017, venue: 'NeurIPS' },
  { key: 'bahdanau2015', title: 'Neural Machine Translation by Jointly Learning to Align and Translate', authors: 'Dzmitry Bahdanau, Kyunghyun Cho, Yoshua Bengio', year: 2015 },
  { key: 'vaswani2021scaling', title: 'Scaling Local Self-Attention for Parameter Efficient Visual Backbones', authors: 'Ashish Vaswani, Prajit Ramachandran', year: 2021 },
];

describe('citation key completion', () => {
  const completer = new KeyCompleter(CANDIDATES);
  const keys = (typed: string): string[] => completer.complete(typed).map((c) => c.key);

  it('finds a key from words of its author and title, every word required', () => {
    assert.deepEqual(keys('vaswani attent'), ['vaswani2017attention', 'vaswani2021scaling']);
    assert.deepEqual(keys('vaswani scaling'), ['vaswani2021scaling']);
    assert.deepEqual(keys('schmidhuber 1997'), ['hochreiter1997lstm']);
  });

  it('matches prefixes of keys and forgives a typo in a longer word', () => {
    assert.deepEqual(keys('hochr'), ['hochreiter1997lstm']);
    assert.deepEqual(keys('bahdanua'), ['bahdanau2015']);
  });

  it('offers every key when nothing is typed, and nothing for words no entry has', () => {
    assert.equal(keys('').length, 4);
    assert.deepEqual(keys('glacier'), []);
  });

  it('knows when the cursor is in a LaTeX key list and what is typed of the key', () => {
    assert.deepEqual(keyContext('As shown \\citep[see][p. 3]{hochreiter1997lstm, vaswani att', 'latex'), { start: 47, typed: 'vaswani att' });
    assert.deepEqual(keyContext('\\textcite*{', 'latex'), { start: 11, typed: '' });
    assert.equal(keyContext('\\cite{a} and then', 'latex'), undefined);
    assert.equal(keyContext('\\ref{fig', 'latex'), undefined);
  });

  it('knows when the cursor is in a pandoc citation', () => {
    assert.deepEqual(keyContext('As shown [see @vasw', 'markdown'), { start: 15, typed: 'vasw' });
    assert.deepEqual(keyContext('@hoch', 'markdown'), { start: 1, typed: 'hoch' });
    assert.deepEqual(keyContext('[@a; -@', 'markdown'), { start: 7, typed: '' });
    assert.equal(keyContext('mail me at user@exam', 'markdown'), undefined);
  });
});
