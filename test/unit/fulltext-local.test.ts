import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pdfPathsOf } from '../../src/core/bibliography/fileField';
import { parseBibliography } from '../../src/core/bibliography/parse';
import { pdfCandidates, pdfInFolder } from '../../src/core/fulltext/localPdfs';
import { FullTextFinder } from '../../src/core/fulltext/find';
import { fullTextAtHand, fullTextProvider } from '../../src/core/fulltext/provider';
import { FullTextStore } from '../../src/core/fulltext/store';
import { makePdf } from './support/pdfs';
import { ScriptedServer, sendText } from './support/server';
import { makeTempDir } from './support/tempDir';

describe('the PDFs of a .bib file field', () => {
  it('reads the forms Better BibTeX, Zotero, JabRef and Mendeley write', () => {
    assert.deepEqual(pdfPathsOf('/home/me/Zotero/storage/AB12CD/Smith 2020.pdf;/home/me/Zotero/storage/EF34/notes.html;/home/me/b.PDF'), [
      '/home/me/Zotero/storage/AB12CD/Smith 2020.pdf',
      '/home/me/b.PDF',
    ]);
    assert.deepEqual(pdfPathsOf('Full Text PDF:/home/me/Zotero/storage/AB12/Smith.pdf:application/pdf;Snapshot:/home/me/s.html:text/html'), ['/home/me/Zotero/storage/AB12/Smith.pdf']);
    assert.deepEqual(pdfPathsOf(':papers/smith2020.pdf:PDF;Supplement:papers/s1.pdf:PDF'), ['papers/smith2020.pdf', 'papers/s1.pdf']);
    assert.deepEqual(pdfPathsOf(':C\\:\\\\Users\\\\me\\\\smith2020.pdf:PDF'), ['C:\\Users\\me\\smith2020.pdf']);
    assert.deepEqual(pdfPathsOf(':Users/me/Documents/Mendeley Desktop/Smith 2020.pdf:pdf'), ['Users/me/Documents/Mendeley Desktop/Smith 2020.pdf']);
    assert.deepEqual(pdfPathsOf(':C$\\backslash$:/Users/me/smith2020.pdf:pdf'), ['C:/Users/me/smith2020.pdf']);
    assert.deepEqual(pdfPathsOf('Link:https\\://example.org/x:URL'), []);
  });

  it('keeps them on the entry, with relative paths found beside the .bib and Mendeley\'s missing slash put back', () => {
    const bib = parseBibliography('@article{a, title={T}, file={:papers/smith2020.pdf:PDF;:Users/me/m.pdf:pdf}}', '/work/paper/refs.bib');
    const [entry] = bib.entries;
    assert.deepEqual(entry.pdfs, ['papers/smith2020.pdf', 'Users/me/m.pdf']);
    assert.deepEqual(pdfCandidates(entry), ['/work/paper/papers/smith2020.pdf', '/papers/smith2020.pdf', '/work/paper/Users/me/m.pdf', '/Users/me/m.pdf']);
  });
});

describe('finding and reading the writer\'s PDF of a cited work', function () {
  this.timeout(60_000);
  let temp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(async () => temp.remove());

  const PAPER = [{ columns: [['Results', 'The cache raised throughput by 40 percent.', '', 'References', '[1] Someone. Caches.']] }];

  it('finds a PDF in the folder by the DOI or the title in its name', async () => {
    const folder = path.join(temp.dir, 'library', 'Smith');
    await fs.mkdir(folder, { recursive: true });
    await fs.writeFile(path.join(folder, 'Smith - 2020 - Caching at Scale in Three Data Centres.pdf'), 'x');
    await fs.writeFile(path.join(folder, '10.1000_xyz123.pdf'), 'x');
    const entry = parseBibliography('@article{a, title={Caching at scale in three data centres: a study}}', path.join(temp.dir, 'refs.bib')).entries[0];
    assert.equal(await pdfInFolder(path.join(temp.dir, 'library'), entry.title, {}), path.join(folder, 'Smith - 2020 - Caching at Scale in Three Data Centres.pdf'));
    const other = parseBibliography('@article{b, title={Other things entirely here}}', path.join(temp.dir, 'refs.bib')).entries[0];
    assert.equal(await pdfInFolder(path.join(temp.dir, 'library'), other.title, { doi: '10.1000/xyz123' }), path.join(folder, '10.1000_xyz123.pdf'));
    assert.equal(await pdfInFolder(path.join(temp.dir, 'library'), other.title, {}), undefined);
  });

  it('judges on the file-field PDF, reads it once per version, and says why when it cannot', async () => {
    await fs.mkdir(path.join(temp.dir, 'papers'));
    await fs.writeFile(path.join(temp.dir, 'papers', 'smith.pdf'), await makePdf(PAPER));
    await fs.writeFile(path.join(temp.dir, 'papers', 'broken.pdf'), 'not a pdf');
    const bib = parseBibliography('@article{a, file={:papers/smith.pdf:PDF}}\n@article{b, file={:papers/broken.pdf:PDF}}\n@article{c, file={:papers/gone.pdf:PDF}}', path.join(temp.dir, 'refs.bib'));
    const store = new FullTextStore(path.join(temp.dir, 'store'), 10_000_000);
    const provide = fullTextProvider({ store });
    const found = await provide(bib.entries[0], {});
    assert.ok(found && 'fullText' in found);
    assert.deepEqual(found.fullText.passages, [{ section: 'Results', page: 1, text: 'The cache raised throughput by 40 percent.' }]);
    // The same version of the file (size and time) is answered from the store; a changed file is read again.
    const file = path.join(temp.dir, 'papers', 'smith.pdf');
    const { size, mtimeMs } = await fs.stat(file);
    await fs.writeFile(file, Buffer.alloc(size, 0x20));
    await fs.utimes(file, mtimeMs / 1000, mtimeMs / 1000);
    assert.deepEqual(await provide(bib.entries[0], {}), found);
    await fs.utimes(file, mtimeMs / 1000 + 5, mtimeMs / 1000 + 5);
    assert.deepEqual(await provide(bib.entries[0], {}), { reason: 'smith.pdf: the file is not a readable PDF (damaged or truncated)' });
    assert.deepEqual(await provide(bib.entries[1], {}), { reason: 'broken.pdf: the file is not a readable PDF (damaged or truncated)' });
    assert.deepEqual(await provide(bib.entries[2], {}), { reason: 'the PDF of the file field was not found (papers/gone.pdf)' });
    assert.equal(await provide(parseBibliography('@article{d, title={T}}', path.join(temp.dir, 'refs.bib')).entries[0], {}), undefined);
  });

  it('remembers a reason in the file itself for that version, and tries again after one that may pass', async () => {
    const store = new FullTextStore(path.join(temp.dir, 'store'), 10_000_000);
    const pdf = Buffer.from(await makePdf(PAPER));
    const file = path.join(temp.dir, 'smith.pdf');
    const entry = parseBibliography('@article{a, file={:smith.pdf:PDF}}', path.join(temp.dir, 'refs.bib')).entries[0];
    const setVersion = async (bytes: Buffer): Promise<void> => {
      await fs.writeFile(file, bytes);
      await fs.utimes(file, 1_700_000_000, 1_700_000_000);
    };

    // Reading ran out of time: the next check reads the same version of the file again, and succeeds.
    await setVersion(pdf);
    const slow = await fullTextProvider({ store, pdfLimits: { maxBytes: 10_000_000, maxPages: 10, timeoutMs: 1 } })(entry, {});
    assert.deepEqual(slow, { reason: 'smith.pdf: reading it took longer than 0 s' });
    const found = await fullTextProvider({ store })(entry, {});
    assert.ok(found && 'fullText' in found, JSON.stringify(found));

    // Not a PDF: that version is not read again, even if its bytes change behind the same size and time.
    await setVersion(Buffer.alloc(pdf.length, 0x20));
    await fs.utimes(file, 1_700_000_100, 1_700_000_100);
    const junk = await fullTextProvider({ store })(entry, {});
    assert.deepEqual(junk, { reason: 'smith.pdf: the file is not a readable PDF (damaged or truncated)' });
    await fs.writeFile(file, pdf);
    await fs.utimes(file, 1_700_000_100, 1_700_000_100);
    assert.deepEqual(await fullTextProvider({ store })(entry, {}), junk);
  });

  it('gives a found paper\'s full text when it is at hand, a PDF of the folder or a stored one, asking no service', async () => {
    const server = await ScriptedServer.start((_request, response) => sendText(response, 500, 'no'));
    try {
      const store = new FullTextStore(path.join(temp.dir, 'store'), 10_000_000);
      const stored = { source: 'europepmc' as const, location: 'PMC1', passages: [{ section: 'Results', text: 'Stored passage.' }] };
      await store.set('europepmc:doi:10.1000/stored', { fullText: stored });
      const url = server.baseUrl;
      const finder = new FullTextFinder({ enabled: ['europepmc', 'arxiv'], europepmcBaseUrl: url, arxivHtmlBaseUrl: url, coreBaseUrl: url, offline: false, store });
      const folder = path.join(temp.dir, 'pdfs');
      await fs.mkdir(folder);
      await fs.writeFile(path.join(folder, 'Smith - 2020 - Caching at scale in data centres.pdf'), await makePdf(PAPER));
      const options = { finder, store, pdfFolder: folder };
      assert.deepEqual(await fullTextAtHand('Unknown title here', { doi: '10.1000/stored' }, options), stored);
      const fromPdf = await fullTextAtHand('Caching at Scale in Data Centres', {}, options);
      assert.equal(fromPdf?.source, 'pdf');
      assert.equal(await fullTextAtHand('Unknown title here', { doi: '10.1000/other', arxivId: '2401.00001' }, options), undefined);
      assert.equal(server.urls.length, 0);
    } finally {
      await server.close();
    }
  });
});
