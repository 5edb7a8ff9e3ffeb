import assert from 'node:assert/strict';
import type { SemanticScholarOptions } from '../../../../src/core/sources/semanticscholar';
import { parseSemanticScholarBatch, parseSemanticScholarPaper, parseSemanticScholarSearch, SemanticScholarSource } from '../../../../src/core/sources/semanticscholar';
import type { SourceRecord } from '../../../../src/core/sources/types';
import { isNotAsked } from '../../support/helpers';
import { sourceFixture } from '../../support/fixtures';
import type { Handler } from '../../support/server';
import { ScriptedServer, sendJson, sendText } from '../../support/server';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const PAPER = sourceFixture('semanticscholar/paper-doi.json');
const SEARCH = sourceFixture('semanticscholar/search.json');
const BATCH = sourceFixture('semanticscholar/batch.json');
const KEY = 's2-key-7d41e0';

const LITERATURE_GRAPH: SourceRecord = {
  source: 'semanticscholar',
  id: '649def34f8be52c8b66281af98ae884c09aef38b',
  url: 'https://www.semanticscholar.org/paper/649def34f8be52c8b66281af98ae884c09aef38b',
  title: 'Construction of the Literature Graph in Semantic Scholar',
  authors: [
    { family: 'Ammar', given: 'Waleed' },
    { family: 'Groeneveld', given: 'Dirk' },
    { family: 'Bhagavatula', given: 'Chandra' },
    { family: 'Beltagy', given: 'Iz' },
    { family: 'van Zuylen', given: 'Madeleine' },
    { family: 'Etzioni', given: 'Oren' },
  ],
  year: 2018,
  venue: 'North American Chapter of the Association for Computational Linguistics',
  doi: '10.18653/v1/n18-3011',
  arxivId: '1805.02262',
  abstract:
    'We describe a deployed scalable system for organizing published scientific literature into a heterogeneous graph to facilitate algorithmic manipulation and discovery. ' +
    'The resulting literature graph consists of more than 280M nodes, representing papers, authors, entities and various interactions between them (e.g., authorships, citations, entity mentions).',
  openAccessUrl: 'https://www.aclweb.org/anthology/N18-3011.pdf',
};

const { failsWith, assertMalformed } = sourceErrorAsserts('semanticscholar');

describe('Semantic Scholar', () => {
  describe('reading papers', () => {
    it('maps a paper to a record: lower-case DOI, arXiv id, venue, open-access PDF', () => {
      assert.deepEqual(parseSemanticScholarPaper(PAPER), LITERATURE_GRAPH);
    });

    it('reads a search, leaving out the empty PDF link of a closed paper and empty venues', () => {
      const [attention, report] = parseSemanticScholarSearch(SEARCH);
      assert.equal(attention.title, 'Attention is All you Need');
      assert.equal(attention.openAccessUrl, undefined, 'openAccessPdf.url is "" for a closed paper');
      assert.equal(attention.abstract, undefined);
      assert.equal(attention.doi, undefined);
      assert.equal(attention.arxivId, '1706.03762');
      assert.deepEqual(attention.authors[1], { family: 'Shazeer', given: 'Noam M.' });
      assert.equal(report.venue, 'Proceedings of the Workshop on Attention', 'the journal when venue is ""');
      assert.equal(report.year, undefined);
      assert.equal(report.openAccessUrl, undefined);
      assert.deepEqual(report.authors, []);
    });

    it('reads a search without matches, which has no "data" at all', () => {
      assert.deepEqual(parseSemanticScholarSearch({ total: 0, offset: 0 }), []);
    });

    it('keeps the order of a batch answer and its nulls for unknown ids', () => {
      const [known, unknown] = parseSemanticScholarBatch(BATCH);
      assert.equal(known?.doi, '10.18653/v1/n18-3011');
      assert.equal(unknown, undefined);
    });

    it('rejects answers of the wrong shape as malformed', () => {
      assertMalformed(() => parseSemanticScholarPaper([PAPER]));
      assertMalformed(() => parseSemanticScholarPaper({ title: 'No paperId' }));
      assertMalformed(() => parseSemanticScholarSearch({ total: 3, offset: 0 }));
      assertMalformed(() => parseSemanticScholarSearch({ total: 1, data: {} }));
      assertMalformed(() => parseSemanticScholarBatch({ data: [PAPER] }));
    });
  });

  describe('asking the API', () => {
    const servers: ScriptedServer[] = [];

    async function serve(handler: Handler): Promise<ScriptedServer> {
      const server = await ScriptedServer.start(handler);
      servers.push(server);
      return server;
    }

    function s2(server: ScriptedServer, options: SemanticScholarOptions = {}): SemanticScholarSource {
      return new SemanticScholarSource({ baseUrl: server.baseUrl, requestsPerSecond: 1000, ...options });
    }

    function sent(server: ScriptedServer, index = 0): URL {
      return new URL(server.requests[index].url, server.baseUrl);
    }

    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it('looks a DOI up as /paper/DOI:…, asking for the fields it reads', async () => {
      const server = await serve((_, res) => sendJson(res, 200, PAPER));
      assert.deepEqual(await s2(server).byDoi('https://doi.org/10.18653/V1/N18-3011'), LITERATURE_GRAPH);
      const url = sent(server);
      assert.equal(url.pathname, '/graph/v1/paper/DOI:10.18653%2Fv1%2Fn18-3011');
      assert.deepEqual(url.searchParams.get('fields')?.split(',').sort(), [
        'abstract',
        'authors',
        'externalIds',
        'journal',
        'openAccessPdf',
        'paperId',
        'publicationVenue',
        'title',
        'url',
        'venue',
        'year',
      ]);
    });

    it('looks an arXiv id up as /paper/ARXIV:…, without its version', async () => {
      const server = await serve((_, res) => sendJson(res, 200, PAPER));
      await s2(server).byArxivId('arXiv:1805.02262v1');
      assert.equal(sent(server).pathname, '/graph/v1/paper/ARXIV:1805.02262');
    });

    it('answers undefined when Semantic Scholar has no such paper (404)', async () => {
      const server = await serve((_, res, i) => (i === 0 ? sendJson(res, 200, PAPER) : sendJson(res, 404, { error: 'Paper with id DOI:10.1234/nope not found' })));
      const source = s2(server);
      await source.byDoi('10.18653/v1/n18-3011');
      assert.equal(await source.byDoi('10.1234/nope'), undefined);
      assert.equal(await source.byArxivId('2301.00001'), undefined);
    });

    it('looks many ids up in one batch request, then answers lookups of them from memory', async () => {
      const bodies: string[] = [];
      const server = await serve(async (req, res) => {
        let body = '';
        for await (const chunk of req) body += String(chunk);
        bodies.push(`${req.method} ${body}`);
        sendJson(res, 200, BATCH);
      });
      const source = s2(server);
      await source.prefetch({ dois: ['https://doi.org/10.18653/V1/N18-3011'], arxivIds: ['arXiv:2312.56789v2'] });
      assert.equal(sent(server).pathname, '/graph/v1/paper/batch');
      assert.ok(sent(server).searchParams.get('fields')?.includes('externalIds'));
      assert.deepEqual(bodies, ['POST {"ids":["DOI:10.18653/v1/n18-3011","ARXIV:2312.56789"]}']);
      assert.equal((await source.byDoi('10.18653/v1/N18-3011'))?.id, parseSemanticScholarBatch(BATCH)[0]?.id);
      assert.equal(await source.byArxivId('2312.56789'), undefined, 'null in the batch: no such paper');
      assert.equal(server.requests.length, 1);
    });

    it('refuses, without asking, text that is no DOI or arXiv id and a title without words: no answer, never "no such work"', async () => {
      const server = await serve((_, res) => sendJson(res, 200, PAPER));
      await assert.rejects(s2(server).byDoi('not a doi'), isNotAsked);
      await assert.rejects(s2(server).byArxivId('not an id'), isNotAsked);
      await assert.rejects(s2(server).search({ title: '???' }), isNotAsked);
      assert.equal(server.requests.length, 0);
    });

    it('searches by the words of the title, without punctuation', async () => {
      const server = await serve((_, res) => sendJson(res, 200, SEARCH));
      const records = await s2(server).search({ title: 'Attention is {All} you need: "Transformers"', authors: ['Vaswani'], limit: 2 });
      assert.equal(records.length, 2);
      const url = sent(server);
      assert.equal(url.pathname, '/graph/v1/paper/search');
      assert.equal(url.searchParams.get('query'), 'Attention is All you need Transformers');
      assert.equal(url.searchParams.get('limit'), '2');
    });

    it('returns no records when the search finds nothing', async () => {
      const server = await serve((_, res) => sendJson(res, 200, { total: 0, offset: 0 }));
      assert.deepEqual(await s2(server).search({ title: 'totalGarbageNonsense' }), []);
    });

    it('sends the API key as x-api-key when one is configured, and no key otherwise', async () => {
      const server = await serve((_, res) => sendJson(res, 200, PAPER));
      await s2(server, { apiKey: KEY }).byDoi('10.18653/v1/n18-3011');
      await s2(server).byDoi('10.18653/v1/n18-3011');
      assert.equal(server.requests[0].headers['x-api-key'], KEY);
      assert.equal(server.requests[1].headers['x-api-key'], undefined);
      assert.ok(!server.requests[0].url.includes(KEY), 'the key stays out of the URL');
    });

    it('names the setting of the API key when Semantic Scholar refuses it', async () => {
      const server = await serve((_, res) => sendJson(res, 403, { message: 'Forbidden' }));
      const error = await failsWith(s2(server, { apiKey: KEY }).byDoi('10.18653/v1/n18-3011'), 'unauthorized');
      assert.match(error.message, /Attest: Set Source API Key.*ATTEST_SEMANTICSCHOLAR_API_KEY/);
      assert.ok(!error.message.includes(KEY));
    });

    it('reports an answer of the wrong shape or not JSON as malformed', async () => {
      const wrongShape = await serve((_, res) => sendJson(res, 200, { data: [PAPER] }));
      await failsWith(s2(wrongShape).byDoi('10.18653/v1/n18-3011'), 'malformed');
      const html = await serve((_, res) => sendText(res, 200, '<html>Bad gateway</html>', { 'content-type': 'text/html' }));
      await failsWith(s2(html).search({ title: 'Attention' }), 'malformed');
    });
  });
});
