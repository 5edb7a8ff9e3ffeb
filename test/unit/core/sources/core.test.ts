import assert from 'node:assert/strict';
import type { CoreOptions } from '../../../../src/core/sources/core';
import { CoreSource, parseCoreSearch, parseCoreWork } from '../../../../src/core/sources/core';
import type { SourceRecord } from '../../../../src/core/sources/types';
import { sourceFixture } from '../../support/fixtures';
import type { Handler } from '../../support/server';
import { ScriptedServer, sendJson, sendText } from '../../support/server';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const BY_DOI = sourceFixture('core/search-doi.json');
const BY_TITLE = sourceFixture('core/search-title.json');
const EMPTY = sourceFixture('core/empty.json');
const KEY = 'core-key-5be21a';

const EFFICIENTNET: SourceRecord = {
  source: 'core',
  id: '78024171',
  url: 'https://core.ac.uk/works/78024171',
  title: 'EfficientNet: Rethinking Model Scaling for Convolutional Neural Networks',
  authors: [
    { family: 'Tan', given: 'Mingxing' },
    { family: 'Le', given: 'Quoc V.' },
  ],
  year: 2019,
  venue: undefined,
  doi: '10.48550/arxiv.1905.11946',
  arxivId: '1905.11946',
  abstract:
    'Convolutional Neural Networks (ConvNets) are commonly developed at a fixed resource budget, and then scaled up for better accuracy if more resources are available. ' +
    'In this paper, we systematically study model scaling and identify that carefully balancing network depth, width, and resolution can lead to better performance.',
  openAccessUrl: 'https://core.ac.uk/download/211848276.pdf',
};

const { failsWith, assertMalformed } = sourceErrorAsserts('core');

describe('CORE', () => {
  describe('reading works', () => {
    it('maps a work to a record: "Family, Given" names, versionless arXiv id, download link', () => {
      assert.deepEqual(parseCoreSearch(BY_DOI), [EFFICIENTNET]);
    });

    it('takes the journal, or the publisher without its quotes, as the venue', () => {
      const [stateOfOa, thesis] = parseCoreSearch(BY_TITLE);
      assert.equal(stateOfOa.venue, 'PeerJ');
      assert.equal(stateOfOa.doi, '10.7717/peerj.4375');
      assert.equal(stateOfOa.abstract?.startsWith('Despite growing interest'), true, 'markup stripped');
      assert.equal(stateOfOa.openAccessUrl, undefined, 'downloadUrl is "" when CORE has no copy');
      assert.deepEqual(stateOfOa.authors[2], { family: 'Larivière', given: 'Vincent' });
      assert.equal(thesis.venue, 'Elsevier BV');
      assert.equal(thesis.url, 'https://core.ac.uk/works/99000017');
      assert.equal(thesis.year, undefined);
      assert.equal(thesis.doi, undefined);
      assert.deepEqual(thesis.authors, [{ family: 'van der Berg', given: 'Ludwig' }], 'a blank name is left out');
    });

    it('rejects answers of the wrong shape as malformed', () => {
      assertMalformed(() => parseCoreSearch({ totalHits: 1 }));
      assertMalformed(() => parseCoreSearch({ results: {} }));
      assertMalformed(() => parseCoreWork({ id: '78024171', title: 'An id that is not a number' }));
      assertMalformed(() => parseCoreWork(null));
    });
  });

  describe('asking the API', () => {
    const servers: ScriptedServer[] = [];

    async function serve(handler: Handler): Promise<ScriptedServer> {
      const server = await ScriptedServer.start(handler);
      servers.push(server);
      return server;
    }

    function core(server: ScriptedServer, options: CoreOptions = { apiKey: KEY }): CoreSource {
      return new CoreSource({ baseUrl: server.baseUrl, requestsPerSecond: 1000, ...options });
    }

    function sent(server: ScriptedServer, index = 0): URL {
      return new URL(server.requests[index].url, server.baseUrl);
    }

    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it('without an API key refuses every lookup, names where to set one, and sends nothing', async () => {
      const server = await serve((_, res) => sendJson(res, 200, BY_DOI));
      const source = core(server, {});
      for (const lookup of [source.byDoi('10.48550/arXiv.1905.11946'), source.byArxivId('1905.11946'), source.search({ title: 'EfficientNet' })]) {
        const error = await failsWith(lookup, 'unauthorized');
        assert.match(error.message, /Attest: Set Source API Key/);
        assert.match(error.message, /ATTEST_CORE_API_KEY/);
      }
      assert.equal(server.requests.length, 0);
    });

    it('looks a DOI up with a doi:"…" query, sending the key as a bearer token and leaving out full texts', async () => {
      const server = await serve((_, res) => sendJson(res, 200, BY_DOI));
      assert.deepEqual(await core(server).byDoi('https://doi.org/10.48550/arXiv.1905.11946'), EFFICIENTNET);
      const [request] = server.requests;
      assert.equal(request.headers.authorization, `Bearer ${KEY}`);
      assert.ok(!request.url.includes(KEY), 'the key stays out of the URL');
      const url = sent(server);
      assert.equal(url.pathname, '/v3/search/works/');
      assert.equal(url.searchParams.get('q'), 'doi:"10.48550/arxiv.1905.11946"');
      assert.equal(url.searchParams.get('exclude'), 'fullText');
    });

    it('looks an arXiv id up with an arxivId:"…" query', async () => {
      const server = await serve((_, res) => sendJson(res, 200, BY_DOI));
      assert.deepEqual(await core(server).byArxivId('arXiv:1905.11946v2'), EFFICIENTNET);
      assert.equal(sent(server).searchParams.get('q'), 'arxivId:"1905.11946"');
    });

    it('answers undefined when no work has the identifier', async () => {
      const empty = await serve((_, res) => sendJson(res, 200, EMPTY));
      assert.equal(await core(empty).byDoi('10.1234/not-in-core'), undefined);
      const other = await serve((_, res) => sendJson(res, 200, BY_DOI));
      assert.equal(await core(other).byDoi('10.1234/other'), undefined, 'a work with another DOI is not an answer');
      assert.equal(await core(other).byArxivId('2301.00001'), undefined);
    });

    it('searches the title as a phrase', async () => {
      const server = await serve((_, res) => sendJson(res, 200, BY_TITLE));
      const records = await core(server).search({ title: 'The state of {OA}: "a large-scale analysis"', authors: ['Piwowar'], limit: 2 });
      assert.equal(records.length, 2);
      const url = sent(server);
      assert.equal(url.searchParams.get('q'), 'title:"The state of OA : a large-scale analysis"');
      assert.equal(url.searchParams.get('limit'), '2');
    });

    it('names the key setting when CORE refuses the key', async () => {
      const server = await serve((_, res) => sendJson(res, 401, { message: 'Invalid API key' }));
      const error = await failsWith(core(server).search({ title: 'EfficientNet' }), 'unauthorized');
      assert.match(error.message, /Attest: Set Source API Key/);
      assert.ok(!error.message.includes(KEY));
    });

    it('reports an answer of the wrong shape or not JSON as malformed', async () => {
      const wrongShape = await serve((_, res) => sendJson(res, 200, { message: 'Search is temporarily unavailable' }));
      await failsWith(core(wrongShape).byDoi('10.7717/peerj.4375'), 'malformed');
      const html = await serve((_, res) => sendText(res, 200, '<!DOCTYPE html><title>CORE</title>', { 'content-type': 'text/html' }));
      await failsWith(core(html).search({ title: 'Anything' }), 'malformed');
    });
  });
});
