import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { attest } from '../support/cli';
import { FIXTURES } from '../support/helpers';

interface JsonReport {
  references: { key: string; status: string; source: string; record: { id: string } }[];
}

describe("attest check with DBLP's dump", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-cli-dblp-'));
    await fs.copyFile(path.join(FIXTURES, 'sources/dblp/dump.xml'), path.join(dir, 'dump.xml'));
    const settings = { 'attest.sources.enabled': ['dblp'], 'attest.sources.dblp.dumpFile': 'dump.xml', 'attest.support.check': false };
    await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify(settings));
    await fs.writeFile(path.join(dir, 'm.tex'), 'Recurrent networks remember \\cite{lstm}.\n\\bibliography{refs}\n');
    await fs.writeFile(
      path.join(dir, 'refs.bib'),
      '@article{lstm, title={Long Short-Term Memory}, author={Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen}, journal={Neural Comput.}, year={1997}}\n',
    );
  });
  afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

  it('indexes the dump named in the --config file once, before the first check, and looks references up in it offline', async () => {
    const check = (): ReturnType<typeof attest> =>
      attest('check', path.join(dir, 'm.tex'), '--offline', '--cache', path.join(dir, 'cache'), '--config', path.join(dir, 'config.json'), '--format', 'json');
    const first = await check();
    assert.match(first.err, /Indexing DBLP's dump dump\.xml, once/);
    const [lstm] = (JSON.parse(first.out) as JsonReport).references;
    assert.deepEqual([lstm.key, lstm.status, lstm.source, lstm.record.id], ['lstm', 'found', 'dblp', 'journals/neco/HochreiterS97']);
    const second = await check();
    assert.doesNotMatch(second.err, /Indexing/);
    assert.deepEqual(JSON.parse(second.out), JSON.parse(first.out));
  });
});
