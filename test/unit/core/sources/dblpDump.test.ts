import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { sourcesConfigFrom } from '../../../../src/core/sources/config';
import { parseDblpSearch } from '../../../../src/core/sources/dblp';
import { DblpDumpSource } from '../../../../src/core/sources/dblpDump/source';
import { createSources } from '../../../../src/core/sources/registry';
import { SourceError, type PaperSource, type PrepareProgress } from '../../../../src/core/sources/types';
import { resolveEntry } from '../../../../src/core/verify/existence';
import { FIXTURES } from '../../support/helpers';
import { sourceFixture } from '../../support/fixtures';

const DUMP = path.join(FIXTURES, 'sources/dblp/dump.xml');

describe("DBLP's XML dump", () => {
  let dir: string;
  let text: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-dblp-dump-'));
    text = await fs.readFile(DUMP, 'latin1');
  });
  afterEach(async () => fs.rm(dir, { recursive: true, force: true }));

  /** A source over a dump written into the test's folder, indexed in its `index` folder. */
  async function sourceOver(content: string | Buffer, name = 'dblp.xml'): Promise<DblpDumpSource> {
    const file = path.join(dir, name);
    await fs.writeFile(file, content);
    return new DblpDumpSource({ file, folder: path.join(dir, 'index') });
  }

  async function titles(source: DblpDumpSource, title: string): Promise<string[]> {
    return (await source.search({ title })).map((record) => record.title);
  }

  async function failure(promise: Promise<unknown>): Promise<SourceError> {
    const error = await promise.then(
      () => assert.fail('expected the lookup to fail'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof SourceError, `expected a SourceError, got ${String(error)}`);
    return error;
  }

  it("finds a paper by its title, with the record DBLP's search API gives for it", async () => {
    const source = await sourceOver(text);
    const [online] = parseDblpSearch(sourceFixture('dblp/search-resnet.json'));
    const found = await source.search({ title: 'Deep residual learning for image recognition' });
    assert.deepEqual(found[0], online);
    assert.deepEqual(
      found.map((r) => [r.id, r.venue, r.preprint, r.arxivId]),
      [
        ['conf/cvpr/HeZRS16', 'CVPR', undefined, undefined],
        ['journals/corr/HeZRS15', 'CoRR', true, '1512.03385'],
      ],
    );
  });

  it("decodes dblp.dtd's HTML entities and keeps the text of a title's markup", async () => {
    const source = await sourceOver(text);
    const [lstm] = await source.search({ title: 'Long short-term memory' });
    assert.deepEqual(lstm.authors[1], { given: 'Jürgen', family: 'Schmidhuber' });
    assert.equal(lstm.doi, '10.1162/neco.1997.9.8.1735');
    assert.deepEqual(await titles(source, 'Gödel, Escher, Bach'), ['Gödel, Escher, Bach: An Eternal Golden Braid']);
    assert.deepEqual(await titles(source, 'Verifikation & Test nebenläufiger Systeme'), ['Verifikation & Test nebenläufiger Systeme']);
    assert.deepEqual(await titles(source, 'k-means++: The Advantages of Careful Seeding'), ['k-means++: the advantages of careful seeding']);
  });

  it('reads a gzipped dump as it is downloaded', async () => {
    const source = await sourceOver(gzipSync(Buffer.from(text, 'latin1')), 'dblp.xml.gz');
    assert.deepEqual(await titles(source, 'Long Short-Term Memory'), ['Long Short-Term Memory']);
  });

  it("lists a volume's editors as its authors, and leaves out person records", async () => {
    const source = await sourceOver(text);
    const [volume] = await source.search({ title: 'IEEE Conference on Computer Vision and Pattern Recognition 2016' });
    assert.deepEqual(volume.authors, [{ given: 'Ruzena', family: 'Bajcsy' }]);
    assert.deepEqual(await titles(source, 'Home Page'), []);
  });

  it('finds nothing for a title no record comes near', async () => {
    const source = await sourceOver(text);
    assert.deepEqual(await source.search({ title: 'Quantum entanglement of migratory songbirds' }), []);
  });

  it('indexes an unchanged dump once, and a changed one again', async () => {
    const first = await sourceOver(text);
    const progress: PrepareProgress[] = [];
    await first.prepare({ onProgress: (step) => progress.push(step) });
    assert.ok(progress.length > 0 && progress[progress.length - 1].records === 7, 'the first preparation indexes the dump');

    const again: PrepareProgress[] = [];
    const unchanged = new DblpDumpSource({ file: path.join(dir, 'dblp.xml'), folder: path.join(dir, 'index') });
    await unchanged.prepare({ onProgress: (step) => again.push(step) });
    assert.deepEqual(again, [], 'an unchanged dump is not read again');

    const added = text.replace(
      '</dblp>',
      '<article mdate="2024-01-01" key="journals/jmlr/Example24"><author>Ada Lovelace</author><title>Attention Is Not All You Need Here.</title><journal>J. Mach. Learn. Res.</journal><year>2024</year></article>\n</dblp>',
    );
    const changed = await sourceOver(added);
    assert.deepEqual(await titles(changed, 'Attention is not all you need here'), ['Attention Is Not All You Need Here']);
    const files = (await fs.readdir(path.join(dir, 'index'))).filter((name) => name.endsWith('.records'));
    assert.equal(files.length, 1, "the earlier index's files are removed");
  });

  it('says a truncated dump is incomplete, builds no index from it, and never answers from part of it', async () => {
    const source = await sourceOver(text.slice(0, text.indexOf('<book')));
    const error = await failure(source.search({ title: 'Long Short-Term Memory' }));
    assert.equal(error.kind, 'unavailable');
    assert.match(error.message, /cut short or damaged.*download it again from https:\/\/dblp\.org\/xml\//);
    assert.ok(!(await fs.readdir(path.join(dir, 'index'))).some((name) => name === 'index.json' || name.endsWith('.records')));
  });

  it('says a truncated gzip file is damaged', async () => {
    const gz = gzipSync(Buffer.from(text, 'latin1'));
    const source = await sourceOver(gz.subarray(0, gz.length - 40), 'dblp.xml.gz');
    assert.match((await failure(source.search({ title: 'Long Short-Term Memory' }))).message, /could not be read to its end.*gzip file is damaged or incomplete/);
  });

  it("says a file that is not DBLP's XML is not, and a missing one how to set it", async () => {
    const page = await sourceOver('<!DOCTYPE html><html><body>Not Found</body></html>', 'dblp.html');
    assert.match((await failure(page.search({ title: 'Long Short-Term Memory' }))).message, /is not DBLP's XML dump \(its root element is <html>/);
    const missing = new DblpDumpSource({ file: path.join(dir, 'nowhere.xml.gz'), folder: path.join(dir, 'index') });
    assert.match((await failure(missing.search({ title: 'Long Short-Term Memory' }))).message, /cannot be read \(ENOENT\); set attest\.sources\.dblp\.dumpFile/);
  });

  it('leaves no index behind when its building is cancelled', async () => {
    const source = await sourceOver(text);
    const cancel = new AbortController();
    cancel.abort();
    const error = await failure(source.prepare({ signal: cancel.signal }));
    assert.match(error.message, /was cancelled/);
    assert.deepEqual(await fs.readdir(path.join(dir, 'index')).catch(() => []), []);
  });

  it("is one field's index to the existence check: found as cited, but its silence and its failure never make a reference not found", async () => {
    const source = await sourceOver(text);
    const entry = (bibtex: string) => parseBibliography(bibtex, '/p/refs.bib').entries[0];
    const lstm = entry('@article{h, title={Long Short-Term Memory}, author={Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen}, journal={Neural Comput.}, year={1997}}');
    assert.equal((await resolveEntry(lstm, [source])).status, 'found');
    const invented = entry('@article{x, title={Recurrent Songbird Networks for Migratory Prediction}, author={Nobody, Anne}, journal={Neural Computation}, year={2021}}');
    // arXiv, of one kind of work too, finding nothing either: two such silences are no verdict.
    const arxiv: PaperSource = { id: 'arxiv', name: 'arXiv', partialCoverage: true, search: async () => [] };
    assert.equal((await resolveEntry(invented, [source, arxiv])).status, 'unchecked');
    const broken = new DblpDumpSource({ file: path.join(dir, 'nowhere.xml'), folder: path.join(dir, 'index') });
    const verdict = await resolveEntry(lstm, [broken]);
    assert.equal(verdict.status, 'unchecked');
    assert.match(verdict.status === 'unchecked' ? verdict.reason : '', /DBLP: DBLP's dump .*cannot be read/);
  });

  it("answers for DBLP when attest.sources.dblp.dumpFile is set, read against the settings file's folder", () => {
    const settings: Record<string, unknown> = { 'attest.sources.enabled': ['crossref', 'dblp'], 'attest.sources.dblp.dumpFile': 'data/dblp.xml.gz' };
    const { config, problems } = sourcesConfigFrom((key) => settings[key], undefined, '/home/writer/paper');
    assert.deepEqual(problems, []);
    assert.equal(config.dblpDumpFile, path.resolve('/home/writer/paper', 'data/dblp.xml.gz'));
    const [, dblp] = createSources(config, {}, undefined, undefined, dir);
    assert.ok(dblp instanceof DblpDumpSource);
    const unused = sourcesConfigFrom((key) => ({ ...settings, 'attest.sources.enabled': ['crossref'] })[key]);
    assert.match(unused.problems.join('\n'), /dumpFile is set, but dblp is not in attest\.sources\.enabled/);
  });
});
