import assert from 'node:assert/strict';
import { parseBibliography } from '../../src/core/bibliography/parse';
import type { BibEntry } from '../../src/core/bibliography/types';
import { SourceError, type BibliographicQuery, type PaperSource, type SourceId, type SourceRecord } from '../../src/core/sources/types';
import { resolveEntry } from '../../src/core/verify/existence';
import { referenceFindings, verifyEntries } from '../../src/core/verify/references';

const RESNET: SourceRecord = {
  source: 'crossref',
  id: '10.1109/cvpr.2016.90',
  title: 'Deep Residual Learning for Image Recognition',
  authors: [
    { family: 'He', given: 'Kaiming' },
    { family: 'Zhang', given: 'Xiangyu' },
    { family: 'Ren', given: 'Shaoqing' },
    { family: 'Sun', given: 'Jian' },
  ],
  year: 2016,
  venue: '2016 IEEE Conference on Computer Vision and Pattern Recognition (CVPR)',
  doi: '10.1109/cvpr.2016.90',
};

const LSTM: SourceRecord = {
  source: 'openalex',
  id: 'W2064675550',
  title: 'Long Short-Term Memory',
  authors: [{ family: 'Hochreiter', given: 'Sepp' }, { family: 'Schmidhuber', given: 'Jürgen' }],
  year: 1997,
  venue: 'Neural Computation',
  doi: '10.1162/neco.1997.9.8.1735',
};

/** A source that knows some records, or fails every request with `failure`. */
class FakeSource implements PaperSource {
  readonly name: string;
  readonly queries: BibliographicQuery[] = [];
  readonly dois: string[] = [];

  constructor(
    readonly id: SourceId,
    private readonly records: readonly SourceRecord[],
    private readonly failure?: SourceError,
  ) {
    this.name = id;
  }

  async byDoi(doi: string): Promise<SourceRecord | undefined> {
    this.dois.push(doi);
    if (this.failure) throw this.failure;
    return this.records.find((r) => r.doi === doi.toLowerCase());
  }

  async search(query: BibliographicQuery): Promise<SourceRecord[]> {
    this.queries.push(query);
    if (this.failure) throw this.failure;
    const words = query.title.toLowerCase().split(/\W+/).filter((w) => w.length > 3);
    return this.records.filter((r) => words.some((w) => r.title.toLowerCase().includes(w)));
  }
}

function entry(bibtex: string): BibEntry {
  const [parsed] = parseBibliography(bibtex, '/p/refs.bib').entries;
  return parsed;
}

const resnetEntry = (fields: string): BibEntry =>
  entry(`@inproceedings{he2016, title={Deep Residual Learning for Image Recognition}, author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian}, booktitle={CVPR}, ${fields}}`);

const down = (id: SourceId): FakeSource => new FakeSource(id, [], new SourceError('unavailable', `${id} is down`, id));

describe('reference existence', () => {
  it('finds a correct entry by its DOI and asks nothing more', async () => {
    const crossref = new FakeSource('crossref', [RESNET]);
    const openalex = new FakeSource('openalex', [RESNET]);
    const verdict = await resolveEntry(resnetEntry('year={2016}, doi={10.1109/CVPR.2016.90}'), [crossref, openalex]);
    assert.equal(verdict.status, 'found');
    assert.equal(verdict.status === 'found' && verdict.via, 'doi');
    assert.equal(openalex.dois.length + openalex.queries.length + crossref.queries.length, 0);
  });

  it('reports the fields that differ when the DOI names the same work with other metadata', async () => {
    const verdict = await resolveEntry(resnetEntry('year={2019}, doi={10.1109/cvpr.2016.90}'), [new FakeSource('crossref', [RESNET])]);
    assert.equal(verdict.status, 'metadata-mismatch');
    assert.deepEqual(verdict.status === 'metadata-mismatch' && verdict.differences.map((d) => [d.field, d.expected, d.found]), [['year', '2019', '2016']]);
  });

  it('finds an entry without identifiers by title, first author and year', async () => {
    const crossref = new FakeSource('crossref', []);
    const openalex = new FakeSource('openalex', [LSTM]);
    const verdict = await resolveEntry(entry('@article{h97, title={Long short-term memory}, author={Hochreiter, S. and Schmidhuber, J.}, journal={Neural Computation}, year={1997}}'), [crossref, openalex]);
    assert.equal(verdict.status, 'found');
    assert.equal(verdict.status === 'found' && verdict.record.id, 'W2064675550');
    assert.deepEqual(crossref.queries[0], { title: 'Long short-term memory', authors: ['Hochreiter', 'Schmidhuber'], year: 1997, limit: 5 });
  });

  it('calls a reference no source knows possibly fabricated, naming the sources asked', async () => {
    const fabricated = entry('@article{x, title={Quantum Gradient Descent Eliminates Citation Errors}, author={Nguyen, Linh}, journal={Nature}, year={2023}}');
    const verdict = await resolveEntry(fabricated, [new FakeSource('crossref', [RESNET]), new FakeSource('openalex', [LSTM]), new FakeSource('semanticscholar', [])]);
    assert.deepEqual(verdict, { status: 'not-found', asked: ['crossref', 'openalex', 'semanticscholar'], doiNamesOther: undefined });
  });

  it('says when a DOI belongs to a different work and the cited title exists nowhere', async () => {
    const chimera = entry('@article{x, title={Residual Attention for Citation Checking}, author={Smith, A.}, year={2021}, doi={10.1109/cvpr.2016.90}}');
    const verdict = await resolveEntry(chimera, [new FakeSource('crossref', [RESNET]), new FakeSource('openalex', [])]);
    assert.equal(verdict.status, 'not-found');
    assert.equal(verdict.status === 'not-found' && verdict.doiNamesOther?.title, RESNET.title);
  });

  it('reports a DOI that no source knows when the work is found by its title', async () => {
    const made = entry('@article{h97, title={Long short-term memory}, author={Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen}, journal={Neural Computation}, year={1997}, doi={10.9999/fake.123}}');
    const verdict = await resolveEntry(made, [new FakeSource('crossref', []), new FakeSource('openalex', [LSTM])]);
    assert.equal(verdict.status, 'metadata-mismatch');
    const doi = verdict.status === 'metadata-mismatch' ? verdict.differences.find((d) => d.field === 'doi') : undefined;
    assert.equal(doi?.expected, '10.9999/fake.123');
    assert.equal(doi?.found, LSTM.doi);
    const onlyOneAsked = await resolveEntry(made, [new FakeSource('openalex', [{ ...LSTM, doi: undefined }])]);
    assert.equal(onlyOneAsked.status, 'found', 'one index not knowing a DOI is not proof it does not exist');
    const bothAsked = await resolveEntry(made, [new FakeSource('crossref', []), new FakeSource('openalex', [{ ...LSTM, doi: undefined }])]);
    assert.match(bothAsked.status === 'metadata-mismatch' ? bothAsked.differences[0].found ?? '' : '', /no such DOI in crossref, openalex|no such DOI in Crossref, OpenAlex/);
  });

  it('never calls a reference fabricated when sources could not answer', async () => {
    const real = entry('@article{x, title={Made up or not}, author={Doe, Q.}, year={2020}}');
    const allDown = await resolveEntry(real, [down('crossref'), down('openalex')]);
    assert.equal(allDown.status, 'unchecked');
    assert.match(allDown.status === 'unchecked' ? allDown.reason : '', /crossref is down/);
    const oneAnswered = await resolveEntry(real, [new FakeSource('crossref', []), down('openalex'), down('semanticscholar')]);
    assert.equal(oneAnswered.status, 'unchecked');
    assert.equal((await resolveEntry(real, [])).status, 'unchecked');
  });

  it('does not call a web page or software fabricated when title searches miss it', async () => {
    const software = entry('@misc{tool, title={A plotting library nobody indexed}, author={Coder, A.}, year={2022}, howpublished={GitHub}}');
    const verdict = await resolveEntry(software, [new FakeSource('crossref', []), new FakeSource('openalex', [])]);
    assert.equal(verdict.status, 'unchecked');
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(resolveEntry(resnetEntry('year={2016}'), [new FakeSource('crossref', [RESNET])], controller.signal), /cancelled/);
  });

  it('looks each key up once, reports progress, and keeps the bibliography order', async () => {
    const entries = parseBibliography(
      '@article{b, title={Long short-term memory}, author={Hochreiter, S. and Schmidhuber, J.}, year={1997}}\n@article{a, title={Nothing like it}, year={2001}}\n@article{b, title={dup}}',
      '/p/refs.bib',
    ).entries;
    const progress: string[] = [];
    const verdicts = await verifyEntries(entries, [new FakeSource('crossref', [LSTM]), new FakeSource('openalex', [])], {
      onProgress: (done, total) => progress.push(`${done}/${total}`),
      concurrency: 2,
    });
    assert.deepEqual([...verdicts.keys()], ['b', 'a']);
    assert.deepEqual([...verdicts.values()].map((v) => v.verdict.status), ['found', 'not-found']);
    assert.deepEqual(progress, ['1/2', '2/2']);
  });

  it('reports a fabricated reference on its entry and on every citation of it; unchecked ones only on request', async () => {
    const entries = parseBibliography('@article{fake, title={An invented study of things}, year={2020}}\n@article{odd, title={Unreachable}, year={2020}}', '/p/refs.bib').entries;
    const sources = [new FakeSource('crossref', []), new FakeSource('openalex', [])];
    const verdicts = await verifyEntries(entries.slice(0, 1), sources);
    const unchecked = await verifyEntries(entries.slice(1), [down('crossref')]);
    const range = { start: { line: 3, character: 6 }, end: { line: 3, character: 10 } };
    const citations = [{ key: 'fake', command: '\\cite', file: '/p/main.tex', range }];
    const findings = referenceFindings(verdicts, citations, false);
    assert.deepEqual(findings.map((f) => [f.code, f.severity, f.file]), [['not-found', 'error', '/p/refs.bib'], ['not-found', 'error', '/p/main.tex']]);
    assert.match(findings[0].message, /No record of 'fake' in Crossref, OpenAlex; possibly fabricated\./);
    assert.deepEqual(findings[0].evidence?.asked, ['Crossref', 'OpenAlex']);
    assert.deepEqual(referenceFindings(unchecked, [], false), []);
    assert.deepEqual(referenceFindings(unchecked, [], true).map((f) => [f.code, f.severity]), [['unchecked', 'hint']]);
  });
});
