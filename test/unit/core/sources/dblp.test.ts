import assert from 'node:assert/strict';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import type { BibEntry } from '../../../../src/core/bibliography/types';
import { sourcesConfigFrom } from '../../../../src/core/sources/config';
import { DblpSource, parseDblpSearch } from '../../../../src/core/sources/dblp';
import { createSources } from '../../../../src/core/sources/registry';
import type { PaperSource, SourceRecord } from '../../../../src/core/sources/types';
import { resolveEntry } from '../../../../src/core/verify/existence';
import { isNotAsked } from '../../support/helpers';
import { sourceFixture } from '../../support/fixtures';
import { ScriptedServer, sendJson, sendText } from '../../support/server';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const RESNET = sourceFixture('dblp/search-resnet.json');
const ONE_AUTHOR = sourceFixture('dblp/search-one-author.json');
const EMPTY = sourceFixture('dblp/search-empty.json');

const RESNET_CVPR: SourceRecord = {
  source: 'dblp',
  id: 'conf/cvpr/HeZRS16',
  url: 'https://dblp.org/rec/conf/cvpr/HeZRS16',
  title: 'Deep Residual Learning for Image Recognition',
  authors: [
    { family: 'He', given: 'Kaiming' },
    { family: 'Zhang', given: 'Xiangyu' },
    { family: 'Ren', given: 'Shaoqing' },
    { family: 'Sun', given: 'Jian' },
  ],
  year: 2016,
  venue: 'CVPR',
  doi: '10.1109/cvpr.2016.90',
};

const { failsWith, assertMalformed } = sourceErrorAsserts('dblp');

function entry(bibtex: string): BibEntry {
  const [parsed] = parseBibliography(bibtex, '/p/refs.bib').entries;
  return parsed;
}

describe('DBLP', () => {
  let server: ScriptedServer;
  beforeEach(
    async () =>
      (server = await ScriptedServer.start((request, response) => {
        const q = new URL(request.url ?? '/', 'http://localhost').searchParams.get('q');
        sendJson(response, 200, q === 'Deep Residual Learning for Image Recognition' ? RESNET : EMPTY);
      })),
  );
  afterEach(async () => server.close());
  const source = (): DblpSource => new DblpSource({ baseUrl: server.baseUrl, requestsPerSecond: 1000 });

  it('reads hits: titles without their full stop, homonym numbers left out of names, CoRR as a preprint with its arXiv id', () => {
    const [cvpr, corr] = parseDblpSearch(RESNET);
    assert.deepEqual(cvpr, RESNET_CVPR);
    assert.deepEqual([corr.venue, corr.preprint, corr.arxivId, corr.year], ['CoRR', true, '1512.03385', 2015]);
  });

  it('reads a single hit and a single author given as objects, a venue given as a list, and no hits', () => {
    const [note] = parseDblpSearch(ONE_AUTHOR);
    assert.deepEqual([note.title, note.authors, note.venue], ['A Single-Author Note on Caches', [{ family: 'Example', given: 'Ann' }], 'SIGMOD Rec.']);
    assert.deepEqual(parseDblpSearch(EMPTY), []);
  });

  it('asks with the title as plain words, in JSON, for the number of hits asked', async () => {
    const records = await source().search({ title: 'Deep Residual Learning for Image Recognition.', authors: ['He'], year: 2016, limit: 3 });
    assert.equal(records.length, 2);
    const asked = new URL(server.urls[0], 'http://localhost').searchParams;
    assert.deepEqual([asked.get('q'), asked.get('format'), asked.get('h')], ['Deep Residual Learning for Image Recognition', 'json', '3']);
    assert.ok(isNotAsked(await failsWith(source().search({ title: '???' }), 'unavailable')));
  });

  it('treats an answer of another shape as a failure, never as "no such publication"', async () => {
    assertMalformed(() => parseDblpSearch({ result: { status: { '@code': '200' } } }));
    assertMalformed(() => parseDblpSearch({ result: { hits: { hit: [{ info: { title: 'No key.' } }] } } }));
    const broken = await ScriptedServer.start((_request, response) => sendText(response, 200, '<html>maintenance</html>', { 'content-type': 'text/html' }));
    try {
      await failsWith(new DblpSource({ baseUrl: broken.baseUrl, requestsPerSecond: 1000 }).search({ title: 'Deep Residual Learning' }), 'malformed');
    } finally {
      await broken.close();
    }
  });

  it('is a source the settings can enable, and finds a conference paper other sources miss', async () => {
    const { config } = sourcesConfigFrom((key) => ({ 'attest.sources.enabled': ['dblp'], 'attest.sources.dblp.baseUrl': server.baseUrl })[key]);
    const [dblp] = createSources(config, {});
    assert.equal(dblp.name, 'DBLP');
    const empty: PaperSource = { id: 'crossref', name: 'Crossref', search: async () => [] };
    const verdict = await resolveEntry(
      entry(
        '@inproceedings{he2016, title={Deep Residual Learning for Image Recognition}, author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian}, booktitle={CVPR}, year={2016}}',
      ),
      [empty, dblp],
    );
    assert.equal(verdict.status, 'found');
    assert.equal(verdict.status === 'found' && verdict.record.id, 'conf/cvpr/HeZRS16');
  });
});
