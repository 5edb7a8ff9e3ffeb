import assert from 'node:assert/strict';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { KeyCompleter, keyContext, type KeyCandidate } from '../../../../src/core/completion/citationKeys';
import { PaperKeyIndex } from '../../../../src/core/completion/libraryKeys';
import type { Paper } from '../../../../src/core/papers/paper';

const CANDIDATES: KeyCandidate[] = [
  { key: 'hochreiter1997lstm', title: 'Long Short-Term Memory', authors: 'Sepp Hochreiter, Jürgen Schmidhuber', year: 1997, venue: 'Neural Computation' },
  { key: 'vaswani2017attention', title: 'Attention Is All You Need', authors: 'Ashish Vaswani, Noam Shazeer, Niki Parmar', year: 2017, venue: 'NeurIPS' },
  { key: 'bahdanau2015', title: 'Neural Machine Translation by Jointly Learning to Align and Translate', authors: 'Dzmitry Bahdanau, Kyunghyun Cho, Yoshua Bengio', year: 2015 },
  { key: 'vaswani2021scaling', title: 'Scaling Local Self-Attention for Parameter Efficient Visual Backbones', authors: 'Ashish Vaswani, Prajit Ramachandran', year: 2021 },
];

const paper = (id: string, title: string, family: string, year: number, doi?: string): Paper => ({ id, title, authors: [{ given: 'A.', family }], year, ...(doi && { doi }) });
const LIBRARY = [
  paper('doi:10.1/deep', 'Deep residual learning for image recognition', 'He', 2016, '10.1/deep'),
  paper('doi:10.1/lstm', 'Long short-term memory', 'Hochreiter', 1997, '10.1/lstm'),
  paper('arxiv:2001.1', 'Vision transformers at scale', 'Smith', 2020),
  paper('doi:10.1/vitd', 'Vitamin D and bone density', 'Doe', 2019),
  paper('doi:10.1/vitdiet', 'Vitamin deficiency and diet', 'Roe', 2018),
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

  it('offers the keys a typed prefix begins, whatever separators the keys have and however short their last part', () => {
    const written = new KeyCompleter([
      { key: 'smith:2020', title: 'Glaciers', authors: 'Jane Smith', year: 2020 },
      { key: 'Foreman-Mackey:2013', title: 'emcee: the MCMC hammer', authors: 'Daniel Foreman-Mackey', year: 2013 },
      { key: 'doe_2019.b', title: 'Rivers', authors: 'John Doe', year: 2019 },
      { key: 'smith:1999', title: 'Ice', authors: 'Jane Smith', year: 1999 },
    ]);
    const keys = (typed: string): string[] => written.complete(typed).map((c) => c.key);
    assert.deepEqual(keys('smith:'), ['smith:2020', 'smith:1999']);
    assert.deepEqual(keys('smith:2'), ['smith:2020']);
    assert.deepEqual(keys('smith:20'), ['smith:2020']);
    assert.deepEqual(keys('Foreman-Mackey:2'), ['Foreman-Mackey:2013']);
    assert.deepEqual(keys('foreman-m'), ['Foreman-Mackey:2013']);
    assert.deepEqual(keys('doe_2019.b'), ['doe_2019.b']);
    assert.deepEqual(keys('doe_2'), ['doe_2019.b']);
    // The keys it begins come first, then what the words find.
    assert.deepEqual(keys('smith'), ['smith:2020', 'smith:1999']);
    assert.deepEqual(keys('jane smith ice'), ['smith:1999']);
  });

  it('offers every key when nothing is typed, and nothing for words no entry has', () => {
    assert.equal(keys('').length, 4);
    assert.deepEqual(keys('glacier'), []);
  });

  it('re-indexes only what an edit of the bibliography changed: a renamed title is found by its new words only', async () => {
    const edited = new KeyCompleter();
    await edited.setEntries(parseBibliography('@article{lee2020, title = {Web server latency}, author = {Lee, Min}, year = 2020}', 'refs.bib').entries);
    assert.deepEqual(
      edited.complete('latency').map((c) => c.key),
      ['lee2020'],
    );
    await edited.setEntries(
      parseBibliography('@article{lee2020, title = {Cache warmth}, author = {Lee, Min}, year = 2020}\n@misc{kim2021, title = {Latency}}', 'refs.bib').entries,
    );
    assert.deepEqual(
      edited.complete('latency').map((c) => c.key),
      ['kim2021'],
    );
    assert.deepEqual(
      edited.complete('cache').map((c) => c.key),
      ['lee2020'],
    );
    assert.deepEqual(
      edited.complete('').map((c) => c.key),
      ['lee2020', 'kim2021'],
    );
  });

  it("offers the library's papers by the key Add to bibliography would give them, unless a bibliography has them", async () => {
    const index = new PaperKeyIndex();
    index.add(LIBRARY);
    const mixed = new KeyCompleter();
    await mixed.setEntries(
      parseBibliography(
        '@article{hochreiter1997lstm, title = {Long Short-Term Memory}, author = {Hochreiter, Sepp}, year = 1997, doi = {10.1/LSTM}}\n@misc{smith2020vision, title = {Vision of a key already taken}, year = 2019}',
        'refs.bib',
      ).entries,
    );
    const fromLibrary = (typed: string) => mixed.fromLibrary(index.complete(typed, 100));
    const [residual] = fromLibrary('residual learn');
    assert.deepEqual(
      [residual.key, residual.title, residual.authors, residual.year, residual.paper?.id],
      ['he2016deep', 'Deep residual learning for image recognition', 'A. He', 2016, 'doi:10.1/deep'],
    );
    // The bibliography has the LSTM paper (same DOI): only its entry is offered.
    assert.deepEqual(
      index.complete('long short memory', 100).map((m) => m.key),
      ['hochreiter1997long'],
    );
    assert.deepEqual(fromLibrary('long short memory'), []);
    assert.deepEqual(
      mixed.complete('long short memory').map((c) => c.key),
      ['hochreiter1997lstm'],
    );
    // Given a free key when its own is taken.
    assert.deepEqual(
      fromLibrary('vision').map((c) => c.key),
      ['smith2020visionb'],
    );
    assert.deepEqual(
      fromLibrary('h').map((c) => c.key),
      ['he2016deep'],
    );
  });

  it('finds library papers by prefixes of every typed word, a typo forgiven, a lone letter after words taken as a word', () => {
    const index = new PaperKeyIndex();
    index.add(LIBRARY);
    const keys = (typed: string): string[] => index.complete(typed, 100).map((m) => m.key);
    assert.deepEqual(keys('resid lear'), ['he2016deep']);
    assert.deepEqual(keys('he2016'), ['he2016deep'], 'the start of its key');
    assert.deepEqual(keys('residaul'), ['he2016deep'], 'one typo in a longer word');
    assert.deepEqual(keys('residual vision'), [], 'every word required');
    assert.deepEqual(keys('vitamin d'), ['doe2019vitamin'], '"d" is the word D, not every word starting with d');
    assert.deepEqual(keys('s'), ['smith2020vision'], 'one letter: the keys that start with it');
    assert.deepEqual(keys(''), []);
    index.add(LIBRARY);
    assert.equal(index.size, LIBRARY.length, 'a paper added twice is indexed once');
  });

  it('ranks by the rarer words when a typed word completes to many, still requiring every word', () => {
    // "co" starts 300 words here: too many to rank by, so it only filters what "heart" finds.
    const many: Paper[] = Array.from({ length: 300 }, (_, i) => ({ id: `p${i}`, title: `Cohort${i} study of ${i % 3 === 0 ? 'heart' : 'lung'} disease`, authors: [], year: 2000 }));
    const index = new PaperKeyIndex();
    index.add(many);
    const titles = (typed: string): string[] => index.complete(typed, 1_000).map((m) => m.paper.title);
    const heart = titles('co heart');
    assert.equal(heart.length, 100);
    assert.ok(
      heart.every((title) => /^Cohort\d+ study of heart/.test(title)),
      heart.join('\n'),
    );
    const alone = titles('co');
    assert.ok(alone.length > 0 && alone.every((title) => title.startsWith('Cohort')), 'alone, papers with the words it starts that rank first');
    assert.deepEqual(titles('co kidney'), []);
  });

  it('indexes the papers of a growing library by difference, a slice at a time', async () => {
    const library: Paper[] = [...LIBRARY];
    const index = new PaperKeyIndex();
    await index.catchUp((from) => library.slice(from));
    assert.equal(index.size, LIBRARY.length);
    library.push({ id: 'doi:10.1/later', title: 'Protein folding predicted', authors: [{ family: 'Jumper' }], year: 2021 });
    assert.deepEqual(index.complete('protein fold', 10), [], 'not indexed yet');
    await index.catchUp((from) => library.slice(from));
    assert.deepEqual(
      index.complete('protein fold', 10).map((m) => m.key),
      ['jumper2021protein'],
    );
    assert.equal(index.size, LIBRARY.length + 1);
  });

  it('knows when the cursor is in a LaTeX key list and what is typed of the key', () => {
    assert.deepEqual(keyContext('As shown \\citep[see][p. 3]{hochreiter1997lstm, vaswani att', 'latex'), { start: 47, typed: 'vaswani att' });
    assert.deepEqual(keyContext('\\textcite*{', 'latex'), { start: 11, typed: '' });
    assert.equal(keyContext('\\cite{a} and then', 'latex'), undefined);
    assert.equal(keyContext('\\ref{fig', 'latex'), undefined);
  });

  it('completes keys with a colon in them, as reference managers write them, past the colon', () => {
    const colons = new KeyCompleter([
      { key: 'Rivera:2019as', title: 'Aspirin and stroke in older adults', authors: 'Ana Rivera', year: 2019 },
      { key: 'Rivera:2021hf', title: 'Heart failure after stroke', authors: 'Ana Rivera', year: 2021 },
    ]);
    const context = keyContext('as shown \\citep{Rivera:2019', 'latex');
    assert.deepEqual(context, { start: 16, typed: 'Rivera:2019' });
    assert.deepEqual(
      colons.complete(context?.typed ?? '').map((c) => c.key),
      ['Rivera:2019as'],
    );
    assert.deepEqual(
      colons.complete('Rivera:').map((c) => c.key),
      ['Rivera:2019as', 'Rivera:2021hf'],
    );
    assert.deepEqual(keyContext('see [@Rivera:20', 'markdown'), { start: 6, typed: 'Rivera:20' });
  });

  it('knows when the cursor is in a pandoc citation', () => {
    assert.deepEqual(keyContext('As shown [see @vasw', 'markdown'), { start: 15, typed: 'vasw' });
    assert.deepEqual(keyContext('@hoch', 'markdown'), { start: 1, typed: 'hoch' });
    assert.deepEqual(keyContext('[@a; -@', 'markdown'), { start: 7, typed: '' });
    assert.equal(keyContext('mail me at user@exam', 'markdown'), undefined);
  });
});
