import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { checkManuscript, CheckSession, type CheckResult } from '../../../src/core/check';
import { FsWorkspace } from '../../../src/core/fsWorkspace';
import { parseSearchPath, SearchPath, type SearchFolder } from '../../../src/core/texSearchPath';
import { citedEntries } from '../../../src/core/verify/references';
import { attest } from '../support/cli';
import { makeTempDir } from '../support/tempDir';

const ROOT_DIR = path.resolve('/p');
const BIB = '@article{goodman, author = {Goodman, Jonathan}, title = {Ensemble samplers with affine invariance}, year = {2010}}\n';

function here(dir: string): SearchFolder {
  return { dir: path.resolve(dir), subfolders: false };
}

function under(dir: string): SearchFolder {
  return { dir: path.resolve(dir), subfolders: true };
}

describe('search paths read as kpathsea reads BIBINPUTS and TEXINPUTS', () => {
  const cases: ReadonlyArray<readonly [string, string | undefined, readonly SearchFolder[]]> = [
    ['unset: the default place alone', undefined, [here('/p')]],
    ['one folder', '/lib/bib', [here('/lib/bib')]],
    ['a trailing // takes the subfolders', '/lib/bib//', [under('/lib/bib')]],
    ['a single trailing slash does not', '/lib/bib/', [here('/lib/bib')]],
    ['a leading empty component is the default place, first', ':/lib', [here('/p'), here('/lib')]],
    ['a trailing empty component is the default place, last', '/lib//:', [under('/lib'), here('/p')]],
    ['a doubled delimiter is the default place between', '/a::/b', [here('/a'), here('/p'), here('/b')]],
    ['an empty value is the default place', '', [here('/p')]],
    ['a relative folder starts at the root', 'bib//:.', [under('/p/bib'), here('/p')]],
    ['~ is the home folder', '~/texmf//:~', [under('/home/u/texmf'), here('/home/u')]],
    ['~name is a folder of that name', '~u/bib', [here('/p/~u/bib')]],
    ["kpathsea's !! (its database only) is a plain folder", '!!/usr/texmf//', [under('/usr/texmf')]],
    ['a folder written twice is searched once', '/lib:/lib/:/lib//', [here('/lib'), under('/lib')]],
  ];
  for (const [what, value, expected] of cases) {
    it(`${what}: ${JSON.stringify(value)}`, () => {
      assert.deepEqual(parseSearchPath(value, { defaultDir: ROOT_DIR, home: path.resolve('/home/u'), delimiter: ':' }), expected);
    });
  }

  it("splits on Windows's ; when that is the delimiter", () => {
    assert.deepEqual(parseSearchPath('/a//;;/b', { defaultDir: ROOT_DIR, delimiter: ';' }), [under('/a'), here('/p'), here('/b')]);
  });

  it('leaves ~ as a name without a home folder', () => {
    assert.deepEqual(parseSearchPath('~/bib', { defaultDir: ROOT_DIR, delimiter: ':' }), [here('/p/~/bib')]);
  });
});

describe('files found on BIBINPUTS and TEXINPUTS', () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ dir, remove } = await makeTempDir()));
  afterEach(() => remove());

  async function write(files: Record<string, string>): Promise<void> {
    for (const [name, text] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(dir, name)), { recursive: true });
      await fs.writeFile(path.join(dir, name), text);
    }
  }

  function check(environment: Record<string, string>): Promise<CheckResult | undefined> {
    return checkManuscript(path.join(dir, 'paper/main.tex'), new FsWorkspace(), new CheckSession(), { environment });
  }

  const CITING = '\\documentclass{article}\\begin{document}Samplers~\\cite{goodman}.\\bibliography{refs}\\end{document}';

  it('finds a named .bib in a subfolder of a BIBINPUTS folder written with //, and only then', async () => {
    await write({ 'paper/main.tex': CITING, 'bibs/a/b/refs.bib': BIB });
    const found = await check({ BIBINPUTS: `${path.join(dir, 'bibs')}//` });
    assert.ok(found);
    assert.deepEqual(found.findings, []);
    const bib = path.join(dir, 'bibs/a/b/refs.bib');
    assert.deepEqual(
      citedEntries(found).map((e) => [e.key, e.file]),
      [['goodman', bib]],
    );
    assert.ok(found.bibliographyFiles.includes(bib), 'an edit of the .bib found re-checks the manuscript');

    const flat = await check({ BIBINPUTS: path.join(dir, 'bibs') });
    assert.deepEqual(
      flat?.findings.map((f) => [f.code, f.message]),
      [
        ['missing-key', "'goodman' cannot be resolved: the manuscript names no bibliography file that exists."],
        ['missing-file', `Bibliography 'refs' not found (looked for ${path.join(dir, 'paper/refs.bib')}, then in the folders of BIBINPUTS).`],
      ],
    );
  });

  it('finds an \\input chapter the root folder lacks in a TEXINPUTS folder, and its citations are checked', async () => {
    await write({
      'paper/main.tex': '\\documentclass{article}\\begin{document}\\input{chapters/intro}\\bibliography{refs}\\end{document}',
      'paper/refs.bib': BIB,
      'shared/book/chapters/intro.tex': 'Samplers~\\cite{goodman} and \\cite{absent}.',
    });
    const result = await check({ TEXINPUTS: `${path.join(dir, 'shared')}//:` });
    const chapter = path.join(dir, 'shared/book/chapters/intro.tex');
    assert.deepEqual(
      result?.findings.map((f) => [f.code, f.file]),
      [['missing-key', chapter]],
    );
    assert.deepEqual(
      result?.citations.map((c) => [c.key, c.file]),
      [
        ['goodman', chapter],
        ['absent', chapter],
      ],
    );
  });

  it("takes an empty TEXINPUTS component for the root's folder: a \\subfile its own folder lacks is found there", async () => {
    await write({
      'paper/main.tex': '\\documentclass{article}\\begin{document}\\input{chapters/one}\\bibliography{refs}\\end{document}',
      'paper/refs.bib': BIB,
      'paper/chapters/one.tex': '\\subfile{common}',
      'paper/common.tex': 'Samplers~\\cite{goodman}.',
      'styles/plain.sty': '',
    });
    const styles = path.join(dir, 'styles');
    const missing = await check({ TEXINPUTS: styles });
    assert.deepEqual(
      missing?.findings.map((f) => [f.code, f.message]),
      [
        ['missing-file', `File 'common' not found (looked for ${path.join(dir, 'paper/chapters/common.tex')}, then in the folders of TEXINPUTS).`],
        ['unused-entry', "'goodman' is never cited in main.tex."],
      ],
    );
    for (const texInputs of [`${styles}:`, `:${styles}`, `${styles}::${styles}//`]) {
      const result = await check({ TEXINPUTS: texInputs });
      assert.deepEqual(result?.findings, [], texInputs);
      assert.deepEqual(
        result?.citations.map((c) => c.file),
        [path.join(dir, 'paper/common.tex')],
        texInputs,
      );
    }
  });

  it('walks a folder linked to its own parent once: the search ends, each folder probed once', async () => {
    await write({ 'bibs/a/other.bib': BIB });
    await fs.symlink(path.join(dir, 'bibs'), path.join(dir, 'bibs/a/loop'));
    await fs.symlink(path.join(dir, 'bibs/a'), path.join(dir, 'bibs/again'));
    const probed: string[] = [];
    const searchPath = new SearchPath('BIBINPUTS', [under(path.join(dir, 'bibs'))]);
    const found = await searchPath.find('refs.bib', async (file) => {
      probed.push(file);
      return undefined;
    });
    assert.equal(found, undefined);
    assert.deepEqual(probed, [path.join(dir, 'bibs/refs.bib'), path.join(dir, 'bibs/a/refs.bib')]);
    assert.equal(await searchPath.lookedIn(dir), 'then in the folders of BIBINPUTS');
  });

  it('skips folders whose names start with a dot, as kpathsea does', async () => {
    await write({ 'bibs/.git/refs.bib': BIB, 'bibs/z/refs.bib': BIB });
    const found = await new SearchPath('BIBINPUTS', [under(path.join(dir, 'bibs'))]).find('refs.bib', async (file) =>
      (await fs.stat(file).catch(() => undefined)) ? file : undefined,
    );
    assert.equal(found?.file, path.join(dir, 'bibs/z/refs.bib'));
  });

  it('stops a walk deeper or wider than its limits, and says so where the file is not found', async () => {
    await write({ 'deep/1/2/3/refs.bib': BIB, 'wide/a/x.bib': '', 'wide/b/x.bib': '', 'wide/c/refs.bib': BIB });
    const probe = async (file: string): Promise<string | undefined> => ((await fs.stat(file).catch(() => undefined)) ? file : undefined);
    const deep = new SearchPath('BIBINPUTS', [under(path.join(dir, 'deep'))], { depth: 2, folders: 100, entries: 100 });
    assert.equal(await deep.find('refs.bib', probe), undefined);
    assert.equal(await deep.lookedIn(dir), `then in the folders of BIBINPUTS, whose walk of ${path.join(dir, 'deep')}// went no deeper than 2 folders`);
    const wide = new SearchPath('BIBINPUTS', [under(path.join(dir, 'wide'))], { depth: 10, folders: 3, entries: 100 });
    assert.equal(await wide.find('refs.bib', probe), undefined);
    assert.equal(await wide.lookedIn(dir), `then in the folders of BIBINPUTS, whose walk of ${path.join(dir, 'wide')}// stopped after 3 folders`);
    const enough = new SearchPath('BIBINPUTS', [under(path.join(dir, 'wide'))], { depth: 10, folders: 4, entries: 100 });
    assert.equal((await enough.find('refs.bib', probe))?.file, path.join(dir, 'wide/c/refs.bib'));
  });

  it('attest check reads TEXINPUTS and BIBINPUTS from its environment', async () => {
    await write({
      'paper/main.tex': '\\documentclass{article}\\begin{document}\\input{intro}\\bibliography{refs}\\end{document}',
      'lib/tex/intro.tex': 'Samplers~\\cite{goodman}.',
      'lib/bib/refs.bib': BIB,
    });
    const saved = { TEXINPUTS: process.env.TEXINPUTS, BIBINPUTS: process.env.BIBINPUTS };
    process.env.TEXINPUTS = `${path.join(dir, 'lib')}//:`;
    process.env.BIBINPUTS = `${path.join(dir, 'lib')}//:`;
    try {
      const run = await attest('check', path.join(dir, 'paper/main.tex'), '--offline', '--cache', path.join(dir, 'cache'), '--format', 'json');
      const report = JSON.parse(run.out) as { bibliographies: string[]; citations: { file: string }[]; findings: { code: string }[] };
      assert.deepEqual(report.bibliographies, [path.join(dir, 'lib/bib/refs.bib')]);
      assert.deepEqual(
        report.citations.map((c) => c.file),
        [path.join(dir, 'lib/tex/intro.tex')],
      );
      assert.deepEqual(
        report.findings.filter((f) => f.code.startsWith('missing-')),
        [],
      );
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
