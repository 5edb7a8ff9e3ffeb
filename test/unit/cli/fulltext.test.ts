import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { makePdf } from '../support/pdfs';
import { makeTempDir } from '../support/tempDir';

interface SupportReport {
  key: string;
  label: string;
  evidence: { from: string; place?: string; page?: number; section?: string; text: string } | null;
  fullText: { source: string; location: string } | { reason: string } | null;
}

async function check(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['check', ...args], { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('attest check with full texts', function () {
  this.timeout(60_000);
  let temp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    temp = await makeTempDir();
    const pdf = await makePdf([{ columns: [['Methods', 'We counted requests per second.', '', 'Results', 'Throughput rose by forty percent with the cache.']] }]);
    await fs.writeFile(path.join(temp.dir, 'cache.pdf'), pdf);
    await fs.writeFile(
      path.join(temp.dir, 'refs.bib'),
      '@article{cache, title={A cache}, abstract={We describe a web cache that keeps pages close to readers. It was deployed widely, at three sites, for a year.}, file={:cache.pdf:PDF}}\n@article{plain, title={Plain}, doi={10.1000/plain}, abstract={Caches are common in web servers and in proxies between them. Operators size them by the traffic they expect.}}\n',
    );
    await fs.writeFile(path.join(temp.dir, 'paper.tex'), 'Throughput rose by forty percent \\cite{cache}. Caches are common \\cite{plain}.\n\\bibliography{refs}\n');
  });
  afterEach(async () => temp.remove());

  it("says in the JSON whether each verdict's evidence is from the abstract or the full text, and where", async () => {
    const run = await check(path.join(temp.dir, 'paper.tex'), '--format', 'json', '--offline', '--cache', path.join(temp.dir, 'cache'));
    const report = JSON.parse(run.out) as { support: SupportReport[] };
    const [cache, plain] = report.support;
    assert.equal(cache.key, 'cache');
    assert.deepEqual(cache.evidence, { from: 'full text', section: 'Results', page: 1, place: 'Results, p. 1', text: 'Throughput rose by forty percent with the cache.' });
    assert.deepEqual(cache.fullText, { source: 'pdf', location: path.join(temp.dir, 'cache.pdf') });
    assert.equal(plain.evidence?.from, 'abstract');
    assert.ok(plain.fullText && 'reason' in plain.fullText && /offline/i.test(plain.fullText.reason), JSON.stringify(plain.fullText));
  });

  it('judges on abstracts alone when full texts are turned off', async () => {
    const config = path.join(temp.dir, 'attest.json');
    await fs.writeFile(config, JSON.stringify({ 'attest.fullText.enabled': false }));
    const run = await check(path.join(temp.dir, 'paper.tex'), '--format', 'json', '--offline', '--cache', path.join(temp.dir, 'cache'), '--config', config);
    const report = JSON.parse(run.out) as { support: SupportReport[] };
    assert.deepEqual(
      report.support.map((s) => [s.evidence?.from, s.fullText]),
      [
        ['abstract', null],
        ['abstract', null],
      ],
    );
  });

  it('warns once that the PDF folder could not be searched, and gives it as the reason for each work it did not find', async () => {
    const config = path.join(temp.dir, 'attest.json');
    await fs.writeFile(config, JSON.stringify({ 'attest.fullText.pdfFolder': 'no-such-folder' }));
    await fs.writeFile(path.join(temp.dir, 'paper.tex'), 'Caches are common \\cite{plain}. Operators size caches \\cite{plain}.\n\\bibliography{refs}\n');
    const run = await check(path.join(temp.dir, 'paper.tex'), '--format', 'json', '--offline', '--cache', path.join(temp.dir, 'cache'), '--config', config);
    const report = JSON.parse(run.out) as { support: SupportReport[] };
    const folder = path.join(temp.dir, 'no-such-folder');
    assert.deepEqual(
      run.err.split('\n').filter((line) => line.includes('PDF folder')),
      [`attest check: The PDF folder ${folder} was not searched in full: it does not exist.`],
    );
    assert.equal(report.support.length, 2);
    for (const support of report.support) {
      assert.ok(
        support.fullText && 'reason' in support.fullText && support.fullText.reason.startsWith('not found in the PDF folder, which was not searched in full: it does not exist;'),
        JSON.stringify(support.fullText),
      );
    }
  });
});
