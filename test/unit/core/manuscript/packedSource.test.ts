import assert from 'node:assert/strict';
import { packLatex } from '../../../../src/core/manuscript/latex';
import { packMarkdown } from '../../../../src/core/manuscript/markdown';
import { transferablesOf, unpackSource, type PackedSource } from '../../../../src/core/manuscript/packed';
import type { ParsedSource } from '../../../../src/core/manuscript/types';

/** Everything a reader of a parsed file sees, including what the claims and citations read when asked. */
function seen(parsed: ParsedSource): unknown {
  return {
    claims: parsed.claims.map((c) => ({ text: c.text, range: c.range, offsets: [...c.sourceOffsets] })),
    citations: parsed.citations.map((c) => ({ key: c.key, command: c.command, file: c.file, range: c.range, claim: c.claim?.text })),
    bibliographies: parsed.bibliographies,
  };
}

/** What the parser thread does with a packed file: posts it with its arrays transferred. */
function sentToAnotherThread(packed: PackedSource): PackedSource {
  return structuredClone(packed, { transfer: transferablesOf(packed) });
}

describe('a parsed manuscript sent from the parser thread', () => {
  const latex = [
    '\\documentclass{article}\\begin{document}',
    'Gaussian processes scale as $\\mathcal{O}(N^3)$ \\citep{rasmussen,williams}.',
    '\\citet{ambikasaran} showed that Müller’s method works.\\footnote{See \\cite{foreman}.}',
    '\\bibliography{refs}',
    '\\end{document}',
  ].join('\n');
  const markdown = '---\nbibliography: refs.bib\n---\nAs shown [see @lecun2015, p. 3; -@rasmussen], nets work. @smith2020 agrees.\n';

  for (const [name, pack] of [
    ['LaTeX', () => packLatex(latex, '/p/m.tex')],
    ['Markdown', () => packMarkdown(markdown, '/p/n.md')],
  ] as const) {
    it(`reads the same ${name} claims, citations, ranges and offsets as the file parsed here`, () => {
      const here = unpackSource(pack());
      const there = unpackSource(sentToAnotherThread(pack()));
      assert.ok(here.citations.length >= 3);
      assert.deepEqual(seen(there), seen(here));
    });
  }

  it('gives citations of one sentence the same claim, and none to \\nocite', () => {
    const parsed = unpackSource(sentToAnotherThread(packLatex('Known \\citep{a} and \\citet{b}. \\nocite{c}', '/p/m.tex')));
    const [a, b, c] = parsed.citations;
    assert.equal(a.claim, b.claim);
    assert.equal(a.claim?.text, 'Known and [b].');
    assert.equal(c.claim, undefined);
  });

  it('gives the same citation and claim objects each time they are read, and keeps them when copied', () => {
    const parsed = unpackSource(packLatex('Known \\citep{a,b}. Also \\cite{c}.', '/p/m.tex'));
    assert.equal(parsed.citations, parsed.citations);
    assert.equal(parsed.citations[1].claim, parsed.claims[0]);
    assert.deepEqual(
      { ...parsed }.citations.map((c) => c.key),
      ['a', 'b', 'c'],
    );
  });

  it('writes its claims and citations to JSON with their ranges', () => {
    const parsed = unpackSource(packLatex('Known \\citep{a}.', '/p/m.tex'));
    const range = { start: { line: 0, character: 13 }, end: { line: 0, character: 14 } };
    assert.deepEqual(JSON.parse(JSON.stringify(parsed.citations[0])), {
      key: 'a',
      command: '\\citep',
      file: '/p/m.tex',
      range,
      claim: { text: 'Known.', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 16 } } },
    });
  });
});
