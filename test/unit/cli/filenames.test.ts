import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { shownName } from '../../../src/core/text/fileNames';
import { attest } from '../support/cli';
import { makeTempDir } from '../support/tempDir';

const MANUSCRIPT = '\\documentclass{article}\\begin{document}Caches help \\cite{a}.\\bibliography{refs}\\end{document}\n';

describe('file names that are not UTF-8', () => {
  let temp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(async () => temp.remove());

  /** `caf` + byte E9 (Latin-1 é) + `.tex` in the folder, or false where the file system refuses such a name (macOS). */
  async function latin1Named(): Promise<boolean> {
    const name = Buffer.concat([Buffer.from(`${temp.dir}${path.sep}caf`), Buffer.from([0xe9]), Buffer.from('.tex')]);
    return fs.writeFile(name, MANUSCRIPT).then(
      () => true,
      () => false,
    );
  }

  it('tells which manuscript of a folder was skipped for its name, and checks the others', async function () {
    if (!(await latin1Named())) this.skip();
    await fs.writeFile(path.join(temp.dir, 'main.tex'), MANUSCRIPT);
    await fs.writeFile(path.join(temp.dir, 'refs.bib'), '@article{a, title={Caches}}\n');
    const run = await attest('check', temp.dir, '--offline', '--cache', path.join(temp.dir, 'cache'));
    assert.match(run.err, /the manuscript .*caf\\xE9\.tex was skipped: its name is not UTF-8, and Attest opens files by UTF-8 names only; rename it to check it\./);
    assert.match(run.out, /main\.tex/);
  });

  it('says why a manuscript named on the command line with bytes that are not UTF-8 is not found', async function () {
    if (!(await latin1Named())) this.skip();
    // What Node makes of the name in argv: the byte as U+FFFD.
    const run = await attest('check', path.join(temp.dir, 'caf\uFFFD.tex'), '--offline');
    assert.equal(run.code, 2);
    assert.match(
      run.err,
      /no such file by this name, in which \uFFFD stands for bytes that are not UTF-8: Attest opens files by UTF-8 names only, so a file named so must be renamed to be read/,
    );
  });

  it("shows a name's bytes that are not UTF-8 as \\xNN and the rest as written", () => {
    assert.equal(shownName(Buffer.concat([Buffer.from('Straße '), Buffer.from([0xe9, 0xff, 0xc3]), Buffer.from('.md')])), 'Straße \\xE9\\xFF\\xC3.md');
  });
});
