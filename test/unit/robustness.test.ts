import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkManuscript, CheckSession } from '../../src/core/check';
import { FsWorkspace } from '../../src/core/fsWorkspace';
import { parseBibliography } from '../../src/core/bibliography/parse';
import { parseLatex } from '../../src/core/manuscript/latex';
import { parseMarkdown } from '../../src/core/manuscript/markdown';
import { MemoryWorkspace } from './support/helpers';

/**
 * Broken and hostile input: each case must end with findings or a clear message. The generous mocha
 * timeout guards against a hang (quadratic parsing of half-typed text); it is not a speed target.
 */
describe('bad input', function () {
  this.timeout(60_000);

  const HOSTILE = 200_000;
  const latexCases: Record<string, string> = {
    'unclosed \\cite{': '\\cite{'.repeat(HOSTILE),
    'unclosed optional arguments': '\\citep['.repeat(HOSTILE),
    'unclosed braces then closers': '{['.repeat(HOSTILE) + '}'.repeat(HOSTILE),
    'unclosed accents': "\\'{".repeat(HOSTILE),
    'unclosed environments': '\\begin{'.repeat(HOSTILE),
    'stray dollars': 'a$b '.repeat(HOSTILE),
  };
  for (const [name, text] of Object.entries(latexCases)) {
    it(`parses LaTeX with ${name}`, () => {
      assert.equal(parseLatex(text, '/x.tex').citations.length, 0);
    });
  }

  const markdownCases: Record<string, string> = {
    'unclosed brackets': '[@a '.repeat(HOSTILE),
    'unclosed code spans': '` a '.repeat(HOSTILE),
    'unclosed raw LaTeX': '\\x{'.repeat(HOSTILE),
    'unclosed images': '!['.repeat(HOSTILE),
    'at-signs': '@'.repeat(HOSTILE),
  };
  for (const [name, text] of Object.entries(markdownCases)) {
    it(`parses Markdown with ${name}`, () => {
      assert.ok(Array.isArray(parseMarkdown(text, '/x.md').citations));
    });
  }

  it('checks a 10 MB manuscript and finds its citations', async () => {
    const paragraph = 'Gaussian processes are widely used \\citep{a,b}. They scale as $O(N^3)$ \\citet{c}.\n\n';
    const text = paragraph.repeat(Math.ceil(10_000_000 / paragraph.length));
    const ws = new MemoryWorkspace({ '/p/big.tex': `${text}\\bibliography{refs}`, '/p/refs.bib': '@article{a, title={A}}\n@article{b, title={B}}\n@article{c, title={C}}' });
    const result = await checkManuscript('/p/big.tex', ws, new CheckSession());
    assert.equal(result?.citations.length, 3 * Math.ceil(10_000_000 / paragraph.length));
    assert.deepEqual(result?.findings, []);
  });

  it('reports a .bib of 1,000 broken entries entry by entry, and resolves the good one', async () => {
    const broken = Array.from({ length: 1000 }, (_, i) => `@article{broken${i}, title={Unclosed ${i}\n`).join('');
    const ws = new MemoryWorkspace({ '/p/m.tex': '\\cite{good}\\bibliography{refs}', '/p/refs.bib': `@article{good, title={G}}\n${broken}` });
    const result = await checkManuscript('/p/m.tex', ws, new CheckSession());
    assert.equal(result?.findings.filter((f) => f.code === 'bib-parse-error').length, 1000);
    assert.equal(result?.findings.filter((f) => f.code === 'missing-key').length, 0);
  });

  /** `@string{s1 = s0 # s0}` doubled `levels` times, then used in a title: 600 bytes for 2^22 copies. */
  function expansionBomb(levels: number): string {
    let text = '@string{s0 = "ab"}\n';
    for (let i = 1; i <= levels; i++) text += `@string{s${i} = s${i - 1} # s${i - 1}}\n`;
    return `${text}@article{k, title = s${levels}}\n@article{good, title={Fine}}\n`;
  }

  for (const levels of [22, 40]) {
    it(`refuses an @string expansion bomb of ${levels} levels at the @string, keeping the other entries`, async () => {
      const ws = new MemoryWorkspace({ '/p/m.tex': '\\cite{k,good}\\bibliography{refs}', '/p/refs.bib': expansionBomb(levels) });
      const result = await checkManuscript('/p/m.tex', ws, new CheckSession());
      const errors = result?.findings.filter((f) => f.code === 'bib-parse-error').map((f) => [f.range.start.line, f.message]);
      assert.deepEqual(errors, [
        [16, "'s16' expands to more than 100,000 characters through @string macros; it is not expanded"],
        [levels + 1, `Field 'title' uses 's${levels}', whose @string expands to too much text to be expanded (see there) in entry 'k'`],
      ]);
      assert.equal(result?.bibliographies[0].entries.find((e) => e.key === 'good')?.title, 'Fine');
    });
  }

  it('bounds the expansion of a whole file, not only of each value', () => {
    const uses = Array.from({ length: 100 }, (_, i) => `@misc{e${i}, title = big}`).join('\n');
    const bib = parseBibliography(`@string{big = "${'x'.repeat(90_000)}"}\n${uses}`, '/p/refs.bib');
    const expanded = bib.entries.filter((e) => e.title?.length === 90_000).length;
    assert.ok(expanded > 10 && expanded < 50, `${expanded} titles expanded`);
    assert.equal(bib.problems.length, 100 - expanded);
    assert.match(bib.problems[0].message, /the @string macros of this file expand to more than 4,000,000 characters/);
  });

  describe('on disk', () => {
    let dir: string;
    beforeEach(async () => {
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-bad-'));
    });
    afterEach(async () => {
      await fs.rm(dir, { recursive: true, force: true });
    });

    it('reports a binary bibliography and a binary \\input as findings, not failures', async () => {
      await fs.writeFile(path.join(dir, 'm.tex'), '\\input{chapter}\\cite{k}\\bibliography{refs}');
      await fs.writeFile(path.join(dir, 'chapter.tex'), Buffer.from([0, 1, 2, 3, 255, 0]));
      await fs.writeFile(path.join(dir, 'refs.bib'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0]));
      const result = await checkManuscript(path.join(dir, 'm.tex'), new FsWorkspace(), new CheckSession());
      const codes = result?.findings.map((f) => [f.code, /binary/.test(f.message)]);
      assert.deepEqual(codes, [
        ['missing-file', true],
        ['missing-key', false],
        ['bib-parse-error', true],
      ]);
    });

    it('refuses a file over the size limit with a message naming the limit', async () => {
      await fs.writeFile(path.join(dir, 'm.tex'), '\\bibliography{refs}');
      await fs.writeFile(path.join(dir, 'refs.bib'), 'x'.repeat(2 * 1024 * 1024));
      const result = await checkManuscript(path.join(dir, 'm.tex'), new FsWorkspace(1024 * 1024), new CheckSession());
      assert.match(result?.findings[0].message ?? '', /2\.0 MB, over the 1\.0 MB limit/);
    });
  });
});
