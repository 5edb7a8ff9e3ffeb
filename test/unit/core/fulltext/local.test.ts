import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pdfPathsOf } from '../../../../src/core/bibliography/fileField';
import type { BibEntry } from '../../../../src/core/bibliography/types';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { pdfCandidates, PdfFolder } from '../../../../src/core/fulltext/localPdfs';
import { FullTextFinder } from '../../../../src/core/fulltext/find';
import { fullTextProvider, passagesAtHand } from '../../../../src/core/fulltext/provider';
import type { Paper } from '../../../../src/core/papers/paper';
import { DEFAULT_PDF_LIMITS } from '../../../../src/core/fulltext/pdf';
import { FullTextStore } from '../../../../src/core/fulltext/store';
import { makeFlateBomb } from '../../../../bench/hostile';
import { makePdf } from '../../support/pdfs';
import { ScriptedServer, sendText } from '../../support/server';
import { makeTempDir } from '../../support/tempDir';
import { asUnprivilegedUser, skipUnlessModesApply } from '../../support/unprivileged';

describe('the PDFs of a .bib file field', () => {
  it('reads the forms Better BibTeX, Zotero, JabRef and Mendeley write', () => {
    assert.deepEqual(pdfPathsOf('/home/me/Zotero/storage/AB12CD/Smith 2020.pdf;/home/me/Zotero/storage/EF34/notes.html;/home/me/b.PDF'), [
      '/home/me/Zotero/storage/AB12CD/Smith 2020.pdf',
      '/home/me/b.PDF',
    ]);
    assert.deepEqual(pdfPathsOf('Full Text PDF:/home/me/Zotero/storage/AB12/Smith.pdf:application/pdf;Snapshot:/home/me/s.html:text/html'), [
      '/home/me/Zotero/storage/AB12/Smith.pdf',
    ]);
    assert.deepEqual(pdfPathsOf(':papers/smith2020.pdf:PDF;Supplement:papers/s1.pdf:PDF'), ['papers/smith2020.pdf', 'papers/s1.pdf']);
    assert.deepEqual(pdfPathsOf(':C\\:\\\\Users\\\\me\\\\smith2020.pdf:PDF'), ['C:\\Users\\me\\smith2020.pdf']);
    assert.deepEqual(pdfPathsOf(':Users/me/Documents/Mendeley Desktop/Smith 2020.pdf:pdf'), ['Users/me/Documents/Mendeley Desktop/Smith 2020.pdf']);
    assert.deepEqual(pdfPathsOf(':C$\\backslash$:/Users/me/smith2020.pdf:pdf'), ['C:/Users/me/smith2020.pdf']);
    assert.deepEqual(pdfPathsOf('Link:https\\://example.org/x:URL'), []);
  });

  it("keeps them on the entry, with relative paths found beside the .bib and Mendeley's missing slash put back", () => {
    const bib = parseBibliography('@article{a, title={T}, file={:papers/smith2020.pdf:PDF;:Users/me/m.pdf:pdf}}', '/work/paper/refs.bib');
    const [entry] = bib.entries;
    assert.deepEqual(entry.pdfs, ['papers/smith2020.pdf', 'Users/me/m.pdf']);
    assert.deepEqual(pdfCandidates(entry), ['/work/paper/papers/smith2020.pdf', '/papers/smith2020.pdf', '/work/paper/Users/me/m.pdf', '/Users/me/m.pdf']);
  });
});

/** A paper a search found, by its title and ids. */
function paper(title: string, ids: Pick<Paper, 'doi' | 'arxivId'> = {}): Paper {
  return { id: title, title, authors: [], ...ids };
}

describe("finding and reading the writer's PDF of a cited work", function () {
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
    const library = new PdfFolder(path.join(temp.dir, 'library'));
    assert.equal(await library.find(entry.title, {}), path.join(folder, 'Smith - 2020 - Caching at Scale in Three Data Centres.pdf'));
    const other = parseBibliography('@article{b, title={Other things entirely here}}', path.join(temp.dir, 'refs.bib')).entries[0];
    assert.equal(await library.find(other.title, { doi: '10.1000/xyz123' }), path.join(folder, '10.1000_xyz123.pdf'));
    assert.equal(await library.find(other.title, {}), undefined);
    assert.equal(await library.unsearched(), undefined);
  });

  it('judges on the file-field PDF, reads it once per version, and says why when it cannot', async () => {
    await fs.mkdir(path.join(temp.dir, 'papers'));
    await fs.writeFile(path.join(temp.dir, 'papers', 'smith.pdf'), await makePdf(PAPER));
    await fs.writeFile(path.join(temp.dir, 'papers', 'broken.pdf'), 'not a pdf');
    const bib = parseBibliography(
      '@article{a, file={:papers/smith.pdf:PDF}}\n@article{b, file={:papers/broken.pdf:PDF}}\n@article{c, file={:papers/gone.pdf:PDF}}',
      path.join(temp.dir, 'refs.bib'),
    );
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

    // The reader gave up (out of time): that version is left alone, until it changes or its day is over.
    await setVersion(pdf);
    const slow = await fullTextProvider({ store, pdfLimits: { ...DEFAULT_PDF_LIMITS, timeoutMs: 1 } })(entry, {});
    assert.match(
      slow && 'reason' in slow ? slow.reason : JSON.stringify(slow),
      /^smith\.pdf: not read: the PDF reader gave up on it \(timeout: reading it took longer than 0 s\) at \d{4}-\d\d-\d\d \d\d:\d\d UTC; it is tried again after the file changes or in 24 hours$/,
    );
    assert.deepEqual(await fullTextProvider({ store })(entry, {}), slow, 'the version the reader gave up on was read again');
    const [stored] = (await fs.readdir(path.join(temp.dir, 'store'))).filter((name) => name.endsWith('.json'));
    const storedFile = path.join(temp.dir, 'store', stored);
    const entryText = await fs.readFile(storedFile, 'utf8');
    await fs.writeFile(storedFile, entryText.replace(/"retryAt":\d+/, `"retryAt":${Date.now() - 1}`));
    const dayLater = await fullTextProvider({ store })(entry, {});
    assert.ok(dayLater && 'fullText' in dayLater, `not read again once its day was over: ${JSON.stringify(dayLater)}`);
    await setVersion(pdf);
    await fs.utimes(file, 1_700_000_050, 1_700_000_050);
    await fullTextProvider({ store, pdfLimits: { ...DEFAULT_PDF_LIMITS, timeoutMs: 1 } })(entry, {});
    await setVersion(Buffer.concat([pdf, Buffer.from('\n')]));
    const found = await fullTextProvider({ store })(entry, {});
    assert.ok(found && 'fullText' in found, `not read again once the file changed: ${JSON.stringify(found)}`);

    // Not a PDF: that version is not read again, even if its bytes change behind the same size and time.
    // (Of another size than the version the reader gave up on above, which stays left alone for its day.)
    const other = Buffer.concat([pdf, Buffer.from('\n\n')]);
    await setVersion(Buffer.alloc(other.length, 0x20));
    await fs.utimes(file, 1_700_000_100, 1_700_000_100);
    const junk = await fullTextProvider({ store })(entry, {});
    assert.deepEqual(junk, { reason: 'smith.pdf: the file is not a readable PDF (damaged or truncated)' });
    await fs.writeFile(file, other);
    await fs.utimes(file, 1_700_000_100, 1_700_000_100);
    assert.deepEqual(await fullTextProvider({ store })(entry, {}), junk);
  });

  it('leaves a PDF bomb the reader gave up on alone until the file changes, saying when it gave up; a crash of the reader too', async () => {
    const store = new FullTextStore(path.join(temp.dir, 'store'), 10_000_000);
    const entry = parseBibliography('@article{a, file={:bomb.pdf:PDF}}', path.join(temp.dir, 'refs.bib')).entries[0];
    const file = path.join(temp.dir, 'bomb.pdf');
    await fs.writeFile(file, await makeFlateBomb(256 * 1024 * 1024));
    const bombLimits = { ...DEFAULT_PDF_LIMITS, timeoutMs: 1_500 };
    const first = await fullTextProvider({ store, pdfLimits: bombLimits })(entry, {});
    const gaveUp =
      /^bomb\.pdf: not read: the PDF reader gave up on it \((timeout|crash|memory): .*\) at \d{4}-\d\d-\d\d \d\d:\d\d UTC; it is tried again after the file changes or in 24 hours$/;
    assert.match(first && 'reason' in first ? first.reason : JSON.stringify(first), gaveUp);
    assert.deepEqual(await fullTextProvider({ store, pdfLimits: bombLimits })(entry, {}), first, 'the bomb was read again');

    await fs.writeFile(file, await makePdf(PAPER));
    const crashed = await fullTextProvider({ store, pdfLimits: { ...DEFAULT_PDF_LIMITS, memoryMb: 1 } })(entry, {});
    assert.match(crashed && 'reason' in crashed ? crashed.reason : JSON.stringify(crashed), /gave up on it \((crash|memory): /);
    assert.deepEqual(await fullTextProvider({ store })(entry, {}), crashed, 'the version the reader crashed on was read again');
  });

  it("gives each found paper's best passage when its full text is at hand, a PDF of the folder or a stored one, asking no service", async () => {
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
      const papers = [
        paper('Unknown title here', { doi: '10.1000/stored' }),
        paper('Caching at Scale in Data Centres'),
        paper('Unknown title here', { doi: '10.1000/other', arxivId: '2401.00001' }),
      ];
      assert.deepEqual(await passagesAtHand('The stored passage and the cache throughput', papers, options), [
        { place: 'Results', text: 'Stored passage.' },
        { place: 'Results, p. 1', text: 'The cache raised throughput by 40 percent.' },
        undefined,
      ]);
      assert.equal(server.urls.length, 0);
    } finally {
      await server.close();
    }
  });
});

describe("walking the writer's folder of PDFs", () => {
  let temp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => {
    temp = await makeTempDir();
  });
  afterEach(async () => temp.remove());

  const titled = (title: string): BibEntry => parseBibliography(`@article{k, title={${title}}}`, path.join(temp.dir, 'refs.bib')).entries[0];

  /** How often each folder is read while `work` runs. */
  async function readsDuring(work: () => Promise<unknown>): Promise<Map<string, number>> {
    const reads = new Map<string, number>();
    const readdir = fs.readdir;
    const counting = (async (dir: string, ...rest: unknown[]) => {
      reads.set(String(dir), (reads.get(String(dir)) ?? 0) + 1);
      return (readdir as (...args: unknown[]) => Promise<unknown>)(dir, ...rest);
    }) as typeof fs.readdir;
    fs.readdir = counting;
    try {
      await work();
    } finally {
      fs.readdir = readdir;
    }
    return reads;
  }

  it('reads the folder once for all the entries of a run, and once for all the results of a search', async () => {
    const folder = path.join(temp.dir, 'pdfs');
    await fs.mkdir(path.join(folder, 'Smith'), { recursive: true });
    await fs.writeFile(path.join(folder, 'Smith', 'Smith - 2020 - Caching at scale in data centres.pdf'), 'x');
    const entries = ['Caching at scale in data centres', 'Unrelated work on other matters', 'A third title of a paper', 'And a fourth title too'].map(titled);
    const provide = fullTextProvider({ pdfFolder: folder });
    const run = await readsDuring(() => Promise.all(entries.map((entry) => provide(entry, {}))));
    assert.equal(run.get(folder), 1);
    assert.equal(run.get(path.join(folder, 'Smith')), 1);
    const search = await readsDuring(() =>
      passagesAtHand(
        'A claim',
        entries.map((entry) => paper(entry.title ?? '')),
        { pdfFolder: folder },
      ),
    );
    assert.equal(search.get(folder), 1);
  });

  it('follows links to folders and PDFs, reads each folder once whatever links loop back to it, and finds the PDF beyond', async () => {
    const folder = path.join(temp.dir, 'pdfs');
    const elsewhere = path.join(temp.dir, 'elsewhere');
    await fs.mkdir(path.join(folder, 'a'), { recursive: true });
    await fs.mkdir(elsewhere);
    await fs.writeFile(path.join(elsewhere, 'Jones - 2021 - Linked papers are read too.pdf'), 'x');
    await fs.writeFile(path.join(elsewhere, 'kept.pdf'), 'x');
    await fs.symlink(folder, path.join(folder, 'a', 'back-to-top'));
    await fs.symlink('.', path.join(folder, 'a', 'itself'));
    await fs.symlink(path.join(folder, 'a', 'loop'), path.join(folder, 'a', 'loop'));
    await fs.symlink(elsewhere, path.join(folder, 'a', 'elsewhere'));
    await fs.symlink(path.join(elsewhere, 'kept.pdf'), path.join(folder, 'Brown - 2019 - A linked PDF file here.pdf'));
    await fs.symlink(path.join(temp.dir, 'gone'), path.join(folder, 'dangling'));
    const pdfs = new PdfFolder(folder);
    const reads = await readsDuring(async () => {
      assert.equal(await pdfs.find('Linked papers are read too', {}), path.join(folder, 'a', 'elsewhere', 'Jones - 2021 - Linked papers are read too.pdf'));
      assert.equal(await pdfs.find('A linked PDF file here', {}), path.join(folder, 'Brown - 2019 - A linked PDF file here.pdf'));
    });
    assert.deepEqual([...reads.values()], [1, 1, 1]);
    // The link to itself cannot be followed: it is named, never taken for "no PDF".
    assert.match((await pdfs.unsearched()) ?? '', /1 folder could not be read and was skipped: .*loop \(ELOOP\)/);
  });

  it('stops at its limits and says so once, giving it as the reason for a work it did not find', async () => {
    const folder = path.join(temp.dir, 'pdfs');
    const deep = path.join(folder, 'one', 'two', 'three', 'four');
    await fs.mkdir(deep, { recursive: true });
    await fs.writeFile(path.join(deep, 'Smith - 2020 - Caching at scale in data centres.pdf'), 'x');
    const warnings: string[] = [];
    const provide = fullTextProvider({ pdfFolder: folder }, (message) => warnings.push(message));
    for (const title of ['Caching at scale in data centres', 'Unrelated work on other matters']) {
      const result = await provide(titled(title), {});
      assert.deepEqual(result, { reason: `not found in the PDF folder, which was not searched in full: folders more than 3 levels down, such as ${deep}, were not searched` });
    }
    assert.deepEqual(warnings, [`The PDF folder ${folder} was not searched in full: folders more than 3 levels down, such as ${deep}, were not searched.`]);

    for (let i = 0; i < 30; i++) await fs.writeFile(path.join(folder, `file ${i}.txt`), '');
    const crowded = new PdfFolder(folder, undefined, { maxDepth: 5, maxEntries: 20 });
    assert.equal(await crowded.find('Caching at scale in data centres', {}), undefined);
    assert.equal(await crowded.unsearched(), 'it holds more than 20 files and folders, and those after them were not searched');
    assert.equal(await new PdfFolder(path.join(temp.dir, 'nowhere')).unsearched(), 'it does not exist');
  });

  it('skips a folder it may not read, names it, and finds the PDFs of the others', async function () {
    skipUnlessModesApply(this, require.resolve('../../../../src/core/fulltext/localPdfs'));
    const folder = path.join(temp.dir, 'pdfs');
    await fs.mkdir(path.join(folder, 'open'), { recursive: true });
    await fs.mkdir(path.join(folder, 'locked'));
    await fs.writeFile(path.join(folder, 'open', 'Smith - 2020 - Caching at scale in data centres.pdf'), 'x');
    await fs.writeFile(path.join(folder, 'locked', 'Jones - 2021 - Hidden away from view.pdf'), 'x');
    await fs.chmod(path.join(folder, 'locked'), 0o000);
    await fs.chmod(temp.dir, 0o755);
    const titles = ['Caching at scale in data centres', 'Hidden away from view'];
    const walk = async (Folder: typeof PdfFolder): Promise<string> => {
      const warnings: string[] = [];
      const pdfs = new Folder(folder, (message) => warnings.push(message));
      const found = [await pdfs.find(titles[0], {}), await pdfs.find(titles[1], {})];
      return JSON.stringify({ found, unsearched: await pdfs.unsearched(), warnings });
    };
    // Under root, the walk runs as `nobody`, whom the folder's mode denies: the same steps in a child process.
    const module = JSON.stringify(require.resolve('../../../../src/core/fulltext/localPdfs'));
    const script = `const folder = ${JSON.stringify(folder)}, titles = ${JSON.stringify(titles)};
      (${walk.toString()})(require(${module}).PdfFolder).then((out) => process.stdout.write(out));`;
    const outcome = JSON.parse(await asUnprivilegedUser(() => walk(PdfFolder), script)) as { found: (string | null)[]; unsearched: string; warnings: string[] };
    assert.deepEqual(outcome.found, [path.join(folder, 'open', 'Smith - 2020 - Caching at scale in data centres.pdf'), null]);
    assert.equal(outcome.unsearched, `1 folder could not be read and was skipped: ${path.join(folder, 'locked')} (permission denied)`);
    assert.equal(outcome.warnings.length, 1);
    await fs.chmod(path.join(folder, 'locked'), 0o755);
  });
});
