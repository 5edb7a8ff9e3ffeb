import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkManuscript, CheckSession, type CheckResult } from '../../../../src/core/check';
import { FsWorkspace } from '../../../../src/core/fsWorkspace';
import { findRootManuscripts } from '../../../../src/core/manuscript/discover';
import { manuscriptRootOf, MAX_INCLUDE_DEPTH, MAX_INCLUDED_FILES } from '../../../../src/core/manuscript/project';
import { MemoryWorkspace } from '../../support/helpers';
import { attest } from '../../support/cli';

const BIB = '@article{k, title={A title}, author={Curie, Marie}, year={2020}}\n';

function codes(result: CheckResult | undefined): string[] {
  return (result?.findings ?? []).map((f) => f.code);
}

describe('a manuscript reached through symbolic links', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'attest-links-')));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function write(files: Record<string, string>, links: Record<string, string> = {}): Promise<void> {
    for (const [name, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await fs.writeFile(path.join(dir, name), text);
    }
    for (const [name, target] of Object.entries(links)) await fs.symlink(target, path.join(dir, name));
  }

  it('reads each file once when folders linked to themselves give it endless names', async () => {
    await write(
      {
        'a.tex': '\\documentclass{article}\\begin{document}\nRoot \\cite{k}.\n\\subfile{l/s}\\subfile{m/s}\n\\bibliography{refs}\\end{document}\n',
        's.tex': 'Sub \\cite{k}.\n\\subfile{l/s}\\subfile{m/s}\n',
        'refs.bib': BIB,
      },
      { l: '.', m: '.' },
    );
    const result = await checkManuscript(path.join(dir, 'a.tex'), new FsWorkspace(), new CheckSession());
    assert.equal(result?.manuscript.sources.length, 2);
    assert.equal(result?.citations.length, 2);
    assert.deepEqual(codes(result), []);
  });

  it('reads the root once when it includes itself by an alias, so each finding is reported once', async () => {
    await write({ 'a.tex': '\\documentclass{article}\nClaim \\cite{absent}.\n\\input{alias}\n' }, { 'alias.tex': 'a.tex' });
    const result = await checkManuscript(path.join(dir, 'a.tex'), new FsWorkspace(), new CheckSession());
    assert.equal(result?.manuscript.sources.length, 1);
    assert.deepEqual(codes(result), ['missing-key']);
  });

  it('reads a bibliography once however many links name it', async () => {
    await write(
      { 'a.tex': '\\documentclass{article}\nClaim \\cite{k}.\n\\bibliography{refs,links/l1,links/l2}\n', 'refs.bib': BIB, 'links/.keep': '' },
      { 'links/l1.bib': '../refs.bib', 'links/l2.bib': '../refs.bib' },
    );
    const result = await checkManuscript(path.join(dir, 'a.tex'), new FsWorkspace(), new CheckSession());
    assert.equal(result?.bibliographies.length, 1);
    assert.deepEqual(codes(result), []);
  });

  it('finds one root in a folder whose subfiles chapter is reached through a linked folder', async () => {
    await write(
      {
        'a.tex': '\\documentclass{article}\\begin{document}\n\\subfile{l/s}\\subfile{m/s}\n\\end{document}\n',
        's.tex': '\\documentclass[a]{subfiles}\\begin{document}\nSub.\n\\subfile{l/s}\\subfile{m/s}\n\\end{document}\n',
      },
      { l: '.', m: '.' },
    );
    assert.deepEqual(await findRootManuscripts(dir, new FsWorkspace(), new CheckSession().manuscripts), [path.join(dir, 'a.tex')]);
  });

  it('checks a document whose % !TEX root names no file as its own root, saying so at the comment', async () => {
    await write({ 'r.tex': '\\documentclass{article}\n% !TEX root = nonexistent.tex\nClaim \\cite{absent}.\n' });
    const session = new CheckSession();
    const file = path.join(dir, 'r.tex');
    assert.equal(await manuscriptRootOf(file, new FsWorkspace(), session.manuscripts), file);
    const result = await checkManuscript(file, new FsWorkspace(), session);
    const notice = result?.findings.find((f) => f.code === 'tex-root-missing');
    assert.deepEqual([notice?.severity, notice?.range.start.line, notice?.range.start.character], ['warning', 1, 0]);
    assert.match(notice?.message ?? '', /'% !TEX root' comment on line 2 names .*nonexistent\.tex, which does not exist/);
    assert.deepEqual(codes(result).sort(), ['missing-key', 'tex-root-missing']);
    const run = await attest('check', file, '--offline', '--cache', dir);
    assert.equal(run.code, 1);
  });

  it('names the % !TEX root comment when a chapter without \\documentclass names no file', async () => {
    await write({ 'ch.tex': 'Text.\n% !TEX root = gone.tex\n' });
    const run = await attest('check', path.join(dir, 'ch.tex'), '--offline', '--cache', dir);
    assert.equal(run.code, 2);
    assert.match(run.err, /ch\.tex:2: The '% !TEX root' comment on line 2 names .*gone\.tex, which does not exist\. Correct or remove the comment\./);
  });
});

describe('includes Attest does not follow', () => {
  it('says where an \\input chain deeper than the cap was cut', async () => {
    const files: Record<string, string> = { '/p/a.tex': 'Root \\cite{k0}.\n\\input{f1}\n' };
    for (let i = 1; i <= 40; i++) files[`/p/f${i}.tex`] = `Level ${i} \\cite{k${i}}.\n\\input{f${i + 1}}\n`;
    const result = await checkManuscript('/p/a.tex', new MemoryWorkspace(files), new CheckSession());
    assert.equal(result?.citations.length, MAX_INCLUDE_DEPTH + 1);
    const cut = result?.findings.filter((f) => f.code === 'include-not-followed');
    assert.deepEqual(
      cut?.map((f) => [f.severity, f.file, f.range.start.line]),
      [['warning', `/p/f${MAX_INCLUDE_DEPTH}.tex`, 1]],
    );
    assert.match(cut?.[0].message ?? '', new RegExp(`'f${MAX_INCLUDE_DEPTH + 1}' is not read: it is nested more than ${MAX_INCLUDE_DEPTH} includes deep`));
  });

  it('reads at most its cap of files of one manuscript, and says so once', async () => {
    const names = Array.from({ length: MAX_INCLUDED_FILES + 5 }, (_, i) => `p${i}`);
    const files: Record<string, string> = { '/p/a.tex': names.map((n) => `\\input{${n}}`).join('\n') };
    for (const name of names) files[`/p/${name}.tex`] = 'x';
    const result = await checkManuscript('/p/a.tex', new MemoryWorkspace(files), new CheckSession());
    assert.equal(result?.manuscript.sources.length, MAX_INCLUDED_FILES);
    const cut = result?.findings.filter((f) => f.code === 'include-not-followed');
    assert.deepEqual(
      cut?.map((f) => [f.file, f.range.start.line]),
      [['/p/a.tex', MAX_INCLUDED_FILES - 1]],
    );
  });
});
