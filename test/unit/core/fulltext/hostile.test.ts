import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { HOSTILE_FULL_TEXTS, makeFlateBomb, type HostileFullText } from '../../../../bench/hostile';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { FullTextFinder } from '../../../../src/core/fulltext/find';
import { passagesFromJats } from '../../../../src/core/fulltext/jats';
import { passagesFromLatexml } from '../../../../src/core/fulltext/latexml';
import { DEFAULT_PDF_LIMITS, readPdf } from '../../../../src/core/fulltext/pdf';
import { passagesFromPlainText } from '../../../../src/core/fulltext/prose';
import { fullTextProvider } from '../../../../src/core/fulltext/provider';
import { FullTextStore } from '../../../../src/core/fulltext/store';
import { MAX_NESTING } from '../../../../src/core/fulltext/structured';
import type { FullTextResult, Passage } from '../../../../src/core/fulltext/types';
import { makePdf } from '../../support/pdfs';
import { ScriptedServer, sendJson, sendText } from '../../support/server';
import { makeTempDir } from '../../support/tempDir';

const MB = 1024 * 1024;

function read(input: HostileFullText, text: string): { passages: Passage[] } | { reason: string } {
  if (input.format === 'jats') return passagesFromJats(text);
  if (input.format === 'latexml') return passagesFromLatexml(text);
  return passagesFromPlainText(text);
}

function reasonOf(result: FullTextResult | undefined): string {
  return result && 'reason' in result ? result.reason : JSON.stringify(result).slice(0, 300);
}

/**
 * At 1 MB a reader quadratic in the nesting or in a paragraph's lines takes a minute or more (1.2 MB
 * of nested <i> took 94 s, 20,000 short lines 18 s); a linear one a fraction of a second, so the
 * timeout catches one coming back. bench/hostile.bench.ts has the figures.
 */
describe('hostile full texts of 1 MB', () => {
  for (const input of HOSTILE_FULL_TEXTS) {
    it(`reads ${input.format}: ${input.name}`, function () {
      this.timeout(10_000);
      assert.ok(read(input, input.make(1_000_000)));
    });
  }

  it('says that a JATS or arXiv HTML text nested too deep was not read, and reads one nested as deep as it may be', () => {
    const deep = HOSTILE_FULL_TEXTS.filter((input) => input.name.startsWith('nested'));
    assert.deepEqual(
      deep.map((input) => read(input, input.make(1_000_000))),
      [
        { reason: `the JATS full text nests its elements more than ${MAX_NESTING} deep; it was not read` },
        { reason: `the arXiv HTML nests its elements more than ${MAX_NESTING} deep; it was not read` },
      ],
    );
    // Within the limit: the document's own elements (article, body, sec, p) and the nested ones.
    const jats = `<article><body><sec><title>Results</title><p>${'<i>'.repeat(MAX_NESTING - 4)}Caches help.${'</i>'.repeat(MAX_NESTING - 4)}</p></sec></body></article>`;
    assert.deepEqual(passagesFromJats(jats), { passages: [{ section: 'Results', text: 'Caches help.' }] });
  });

  it('joins a paragraph of 60,000 short lines, hyphenated words made whole', function () {
    this.timeout(10_000);
    const read = passagesFromPlainText('Results\n' + 'the regu-\nlation of '.repeat(30_000));
    assert.ok('passages' in read);
    assert.equal(read.passages.length, 1);
    assert.equal(read.passages[0].text, 'the regulation of'.repeat(30_000).replace(/ofthe/g, 'of the'));
  });
});

describe('hostile full texts from the services', function () {
  this.timeout(20_000);
  let server: ScriptedServer | undefined;
  afterEach(async () => server?.close());

  it("reads CORE's fullText of 60,000 short lines, and says that arXiv HTML nested too deep was not read", async () => {
    const lines = 'Results\n' + 'the regu-\nlation of\n'.repeat(30_000);
    const nestedHtml = HOSTILE_FULL_TEXTS.find((input) => input.format === 'latexml' && input.name === 'nested <span>')?.make(1_000_000) ?? '';
    server = await ScriptedServer.start((request, response) => {
      if (request.url?.startsWith('/v3/search/works/'))
        sendJson(response, 200, { totalHits: 1, limit: 3, offset: 0, results: [{ id: 7, doi: '10.1000/a', title: 'A', fullText: lines }] });
      else sendText(response, 200, nestedHtml);
    });
    const url = server.baseUrl;
    const finder = (enabled: ('core' | 'arxiv')[]) =>
      new FullTextFinder({ enabled, europepmcBaseUrl: url, arxivHtmlBaseUrl: url, coreBaseUrl: url, coreApiKey: 'key', offline: false, timeoutMs: 5000, backoffMs: 1 });
    const core = await finder(['core']).find({ doi: '10.1000/a' });
    assert.ok('fullText' in core, reasonOf(core));
    assert.equal(core.fullText.passages[0].text.slice(0, 35), 'the regulation of the regulation of');
    assert.deepEqual(await finder(['arxiv']).find({ arxivId: '2401.00001' }), { reason: `the arXiv HTML nests its elements more than ${MAX_NESTING} deep; it was not read` });
  });
});

describe('hostile PDFs', function () {
  this.timeout(60_000);
  let temp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(async () => temp.remove());

  const entryWithFile = (file: string) =>
    parseBibliography(`@article{a, title={Caching at scale in data centres}, file={:${file}:PDF}}`, path.join(temp.dir, 'refs.bib')).entries[0];

  it('refuses a file field or a PDF folder entry that links to /proc/self/pagemap, saying why, without reading it', async function () {
    if (process.platform !== 'linux') this.skip();
    await fs.symlink('/proc/self/pagemap', path.join(temp.dir, 'linked.pdf'));
    await fs.mkdir(path.join(temp.dir, 'pdfs'));
    await fs.symlink('/proc/self/pagemap', path.join(temp.dir, 'pdfs', 'Smith - 2020 - Caching at scale in data centres.pdf'));
    // A reader that read it would take gigabytes: the short time limit ends it first.
    const limits = { ...DEFAULT_PDF_LIMITS, timeoutMs: 3000 };
    const why = /is empty, or a special file that reports no size \(such as one under \/proc\); it was not read$/;
    assert.match(reasonOf(await fullTextProvider({ pdfLimits: limits })(entryWithFile('linked.pdf'), {})), why);
    const inFolder = await fullTextProvider({ pdfLimits: limits, pdfFolder: path.join(temp.dir, 'pdfs') })(entryWithFile('none.pdf'), {});
    assert.match(reasonOf(inFolder), why);
  });

  it('refuses a FIFO named like a PDF, saying what it is, where it was called not found', async function () {
    const fifo = path.join(temp.dir, 'paper.pdf');
    try {
      execFileSync('mkfifo', [fifo]);
    } catch {
      this.skip();
    }
    assert.equal(reasonOf(await fullTextProvider({})(entryWithFile('paper.pdf'), {})), 'paper.pdf is a named pipe (FIFO), not a regular file; Attest reads only regular files');
  });

  it('leaves a PDF the reader gave up on alone while its size stays the same, however its modification time moves', async () => {
    const store = new FullTextStore(path.join(temp.dir, 'store'), 10_000_000);
    const file = path.join(temp.dir, 'paper.pdf');
    const pdf = Buffer.from(await makePdf([{ columns: [['1. Results', 'The cache raised throughput by 40 percent.']] }]));
    await fs.writeFile(file, pdf);
    const gaveUp = await fullTextProvider({ store, pdfLimits: { ...DEFAULT_PDF_LIMITS, timeoutMs: 1 } })(entryWithFile('paper.pdf'), {});
    assert.match(reasonOf(gaveUp), /gave up on it \(timeout: /);
    for (const seconds of [1_700_000_000, 1_700_000_100]) {
      await fs.utimes(file, seconds, seconds);
      assert.deepEqual(await fullTextProvider({ store })(entryWithFile('paper.pdf'), {}), gaveUp, 'read again after its time moved');
    }
    // Another file (of another size) is read.
    await fs.writeFile(file, Buffer.concat([pdf, Buffer.from('\n')]));
    const read = await fullTextProvider({ store })(entryWithFile('paper.pdf'), {});
    assert.ok(read && 'fullText' in read, reasonOf(read));
  });

  it('ends the reader of a Flate bomb at its memory limit, saying so, and reads two bombs cited together one at a time', async () => {
    const memoryMb = 160;
    const limits = { ...DEFAULT_PDF_LIMITS, memoryMb };
    const bomb = await makeFlateBomb(768 * MB);
    const files = ['a.pdf', 'b.pdf'].map((name) => path.join(temp.dir, name));
    for (const file of files) await fs.writeFile(file, bomb);
    const before = process.memoryUsage.rss();
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss() - before)), 5);
    const results = await Promise.all(files.map((file) => readPdf(file, limits)));
    clearInterval(watch);
    for (const [i, result] of results.entries()) {
      assert.match(
        reasonOf(result),
        new RegExp(`^${path.basename(files[i])}: not read: the PDF reader gave up on it \\(memory: reading it took more than the ${memoryMb} MB the reader may use\\)`),
      );
    }
    // Unbounded, each would take the 768 MB it inflates to, both at once. Ended at the limit, one at a
    // time, they pass it only by what a doubling buffer adds between two looks at the memory.
    assert.ok(peak < 2 * memoryMb * MB, `the process grew by ${Math.round(peak / MB)} MB`);
    // A PDF that is no bomb is read under the same limit.
    await fs.writeFile(files[0], await makePdf([{ columns: [['1. Results', 'The cache raised throughput by 40 percent.']] }]));
    const read = await readPdf(files[0], limits);
    assert.ok('fullText' in read, reasonOf(read));
  });
});
