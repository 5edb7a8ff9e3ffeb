import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_PDF_LIMITS, readPdf } from '../../../../src/core/fulltext/pdf';
import type { FullTextResult, Passage } from '../../../../src/core/fulltext/types';
import { makeEncryptedPdf, makeImageOnlyPdf, makePdf, type PageSpec } from '../../support/pdfs';
import { makeTempDir } from '../../support/tempDir';
import { asUnprivilegedUser, skipUnlessModesApply } from '../../support/unprivileged';

const PDF_MODULE = require.resolve('../../../../src/core/fulltext/pdf');

const HEADER = 'Journal of Caching Studies 12 (2020) 101-110';

/** A two-column paper: a title, a running header, page numbers, a paragraph running on across columns and pages, a reference list. */
const PAPER: PageSpec[] = [
  {
    header: HEADER,
    title: 'Caching at Scale in Three Data Centres',
    columns: [
      ['1. Introduction', 'Web caches are decades old, yet few', 'studies measure them at scale.', '', 'We report a deployment at three', 'sites over two years.'],
      ['2. Methods', 'Throughput was measured as requests', 'served per second at each site,', 'before and after the cache.'],
    ],
  },
  {
    header: HEADER,
    columns: [
      ['3. Results', 'At every site the cache raised through-', 'put by 40 percent, and median latency', 'fell from 80 to 35 ms. The gain held'],
      ['under peak load and across all three', 'sites.', '', '4. Discussion', 'Caches remain the cheapest way to', 'serve repeated requests quickly.'],
    ],
  },
  {
    header: HEADER,
    columns: [['5. Conclusion', 'Cache first, then scale out.', '', 'References', '[1] A. Author. Throughput of web caches.', '[2] B. Author. Latency under peak load.']],
  },
];

function passagesOf(result: FullTextResult): readonly Passage[] {
  assert.ok('fullText' in result, 'reason' in result ? result.reason : '');
  return result.fullText.passages;
}

describe("reading the writer's own PDFs", function () {
  this.timeout(60_000);
  let temp: { dir: string; remove: () => Promise<void> };
  before(async () => {
    temp = await makeTempDir();
  });
  after(async () => temp.remove());

  async function write(name: string, bytes: Uint8Array | string): Promise<string> {
    const file = path.join(temp.dir, name);
    await fs.writeFile(file, bytes);
    return file;
  }

  it('reads a two-column paper in reading order, by section and page, without running heads, page numbers or references', async () => {
    const passages = passagesOf(await readPdf(await write('paper.pdf', await makePdf(PAPER))));
    assert.deepEqual(
      passages.map((p) => [p.section, p.page]),
      [
        ['Introduction', 1],
        ['Introduction', 1],
        ['Methods', 1],
        ['Results', 2],
        ['Discussion', 2],
        ['Conclusion', 3],
      ],
    );
    // One paragraph across the column break, with the word the line break hyphenated made whole.
    assert.equal(
      passages[3].text,
      'At every site the cache raised throughput by 40 percent, and median latency fell from 80 to 35 ms. The gain held under peak load and across all three sites.',
    );
    const all = passages.map((p) => p.text).join(' ');
    for (const gone of ['Journal of Caching', 'Throughput of web caches', 'Caching at Scale']) assert.ok(!all.includes(gone), gone);
  });

  it('gives a reason for an encrypted PDF', async () => {
    const result = await readPdf(await write('locked.pdf', await makeEncryptedPdf()));
    assert.deepEqual(result, { reason: 'locked.pdf: the PDF is encrypted with a password' });
  });

  it('gives a reason for a scan without a text layer', async () => {
    const result = await readPdf(await write('scan.pdf', await makeImageOnlyPdf()));
    assert.deepEqual(result, { reason: 'scan.pdf has no text layer (a scan?); the abstract is used instead' });
  });

  it('gives a reason for a truncated PDF and for a file that is no PDF', async () => {
    const whole = await makePdf(PAPER);
    const truncated = await readPdf(await write('cut.pdf', whole.slice(0, Math.floor(whole.length / 3))));
    assert.ok('reason' in truncated && truncated.reason.startsWith('cut.pdf'), JSON.stringify(truncated).slice(0, 200));
    const junk = await readPdf(await write('notes.pdf', 'These are my notes, not a PDF.'));
    assert.deepEqual(junk, { reason: 'notes.pdf: the file is not a readable PDF (damaged or truncated)' });
  });

  it('calls a PDF it may not open now a reason that may pass', async function () {
    skipUnlessModesApply(this, PDF_MODULE);
    const folder = path.join(temp.dir, 'private');
    await fs.mkdir(folder);
    const file = path.join(folder, 'paper.pdf');
    await fs.writeFile(file, await makePdf(PAPER));
    await fs.chmod(temp.dir, 0o755);
    await fs.chmod(folder, 0o755);
    await fs.chmod(file, 0o000);
    const script = `require(${JSON.stringify(PDF_MODULE)}).readPdf(${JSON.stringify(file)}).then((r) => process.stdout.write(JSON.stringify(r)))`;
    const result = JSON.parse(await asUnprivilegedUser(async () => JSON.stringify(await readPdf(file)), script)) as FullTextResult;
    assert.deepEqual(result, { reason: 'paper.pdf: the PDF could not be read: permission denied', transient: true });
  });

  it('does not read a PDF over the size limit, nor a missing one', async () => {
    const file = await write('big.pdf', await makePdf(PAPER));
    const result = await readPdf(file, { ...DEFAULT_PDF_LIMITS, maxBytes: 1024 });
    assert.ok('reason' in result && /^big\.pdf is \d+ KB, more than the 1 KB Attest reads$/.test(result.reason), JSON.stringify(result));
    const missing = await readPdf(path.join(temp.dir, 'gone.pdf'));
    assert.deepEqual(missing, { reason: 'gone.pdf cannot be read (ENOENT)', transient: true });
  });
});
