import assert from 'node:assert/strict';
import { checkManuscript, CheckSession } from '../../../../src/core/check';
import { ParserThread } from '../../../../src/core/parsing/thread';
import { MemoryWorkspace } from '../../support/helpers';

const FILES = {
  '/p/m.tex': '\\input{intro}\nDeep nets work \\citep{lecun2015,missing}. % !TEX spell = en\n\\bibliography{refs}',
  '/p/intro.tex': 'Gaussian processes scale as $O(N^3)$ \\citet{rasmussen}.',
  '/p/refs.bib':
    '@string{n = "Nature"}\n@article{lecun2015, title={Deep learning}, author={LeCun, Y. and Bengio, Y.}, journal=n, year=2015}\n@book{rasmussen, title={Gaussian {P}rocesses}, year=2006}\n@article{broken, title={Unclosed\n',
  '/p/notes.md': '---\nbibliography: refs.bib\n---\nAs shown [see @lecun2015, p. 3; -@rasmussen], nets work.',
};

describe('parsing in a worker thread', () => {
  let thread: ParserThread;
  beforeEach(() => {
    thread = new ParserThread();
  });
  afterEach(async () => {
    await thread.dispose();
  });

  for (const root of ['/p/m.tex', '/p/notes.md']) {
    it(`gives the same check of ${root} as parsing in this thread`, async () => {
      const here = await checkManuscript(root, new MemoryWorkspace(FILES), new CheckSession());
      const there = await checkManuscript(root, new MemoryWorkspace(FILES), new CheckSession(thread));
      assert.ok(here && there);
      assert.ok(here.citations.length >= 2);
      assert.deepEqual(there, here);
    });
  }

  it('starts a new thread after the last one was closed, rejecting what it was parsing', async () => {
    // Handled from the start: the rejection comes while dispose still waits for the thread to end.
    const parsing = assert.rejects(thread.bibliography('/p/big.bib', '@misc{k, title={T}}\n'.repeat(200_000)), /closed/);
    await thread.dispose();
    await parsing;
    const bib = await thread.bibliography('/p/refs.bib', FILES['/p/refs.bib']);
    assert.deepEqual(
      bib.entries.map((e) => e.key),
      ['lecun2015', 'rasmussen'],
    );
  });
});
