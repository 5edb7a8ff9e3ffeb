import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Log } from 'sarif';
import { AcceptanceCollector, acceptanceOf, directiveFor } from '../../../src/core/acceptance';
import { parseBibliography } from '../../../src/core/bibliography/parse';
import type { Finding } from '../../../src/core/findings';
import { attest } from '../support/cli';
import { makeTempDir, snapshot } from '../support/tempDir';

// Findings a paper's writers accept in their files (attest-ignore), and a CI that fails only on what
// is new since a baseline: run as the CLI runs, offline, on the findings that need no lookup.

interface Report {
  findings: { code: string; key: string | null; line: number }[];
  accepted?: { code: string; key: string | null; line: number; reason: string | null }[];
}

const BIB = '@article{real, title={A real study}, author={Roe, Rita}, year={2020}}\n';

describe('accepting findings and baselines', () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir());
  });
  afterEach(() => remove());

  const write = (name: string, text: string): Promise<void> => fs.writeFile(path.join(dir, name), text);
  const check = (file: string, ...args: string[]) => attest('check', path.join(dir, file), '--offline', '--cache', path.join(dir, '.cache'), ...args);
  const report = async (file: string, ...args: string[]): Promise<Report> => JSON.parse((await check(file, '--format', 'json', ...args)).out) as Report;
  const keysOf = (findings: readonly { code: string; key: string | null }[], code: string): (string | null)[] => findings.filter((f) => f.code === code).map((f) => f.key);

  it("leaves out a LaTeX line's accepted finding, on its line or from a comment line above, with the writer's reason", async () => {
    await write('refs.bib', BIB);
    await write(
      'main.tex',
      [
        '\\documentclass{article}',
        '\\begin{document}',
        'Kept \\cite{ghost}. % attest-ignore missing-key cited from the proceedings, not in our .bib',
        '% attest-ignore missing-key',
        'Also kept \\cite{above} and \\cite{real}.',
        'Fifty \\% attest-ignore missing-key \\cite{escaped}.',
        'Other code: \\cite{other}. % attest-ignore unused-entry',
        'Reported \\cite{phantom}.',
        '\\bibliography{refs}',
        '\\end{document}',
      ].join('\n'),
    );
    const json = await report('main.tex');
    assert.deepEqual(keysOf(json.findings, 'missing-key'), ['escaped', 'other', 'phantom']);
    assert.deepEqual(
      json.accepted?.map((a) => [a.key, a.line, a.reason]),
      [
        ['ghost', 3, 'cited from the proceedings, not in our .bib'],
        ['above', 5, null],
      ],
    );
    const text = await check('main.tex');
    assert.equal(text.code, 1, 'the findings not accepted still fail the run');
    assert.match(text.out, /accepted: 2 findings the files accept with attest-ignore, not shown\./);
    assert.doesNotMatch(text.out, /'ghost'/);
  });

  it("leaves out a Markdown line's finding accepted in an HTML comment, and no other", async () => {
    await write('refs.bib', BIB);
    await write(
      'paper.md',
      '---\nbibliography: refs.bib\n---\n\nKept [@ghost]. <!-- attest-ignore missing-key a chapter cited by page -->\n\nReported [@phantom]. attest-ignore missing-key\n',
    );
    const json = await report('paper.md');
    assert.deepEqual(keysOf(json.findings, 'missing-key'), ['phantom'], 'the words outside a comment accept nothing');
    assert.deepEqual(
      json.accepted?.map((a) => [a.key, a.reason]),
      [['ghost', 'a chapter cited by page']],
    );
  });

  it("leaves out a .bib entry's accepted findings, from its attest-ignore field or a comment line above it", async () => {
    await write(
      'refs.bib',
      [
        '@article{future, title={A study}, author={Doe, Jane}, year={2999}, attest-ignore = {suspicious-metadata dated by the journal; duplicate-key}}',
        '% attest-ignore suspicious-metadata the author is a consortium',
        '@article{placeholder, title={Another study}, author={Author, A.}, year={2020}}',
        '',
        '@article{plain, title={A third study}, author={Roe, Rita}, year={2998}}',
      ].join('\n'),
    );
    const json = await report('refs.bib');
    assert.deepEqual(keysOf(json.findings, 'suspicious-metadata'), ['plain']);
    assert.deepEqual(
      json.accepted?.map((a) => [a.key, a.reason]),
      [
        ['future', 'dated by the journal'],
        ['placeholder', 'the author is a consortium'],
      ],
    );
  });

  it('accepts a finding with the comment its quick fix writes, in LaTeX, Markdown and a .bib, and nothing else there', () => {
    const at = (line: number, code: Finding['code'], key: string, file: string): Finding => ({
      code,
      severity: 'error',
      message: '',
      file,
      key,
      range: { start: { line, character: 5 }, end: { line, character: 9 } },
    });
    const insert = (text: string, { line, character, text: added }: ReturnType<typeof directiveFor>): string => {
      const lines = text.split('\n');
      lines[line] = lines[line].slice(0, character) + added + lines[line].slice(character);
      return lines.join('\n');
    };
    const tex = 'Intro.\nSee \\cite{ghost} here.  \nMore \\cite{other}.';
    const md = 'Intro.\nSee [@ghost] here.\nMore [@other].';
    const bib = '@article{a, title={One}}\n@article{ghost, title={Two}, year={2999}}\n';
    const collector = new AcceptanceCollector();
    collector.addManuscript('/p/main.tex', insert(tex, directiveFor('missing-key', 'latex', 1, tex.split('\n')[1])), 'latex');
    collector.addManuscript('/p/paper.md', insert(md, directiveFor('missing-key', 'markdown', 1, md.split('\n')[1])), 'markdown');
    const withComment = insert(bib, directiveFor('suspicious-metadata', 'bibtex', 1, ''));
    collector.addBibliography(withComment, parseBibliography(withComment, '/p/refs.bib').entries);
    const { acceptances } = collector;
    assert.ok(acceptanceOf(at(1, 'missing-key', 'ghost', '/p/main.tex'), acceptances));
    assert.ok(acceptanceOf(at(1, 'missing-key', 'ghost', '/p/paper.md'), acceptances));
    assert.ok(acceptanceOf(at(2, 'suspicious-metadata', 'ghost', '/p/refs.bib'), acceptances), 'the entry moved a line down under its comment');
    assert.equal(acceptanceOf(at(2, 'missing-key', 'other', '/p/main.tex'), acceptances), undefined);
    assert.equal(acceptanceOf(at(1, 'unused-entry', 'ghost', '/p/main.tex'), acceptances), undefined, 'another code on the line stays');
    assert.equal(acceptanceOf(at(0, 'suspicious-metadata', 'a', '/p/refs.bib'), acceptances), undefined);
  });

  describe('a baseline', () => {
    const manuscript = (lines: readonly string[]): string => ['\\documentclass{article}', '\\begin{document}', ...lines, '\\bibliography{refs}', '\\end{document}'].join('\n');

    it('fails only on findings it does not hold, however the lines holding the others moved', async () => {
      await write('refs.bib', BIB);
      await write('main.tex', manuscript(['Known \\cite{ghost} and \\cite{real}.']));
      const baseline = path.join(dir, 'attest-baseline.json');
      const written = await check('main.tex', '--write-baseline', baseline);
      assert.equal(written.code, 0, 'writing the baseline accepts what is there');
      assert.deepEqual(await fs.readdir(dir).then((names) => names.filter((n) => n.endsWith('.tmp'))), [], 'written by rename, no temporary file left');
      const saved = JSON.parse(await fs.readFile(baseline, 'utf8')) as { findings: unknown[] };
      assert.deepEqual(saved.findings, [{ code: 'missing-key', key: 'ghost', file: 'main.tex', reference: null, count: 1 }]);

      await write('main.tex', manuscript(['A new first paragraph.', '', 'Known, moved \\cite{ghost} and \\cite{real}.']));
      const before = await snapshot(dir);
      const moved = await check('main.tex', '--baseline', baseline);
      assert.equal(moved.code, 0, moved.err);
      assert.match(moved.err, /no finding is new since the baseline/);
      assert.deepEqual(await snapshot(dir), before, 'reading a baseline writes nothing');

      await write('main.tex', manuscript(['Known \\cite{ghost}.', 'New \\cite{phantom}; known, again \\cite{ghost}.']));
      const grown = await check('main.tex', '--baseline', baseline, '--format', 'sarif');
      assert.equal(grown.code, 1);
      assert.match(
        grown.err,
        /3 findings are not in the baseline .*:\n {2}\S*main\.tex:4: error: \[missing-key\] phantom\n {2}\S*main\.tex:4: error: \[missing-key\] ghost\n {2}\S*refs\.bib:1: hint: \[unused-entry\] real\n/,
      );
      const results = (JSON.parse(grown.out) as Log).runs[0].results ?? [];
      assert.deepEqual(
        results.filter((r) => r.ruleId === 'missing-key').map((r) => r.baselineState),
        ['unchanged', 'new', 'new'],
      );
    });

    it('takes a key now naming another reference for a new finding', async () => {
      await write('refs.bib', '@article{x, title={The first work}, author={Roe, Rita}, year={2999}}\n');
      await write('main.tex', manuscript(['\\cite{x}']));
      const baseline = path.join(dir, 'baseline.json');
      await check('main.tex', '--write-baseline', baseline);
      assert.equal((await check('main.tex', '--baseline', baseline, '--min-severity', 'hint')).err.includes('no finding is new'), true);
      await write('refs.bib', '@article{x, title={Another work altogether}, author={Roe, Rita}, year={2999}}\n');
      assert.match((await check('main.tex', '--baseline', baseline)).err, /1 finding is not in the baseline .*\n {2}\S*refs\.bib:1: warning: \[suspicious-metadata\] x/);
    });

    it('says in one line why a baseline it cannot use stops the run, and exits 2', async () => {
      await write('refs.bib', BIB);
      await write('main.tex', manuscript(['\\cite{real}']));
      await write('bad.json', '{"version": 1, "findings": [{"code": "missing-key"}]}');
      const bad = await check('main.tex', '--baseline', path.join(dir, 'bad.json'));
      assert.equal(bad.code, 2);
      assert.match(bad.err, /is not an Attest baseline/);
      const missing = await check('main.tex', '--baseline', path.join(dir, 'none.json'));
      assert.equal(missing.code, 2);
      assert.match(missing.err, /no baseline .*none\.json: write one with --write-baseline/);
      assert.equal((await check('main.tex', '--baseline', 'a', '--write-baseline', 'b')).code, 2);
    });
  });
});
