import assert from 'node:assert/strict';
import { applyEdits } from '../../../../src/core/bibliography/edit';
import { citationStyleOf, insertCitation, type CitationStyle } from '../../../../src/core/manuscript/citeStyle';
import { parseLatex } from '../../../../src/core/manuscript/latex';
import { parseMarkdown } from '../../../../src/core/manuscript/markdown';

function latexStyle(source: string): CitationStyle {
  return citationStyleOf(parseLatex(source, '/paper/main.tex'));
}

const CITEP: CitationStyle = { kind: 'latex', command: 'citep' };
const PANDOC: CitationStyle = { kind: 'pandoc' };

/** The text after citing `keys` behind the selection that ends where `|` stands. */
function cite(marked: string, keys: string[], style: CitationStyle): string {
  const offset = marked.indexOf('|');
  const text = marked.replace('|', '');
  return applyEdits(text, [insertCitation(text, offset, keys, style)]);
}

describe('the citation style of a manuscript', () => {
  it("uses the document's most frequent parenthetical command, starred and capitalised alike", () => {
    assert.deepEqual(latexStyle('A \\cite{a}. B \\citep{b}. C \\Citep*{c}. \\citet{d} says.'), CITEP);
    assert.deepEqual(latexStyle('A \\autocite{a}. B \\autocite{b}. C \\parencite{c}.'), { kind: 'latex', command: 'autocite' });
    assert.deepEqual(latexStyle('A \\parencites{a}{b}. \\textcite{c} says.'), { kind: 'latex', command: 'parencite' });
  });

  it('falls back to the package that textual citations reveal, else \\cite', () => {
    assert.deepEqual(latexStyle('As \\citet{a} showed.'), CITEP);
    assert.deepEqual(latexStyle('As \\textcite{a} showed.'), { kind: 'latex', command: 'parencite' });
    assert.deepEqual(latexStyle('No citations yet.'), { kind: 'latex', command: 'cite' });
  });

  it('ignores commented-out citations', () => {
    assert.deepEqual(latexStyle('% \\citep{a} \\citep{b}\nA \\cite{c}.'), { kind: 'latex', command: 'cite' });
  });

  it('writes pandoc citations in Markdown', () => {
    assert.deepEqual(citationStyleOf(parseMarkdown('A claim [@a].', '/paper/main.md')), PANDOC);
  });
});

describe('inserting a citation after a selection', () => {
  it('ties a new command to the last word, before the full stop whether or not it was selected', () => {
    assert.equal(cite('Deep nets generalise.| More text.', ['lecun2015'], CITEP), 'Deep nets generalise~\\citep{lecun2015}. More text.');
    assert.equal(cite('Deep nets generalise|. More text.', ['lecun2015'], CITEP), 'Deep nets generalise~\\citep{lecun2015}. More text.');
    assert.equal(cite('Deep nets generalise. \n|Next line.', ['k'], CITEP), 'Deep nets generalise~\\citep{k}. \nNext line.');
    assert.equal(cite('Deep nets generalise|', ['a', 'b'], CITEP), 'Deep nets generalise~\\citep{a,b}');
  });

  it('leaves an ellipsis whole', () => {
    assert.equal(cite('And so on...|', ['k'], CITEP), 'And so on...~\\citep{k}');
  });

  it('attaches footnote citations without a tie', () => {
    assert.equal(cite('A claim.|', ['k'], { kind: 'latex', command: 'footcite' }), 'A claim\\footcite{k}.');
  });

  it('joins a parenthetical citation just before the insertion point, keeping its separator', () => {
    assert.equal(cite('A claim~\\citep{a}.|', ['b'], CITEP), 'A claim~\\citep{a,b}.');
    assert.equal(cite('A claim \\parencite[see][p.~3]{a, c}|', ['b'], CITEP), 'A claim \\parencite[see][p.~3]{a, c, b}');
  });

  it('joins a citation just after the insertion point', () => {
    assert.equal(cite('A claim| \\citep{a}.', ['b'], CITEP), 'A claim \\citep{a,b}.');
    assert.equal(cite('A claim|~\\cite{a}.', ['b'], CITEP), 'A claim~\\cite{a,b}.');
  });

  it('does not join a textual citation, which is part of the sentence', () => {
    assert.equal(cite('As \\citet{a}| showed.', ['b'], CITEP), 'As \\citet{a}~\\citep{b} showed.');
  });

  it('adds no key that the citation already has', () => {
    assert.equal(cite('A claim~\\citep{a,b}.|', ['b'], CITEP), 'A claim~\\citep{a,b}.');
    assert.equal(cite('A claim~\\citep{a}.|', ['b', 'a', 'b'], CITEP), 'A claim~\\citep{a,b}.');
  });

  it('gives text that the LaTeX reader finds every key in', () => {
    const text = cite('First claim~\\citep{a}.| Second claim.', ['b', 'c'], CITEP);
    assert.deepEqual(
      parseLatex(text, '/paper/main.tex').citations.map((c) => [c.key, c.command]),
      [
        ['a', '\\citep'],
        ['b', '\\citep'],
        ['c', '\\citep'],
      ],
    );
  });

  describe('in Markdown', () => {
    it('inserts a bracketed pandoc citation after a space, before the full stop', () => {
      assert.equal(cite('Deep nets generalise.|', ['lecun2015'], PANDOC), 'Deep nets generalise [@lecun2015].');
      assert.equal(cite('Deep nets generalise|', ['a', 'b'], PANDOC), 'Deep nets generalise [@a; @b]');
    });

    it('joins a bracketed citation before or after the insertion point, locators and all', () => {
      assert.equal(cite('A claim [@a].|', ['b'], PANDOC), 'A claim [@a; @b].');
      assert.equal(cite('A claim [see @a, p. 3]|', ['b'], PANDOC), 'A claim [see @a, p. 3; @b]');
      assert.equal(cite('A claim| [@a].', ['b'], PANDOC), 'A claim [@a; @b].');
      assert.equal(cite('A claim [@a; @b].|', ['b'], PANDOC), 'A claim [@a; @b].');
    });

    it('does not join a link or an in-text citation', () => {
      assert.equal(cite('See [@a](https://example.org)|', ['b'], PANDOC), 'See [@a](https://example.org) [@b]');
      assert.equal(cite('As @a showed|', ['b'], PANDOC), 'As @a showed [@b]');
    });

    it('braces a key that pandoc would otherwise cut short', () => {
      assert.equal(cite('A claim|', ['smith2020.'], PANDOC), 'A claim [@{smith2020.}]');
    });

    it('gives text that the Markdown reader finds every key in', () => {
      const text = cite('First claim [@a].| Second claim.', ['b', 'smith:2020'], PANDOC);
      assert.deepEqual(
        parseMarkdown(text, '/paper/main.md').citations.map((c) => c.key),
        ['a', 'b', 'smith:2020'],
      );
    });
  });
});
