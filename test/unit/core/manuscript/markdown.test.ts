import assert from 'node:assert/strict';
import { parseMarkdown } from '../../../../src/core/manuscript/markdown';

const FILE = '/project/paper.md';

function cites(source: string): [string, string][] {
  return parseMarkdown(source, FILE).citations.map((c) => [c.command, c.key]);
}

describe('Markdown citations', () => {
  it('reads bracketed, multi-key, author-suppressed and in-text citations', () => {
    assert.deepEqual(cites('As [@a] and [see @b, p. 3; @c, chap. 1] and [-@d] show, @e argues [p. 33] more.'), [
      ['[@]', 'a'],
      ['[@]', 'b'],
      ['[@]', 'c'],
      ['[-@]', 'd'],
      ['@', 'e'],
    ]);
  });

  it('accepts keys with internal punctuation and the braced form, leaving trailing punctuation out', () => {
    assert.deepEqual(
      cites('See @doe:2020.x-y/z. And @smith04, then [@{https://x.org/p}].').map(([, k]) => k),
      ['doe:2020.x-y/z', 'smith04', 'https://x.org/p'],
    );
  });

  it('gives each key its exact range', () => {
    const parsed = parseMarkdown('Line one.\nIt holds [@alpha; @beta].', FILE);
    assert.deepEqual(
      parsed.citations.map((c) => c.range.start),
      [
        { line: 1, character: 11 },
        { line: 1, character: 19 },
      ],
    );
    assert.deepEqual(parsed.citations[1].range.end, { line: 1, character: 23 });
  });

  it('ignores e-mail addresses, code, links and escaped at-signs', () => {
    const source = [
      'Write to user@example.com or \\@notakey.',
      'Inline `code with @nope` here.',
      '```python',
      'x = "@fenced"',
      '```',
      '~~~~',
      '[@tilde]',
      '~~~~',
      '',
      '    @indented code',
      '',
      'A [link](http://x.org/@path) and [@real].',
    ].join('\n');
    assert.deepEqual(cites(source), [['[@]', 'real']]);
  });

  it('reads bibliography files from YAML front matter, as a string or a list', () => {
    const single = parseMarkdown('---\ntitle: X\nbibliography: refs.bib\n---\nText.', FILE);
    assert.deepEqual(
      single.bibliographies.map((b) => b.path),
      ['/project/refs.bib'],
    );
    assert.deepEqual(single.bibliographies[0].range.start, { line: 2, character: 14 });
    const list = parseMarkdown('---\nbibliography:\n  - a.bib\n  - "sub/b.bib"\n---\n', FILE);
    assert.deepEqual(
      list.bibliographies.map((b) => b.name),
      ['a.bib', 'sub/b.bib'],
    );
  });

  it('does not take a front-matter-like block later in the file for front matter', () => {
    assert.deepEqual(parseMarkdown('Text.\n\n---\nbibliography: x.bib\n---\n', FILE).bibliographies, []);
  });

  it('reads nocite from the front matter', () => {
    const parsed = parseMarkdown('---\nnocite: |\n  @extra, @*\n---\nBody.', FILE);
    assert.deepEqual(
      parsed.citations.map((c) => [c.key, c.claim]),
      [['extra', undefined]],
    );
    assert.equal(parsed.citesAll, true);
  });

  it('reads Quarto and pandoc-crossref cross-references as references to the document, not citations', () => {
    const source =
      'The model in @fig-schematic follows @smith2020, as @sec-methods and [@tbl-results; @eq-loss] show. ' + 'See @Fig:overview and @eq:energy, and [@thm-main; @jones21].';
    assert.deepEqual(cites(source), [
      ['@', 'smith2020'],
      ['[@]', 'jones21'],
    ]);
  });
});

describe('Markdown claims', () => {
  function claimOf(source: string, key: string): string | undefined {
    return parseMarkdown(source, FILE).citations.find((c) => c.key === key)?.claim?.text;
  }

  it('is the sentence the citation stands in, with markup removed', () => {
    assert.equal(claimOf('# Title\n\nFirst. It is **very** _well_ known [@k]. Next.', 'k'), 'It is very well known.');
  });

  it('keeps in-text citations as placeholders so sentences stay apart', () => {
    const source = 'It was first proposed by @a.\n@b introduced the term in robotics.';
    assert.equal(claimOf(source, 'a'), 'It was first proposed by [a].');
    assert.equal(claimOf(source, 'b'), '[b] introduced the term in robotics.');
  });

  it('ends sentences at list items and headings', () => {
    const source = '* first item [@one]\n* second item [@two]\n\n## Heading [@three]\n';
    assert.equal(claimOf(source, 'one'), 'first item');
    assert.equal(claimOf(source, 'two'), 'second item');
    assert.equal(claimOf(source, 'three'), 'Heading');
  });

  it('treats an image caption as its own sentence', () => {
    assert.equal(claimOf('Before ![A plot of data [@fig].](plot.png) after.', 'fig'), 'A plot of data.');
  });

  it('keeps cross-references as placeholders in the sentence', () => {
    // From Quarto's manual: a figure reference is part of what the sentence says.
    assert.equal(claimOf('Elephants are shown in @fig-elephant, as described by @smith2020.', 'smith2020'), 'Elephants are shown in [ref], as described by [smith2020].');
    assert.equal(claimOf('Both rise [@fig-a; @fig-b], as known [@k].', 'k'), 'Both rise [ref], as known.');
  });

  it('reads pandoc sub- and superscripts and inline math as text', () => {
    assert.equal(
      claimOf('Photosynthesis is limited by J~max~ and V~c,max~ at 10^6^ ppm of CO~2~, with $\\alpha$-amylase ~~gone~~ present [@k].', 'k'),
      'Photosynthesis is limited by Jmax and Vc,max at 10^6 ppm of CO2, with α-amylase gone present.',
    );
    assert.equal(claimOf('A ~ B and x^2 stay as written [@k].', 'k'), 'A ~ B and x^2 stay as written.');
  });

  it('leaves pandoc attribute blocks out of the sentence', () => {
    const source = '## Methods {#sec-methods}\n\nWe used the [new]{.smallcaps} method [@k].\n\n![A schematic [@s].](a.png){#fig-a width=50%}';
    assert.equal(claimOf(source, 'k'), 'We used the new method.');
    assert.equal(claimOf(source, 's'), 'A schematic.');
    assert.deepEqual(parseMarkdown(source, FILE).claims.map((c) => c.text)[0], 'Methods');
  });

  it('leaves footnote marks out of the sentence and reads a footnote as sentences of its own (md_joss_gmr)', () => {
    const source = [
      'The library gmr is fully compatible with scikit-learn[^sklearn] [@Pedregosa2011]. It',
      'has its own implementation of expectation maximization (EM).',
      '',
      '[^sklearn]: Its estimators follow the API design of @Buitinck2013.',
      '    They can be used in pipelines [@Pedregosa2011].',
      '',
      '    Version 0.24 or later is needed [@sklearn024].',
    ].join('\n');
    assert.equal(claimOf(source, 'Pedregosa2011'), 'The library gmr is fully compatible with scikit-learn.');
    assert.equal(claimOf(source, 'Buitinck2013'), 'Its estimators follow the API design of [Buitinck2013].');
    assert.equal(claimOf(source, 'sklearn024'), 'Version 0.24 or later is needed.');
    assert.deepEqual(
      parseMarkdown(source, FILE).claims.map((c) => c.text),
      [
        'The library gmr is fully compatible with scikit-learn.',
        'It has its own implementation of expectation maximization (EM).',
        'Its estimators follow the API design of [Buitinck2013].',
        'They can be used in pipelines.',
        'Version 0.24 or later is needed.',
      ],
    );
  });

  it('reads an inline footnote apart, leaving the sentence it interrupts whole (md_joss_gmr)', () => {
    const source = [
      'Gaussian mixture regression via EM has been proposed first by @Ghahramani1994.^[An earlier',
      'form is due to [@Jordan1994].] @Calinon2007 introduced the term Gaussian mixture regression^[Also',
      'called GMR.] in the context of imitation learning for trajectories of robots.',
    ].join('\n');
    assert.equal(claimOf(source, 'Ghahramani1994'), 'Gaussian mixture regression via EM has been proposed first by [Ghahramani1994].');
    assert.equal(claimOf(source, 'Calinon2007'), '[Calinon2007] introduced the term Gaussian mixture regression in the context of imitation learning for trajectories of robots.');
    assert.equal(claimOf(source, 'Jordan1994'), 'An earlier form is due to.');
    assert.ok(parseMarkdown(source, FILE).claims.some((c) => c.text === 'Also called GMR.'));
  });
});
