import assert from 'node:assert/strict';
import { BibliographicServer } from '../../bench/support/bibliographicServer';
import { parseBibliography } from '../../src/core/bibliography/parse';
import { CrossrefSource } from '../../src/core/sources/crossref';
import { OpenAlexSource } from '../../src/core/sources/openalex';
import { SemanticScholarSource } from '../../src/core/sources/semanticscholar';
import type { SourceRecord } from '../../src/core/sources/types';
import { nearestRecords } from '../../src/core/verify/nearest';
import { ScriptedServer, sendText } from './support/server';

const RESNET: SourceRecord = {
  source: 'crossref',
  id: 'resnet',
  title: 'Deep Residual Learning for Image Recognition',
  authors: [{ family: 'He', given: 'Kaiming' }, { family: 'Zhang', given: 'Xiangyu' }],
  year: 2016,
  venue: 'CVPR',
  doi: '10.1109/cvpr.2016.90',
};
const OTHERS: SourceRecord[] = [
  { source: 'crossref', id: 'identity', title: 'Identity Mappings in Deep Residual Networks', authors: [{ family: 'He', given: 'Kaiming' }], year: 2016, doi: '10.1007/978-3-319-46493-0_38' },
  { source: 'crossref', id: 'lstm', title: 'Long Short-Term Memory', authors: [{ family: 'Hochreiter', given: 'Sepp' }], year: 1997, doi: '10.1162/neco.1997.9.8.1735' },
];

describe('the real paper behind a reference no source has', () => {
  const server = new BibliographicServer([RESNET, ...OTHERS]);
  let base = '';
  before(async () => {
    base = await server.start();
  });
  after(() => server.stop());

  // A made-up author and year around a misremembered title: what a language model's reference looks like.
  const [entry] = parseBibliography('@article{smith2017deep, title={Deep Residual Networks for Image Recognition}, author={Smith, Alex}, year={2019}}', '/p/refs.bib').entries;

  it('offers the closest records of the sources, each work once, with what differs from the entry', async () => {
    const sources = [new CrossrefSource({ baseUrl: `${base}/crossref`, requestsPerSecond: 100 }), new OpenAlexSource({ baseUrl: `${base}/openalex`, requestsPerSecond: 100 })];
    const { records, failures } = await nearestRecords(entry, sources);
    assert.deepEqual(failures, []);
    assert.equal(records[0]?.record.title, RESNET.title);
    assert.deepEqual(records[0].differences.map((d) => d.field).sort(), ['authors', 'title', 'year']);
    assert.deepEqual(records[0].differences.find((d) => d.field === 'year'), { field: 'year', status: 'differ', expected: '2019', found: '2016' });
    const titles = records.map((r) => r.record.title);
    assert.equal(new Set(titles).size, titles.length, `Crossref and OpenAlex both have it, listed once: ${titles.join(' | ')}`);
    assert.ok(!titles.includes('Long Short-Term Memory'), 'a record sharing no word of the title is not offered');
  });

  it('names a source it could not search and offers what the others found', async () => {
    const down = await ScriptedServer.start((_, res) => sendText(res, 200, ''));
    const gone = down.baseUrl;
    await down.close();
    const sources = [new CrossrefSource({ baseUrl: `${base}/crossref`, requestsPerSecond: 100 }), new SemanticScholarSource({ baseUrl: gone, requestsPerSecond: 100 })];
    const { records, failures } = await nearestRecords(entry, sources);
    assert.equal(records[0]?.record.title, RESNET.title);
    assert.equal(failures.length, 1, failures.join('\n'));
    assert.match(failures[0], /^Semantic Scholar: Could not reach 127\.0\.0\.1:\d+/);
  });
});
