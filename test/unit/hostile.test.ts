import assert from 'node:assert/strict';
import { parseBibliography } from '../../src/core/bibliography/parse';
import { parseLatex } from '../../src/core/manuscript/latex';
import { parseMarkdown } from '../../src/core/manuscript/markdown';
import { importPapers } from '../../src/core/papers/import';
import { HOSTILE_INPUTS } from '../../bench/hostile';

/**
 * Every hostile input of the benchmark, at 100 KB: a quadratic scan takes seconds there (a linear one
 * a fraction of that), so the timeout catches one coming back. bench/hostile.bench.ts has the figures.
 */
describe('hostile input of 100 KB', () => {
  for (const input of HOSTILE_INPUTS) {
    it(`parses ${input.parser}: ${input.name}`, function () {
      this.timeout(5000);
      const text = input.make(100_000);
      if (input.parser === 'latex') assert.ok(Array.isArray(parseLatex(text, '/x.tex').citations));
      else if (input.parser === 'markdown') assert.ok(Array.isArray(parseMarkdown(text, '/x.md').citations));
      else if (input.parser === 'bibtex') assert.ok(Array.isArray(parseBibliography(text, '/x.bib').entries));
      else assert.ok(Array.isArray(importPapers(text, 'ris', '/x.ris').papers));
    });
  }

  it('reads the root named by a % !TEX root line padded with spaces', () => {
    assert.equal(parseLatex(`% !TEX root = ../main.tex${' '.repeat(100_000)}\n`, '/p/ch/x.tex').texRoot, '/p/main.tex');
  });

  // Unbounded, these abort the whole process within a few parses (a V8 fatal error, not an exception).
  for (const [name, yaml] of [
    ['flow collections', `a: ${'['.repeat(3000)}${']'.repeat(3000)}`],
    ['block sequences', `${'- '.repeat(3000)}x`],
    ['flow mappings', '{a: '.repeat(3000)],
  ]) {
    it(`does not read a front matter of ${name} nested thousands deep, again and again`, function () {
      this.timeout(20_000);
      for (let i = 0; i < 30; i++) assert.deepEqual(parseMarkdown(`---\n${yaml}\n---\nText [@a].`, '/p/x.md').bibliographies, []);
    });
  }

  it('still reads an ordinary front matter', () => {
    const parsed = parseMarkdown('---\ntitle: "A [draft] {x}"\nbibliography:\n  - a.bib\n  - b.bib\n---\nText [@a].', '/p/x.md');
    assert.deepEqual(
      parsed.bibliographies.map((b) => b.path),
      ['/p/a.bib', '/p/b.bib'],
    );
  });

  it('keeps the citations of nested links and brackets', () => {
    const text = `${'['.repeat(5000)}see @deep${']'.repeat(5000)} and ${'['.repeat(5000)}x${'](u)'.repeat(5000)} [@a; -@b].`;
    assert.deepEqual(
      parseMarkdown(text, '/x.md').citations.map((c) => c.key),
      ['deep', 'a', 'b'],
    );
  });
});
