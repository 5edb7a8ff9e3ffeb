import assert from 'node:assert/strict';
import { parseBibliography } from '../../src/core/bibliography/parse';
import { KeyCompleter, keyContext, type KeyCandidate } from '../../src/core/completion/citationKeys';
import type { Paper } from '../../src/core/papers/paper';

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
    assert.deepEqual(keys('V'), ['vaswani2017attention', 'vaswani2021scaling'], 'one letter: the keys that start with it, in order');
  });

  it('offers every key when nothing is typed, and nothing for words no entry has', () => {
    assert.equal(keys('').length, 4);
    assert.deepEqual(keys('glacier'), []);
  });

  it('re-indexes only what an edit of the bibliography changed: a renamed title is found by its new words only', async () => {
    const edited = new KeyCompleter();
    await edited.setEntries(parseBibliography('@article{lee2020, title = {Web server latency}, author = {Lee, Min}, year = 2020}', 'refs.bib').entries);
    assert.deepEqual(edited.complete('latency').map((c) => c.key), ['lee2020']);
    await edited.setEntries(parseBibliography('@article{lee2020, title = {Cache warmth}, author = {Lee, Min}, year = 2020}\n@misc{kim2021, title = {Latency}}', 'refs.bib').entries);
    assert.deepEqual(edited.complete('latency').map((c) => c.key), ['kim2021']);
    assert.deepEqual(edited.complete('cache').map((c) => c.key), ['lee2020']);
    assert.deepEqual(edited.complete('').map((c) => c.key), ['lee2020', 'kim2021']);
  });

  it('offers the papers of the library beside the keys, by the key Add to bibliography would give them, unless a bibliography has them', async () => {
    const paper = (id: string, title: string, family: string, year: number, doi?: string): Paper => ({ id, title, authors: [{ given: 'A.', family }], year, ...(doi && { doi }) });
    const library = [
      paper('doi:10.1/deep', 'Deep residual learning for image recognition', 'He', 2016, '10.1/deep'),
      paper('doi:10.1/lstm', 'Long short-term memory', 'Hochreiter', 1997, '10.1/lstm'),
      paper('arxiv:2001.1', 'Vision transformers at scale', 'Smith', 2020),
    ];
    const mixed = new KeyCompleter();
    await mixed.setEntries(
      parseBibliography(
        '@article{hochreiter1997lstm, title = {Long Short-Term Memory}, author = {Hochreiter, Sepp}, year = 1997, doi = {10.1/LSTM}}\n@misc{smith2020vision, title = {Vision of a key already taken}, year = 2019}',
        'refs.bib',
      ).entries,
    );
    await mixed.addPapers(library);
    const [residual] = mixed.complete('residual learn');
    assert.deepEqual([residual.key, residual.title, residual.authors, residual.year, residual.paper?.id], ['he2016deep', 'Deep residual learning for image recognition', 'A. He', 2016, 'doi:10.1/deep']);
    // The bibliography has the LSTM paper (same DOI): only its entry is offered.
    assert.deepEqual(mixed.complete('long short memory').map((c) => [c.key, c.paper === undefined]), [['hochreiter1997lstm', true]]);
    // Ranked with the keys, and given a free key when its own is taken.
    assert.deepEqual(mixed.complete('vision').map((c) => c.key).sort(), ['smith2020vision', 'smith2020visionb']);
    assert.deepEqual(mixed.complete('h').map((c) => c.key), ['hochreiter1997lstm', 'he2016deep']);
    // Nothing typed lists the bibliography, not a library of thousands.
    assert.deepEqual(mixed.complete('').map((c) => c.key), ['hochreiter1997lstm', 'smith2020vision']);
    await mixed.addPapers(library);
    assert.equal(mixed.complete('residual').length, 1, 'a paper added twice is indexed once');
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
