import assert from 'node:assert/strict';
import { BibliographicServer } from '../../../../bench/support/bibliographicServer';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { CrossrefSource } from '../../../../src/core/sources/crossref';
import { OpenAlexSource } from '../../../../src/core/sources/openalex';
import { SemanticScholarSource } from '../../../../src/core/sources/semanticscholar';
import type { SourceRecord } from '../../../../src/core/sources/types';
import { nearestRecords } from '../../../../src/core/verify/nearest';
import { ScriptedServer, sendText } from '../../support/server';

const RESNET: SourceRecord = {
  source: 'crossref',
  id: 'resnet',
  title: 'Deep Residual Learning for Image Recognition',
  authors: [
    { family: 'He', given: 'Kaiming' },
    { family: 'Zhang', given: 'Xiangyu' },
  ],
  year: 2016,
  venue: 'CVPR',
  doi: '10.1109/cvpr.2016.90',
};
const OTHERS: SourceRecord[] = [
  {
    source: 'crossref',
    id: 'identity',
    title: 'Identity Mappings in Deep Residual Networks',
    authors: [{ family: 'He', given: 'Kaiming' }],
    year: 2016,
    doi: '10.1007/978-3-319-46493-0_38',
  },
  { source: 'crossref', id: 'lstm', title: 'Long Short-Term Memory', authors: [{ family: 'Hochreiter', given: 'Sepp' }], year: 1997, doi: '10.1162/neco.1997.9.8.1735' },
];

/** Works that share words with a made-up reference and nothing else: other titles, authors, years and venues. */
const LOOKALIKES: SourceRecord[] = [
  {
    source: 'crossref',
    id: 'l1',
    title: 'Gradient-based learning applied to document recognition',
    authors: [{ family: 'LeCun', given: 'Yann' }],
    year: 1998,
    venue: 'Proceedings of the IEEE',
    doi: '10.1109/5.726791',
  },
  {
    source: 'crossref',
    id: 'l2',
    title: 'Highly accurate protein structure prediction with AlphaFold',
    authors: [{ family: 'Jumper', given: 'John' }],
    year: 2021,
    venue: 'Nature',
    doi: '10.1038/s41586-021-03819-2',
  },
  { source: 'crossref', id: 'l3', title: 'Quantum machine learning', authors: [{ family: 'Biamonte', given: 'Jacob' }], year: 2017, venue: 'Nature', doi: '10.1038/nature23474' },
  {
    source: 'crossref',
    id: 'l4',
    title: 'Graph networks for protein folding kinetics',
    authors: [{ family: 'Noé', given: 'Frank' }],
    year: 2019,
    venue: 'Science',
    doi: '10.1126/science.aaw1147',
  },
  {
    source: 'crossref',
    id: 'l5',
    title: 'Quantum gradient descent and Newton’s method',
    authors: [{ family: 'Rebentrost', given: 'Patrick' }],
    year: 2019,
    venue: 'New Journal of Physics',
    doi: '10.1088/1367-2630/ab2a9e',
  },
];

describe('the real paper behind a reference no source has', () => {
  const server = new BibliographicServer([RESNET, ...OTHERS, ...LOOKALIKES]);
  let base = '';
  before(async () => {
    base = await server.start();
  });
  after(() => server.stop());

  const sourcesAt = (url: string) => [
    new CrossrefSource({ baseUrl: `${url}/crossref`, requestsPerSecond: 100 }),
    new OpenAlexSource({ baseUrl: `${url}/openalex`, requestsPerSecond: 100 }),
  ];
  // A misremembered title, year and co-author list by the right first author: the citation of a real paper, badly kept.
  const [misremembered] = parseBibliography('@article{he2019deep, title={Deep Residual Networks for Image Recognition}, author={He, Kaiming}, year={2019}}', '/p/refs.bib').entries;

  it("offers the record that is the entry's work, each work once, with what differs from the entry", async () => {
    const { records, failures, answered } = await nearestRecords(misremembered, sourcesAt(base));
    assert.deepEqual(failures, []);
    assert.equal(answered, true);
    assert.deepEqual(
      records.map((r) => r.record.title),
      [RESNET.title],
      "Crossref and OpenAlex both have it, listed once; the same author's other paper is not it",
    );
    assert.deepEqual(records[0].differences.map((d) => d.field).sort(), ['authors', 'title', 'year']);
    assert.deepEqual(
      records[0].differences.find((d) => d.field === 'year'),
      { field: 'year', status: 'differ', expected: '2019', found: '2016' },
    );
  });

  it('offers nothing for a made-up reference, however many works share its words', async () => {
    const [fabricated] = parseBibliography(
      '@article{smith2021quantum, title={Quantum Gradient Networks for Protein Folding Prediction}, author={Smith, Alex and Doe, Jane}, journal={Nature Methods}, year={2021}}',
      '/p/refs.bib',
    ).entries;
    const [crossref] = sourcesAt(base);
    const returned = await crossref.search({ title: fabricated.title ?? '', limit: 5 });
    assert.equal(returned.length, 5, 'the source answers with five works that share words with the entry');
    const { records, failures, answered } = await nearestRecords(fabricated, sourcesAt(base));
    assert.deepEqual(failures, []);
    assert.equal(answered, true, 'the sources answered: finding nothing is their answer');
    assert.deepEqual(
      records.map((r) => r.record.title),
      [],
    );
  });

  it('offers nothing either for a close title by someone else: the same words around a made-up author are not the paper', async () => {
    const [madeUp] = parseBibliography('@article{smith2017deep, title={Deep Residual Networks for Image Recognition}, author={Smith, Alex}, year={2019}}', '/p/refs.bib').entries;
    const { records } = await nearestRecords(madeUp, sourcesAt(base));
    assert.deepEqual(
      records.map((r) => r.record.title),
      [],
    );
  });

  it('names a source it could not search and offers what the others found', async () => {
    const down = await ScriptedServer.start((_, res) => sendText(res, 200, ''));
    const gone = down.baseUrl;
    await down.close();
    const sources = [new CrossrefSource({ baseUrl: `${base}/crossref`, requestsPerSecond: 100 }), new SemanticScholarSource({ baseUrl: gone, requestsPerSecond: 100 })];
    const { records, failures } = await nearestRecords(misremembered, sources);
    assert.equal(records[0]?.record.title, RESNET.title);
    assert.equal(failures.length, 1, failures.join('\n'));
    assert.match(failures[0], /^Semantic Scholar: Could not reach 127\.0\.0\.1:\d+/);
  });

  it('says when no source answered, so that finding nothing is not read as a made-up reference', async () => {
    const down = await ScriptedServer.start((_, res) => sendText(res, 200, ''));
    const gone = down.baseUrl;
    await down.close();
    const { records, failures, answered } = await nearestRecords(misremembered, sourcesAt(gone));
    assert.deepEqual(records, []);
    assert.equal(answered, false);
    assert.equal(failures.length, 2, failures.join('\n'));
  });
});
