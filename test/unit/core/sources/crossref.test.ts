import assert from 'node:assert/strict';
import { CrossrefSource, parseCrossrefListResponse, parseCrossrefWork, parseCrossrefWorkResponse } from '../../../../src/core/sources/crossref';
import { stripMarkup } from '../../../../src/core/sources/normalize';
import type { SourceRecord } from '../../../../src/core/sources/types';
import { SourceError } from '../../../../src/core/sources/types';
import { isNotAsked } from '../../support/helpers';
import { sourceFixture } from '../../support/fixtures';
import type { Handler } from '../../support/server';
import { delay, ScriptedServer, sendJson, sendText } from '../../support/server';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const WORK = sourceFixture('crossref/work-peerj.4375.json');
const SEARCH = sourceFixture('crossref/search-state-of-oa.json');
const TOKEN = 'plus-token-5be07a';

const STATE_OF_OA: SourceRecord = {
  source: 'crossref',
  id: '10.7717/peerj.4375',
  url: 'http://dx.doi.org/10.7717/peerj.4375',
  title: 'The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles',
  authors: [
    { family: 'Piwowar', given: 'Heather' },
    { family: 'Priem', given: 'Jason' },
    { family: 'Larivière', given: 'Vincent' },
    { family: 'Alperin', given: 'Juan Pablo' },
    { family: 'Matthias', given: 'Lisa' },
    { family: 'Norlander', given: 'Bree' },
    { family: 'Farley', given: 'Ashley' },
    { family: 'West', given: 'Jevin' },
    { family: 'Haustein', given: 'Stefanie' },
  ],
  year: 2018,
  venue: 'PeerJ',
  doi: '10.7717/peerj.4375',
  abstract:
    'Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need for large-scale, ' +
    'up-to-date, and reproducible studies assessing the prevalence and characteristics of OA. We address this need using oaDOI, ' +
    'an open online service that determines OA status for 67 million articles.',
  updates: { notices: [] },
};

const { assertMalformed, failsWith } = sourceErrorAsserts('crossref');

describe('Crossref', () => {
  describe('reading works', () => {
    it('maps a work to a record, with the JATS abstract as plain text', () => {
      assert.deepEqual(parseCrossrefWorkResponse(WORK), STATE_OF_OA);
    });

    it('reads a posted preprint as a preprint, with the DOI of its published version', () => {
      const preprint = parseCrossrefWork({
        DOI: '10.1101/2020.01.22.914952',
        type: 'posted-content',
        subtype: 'preprint',
        title: ['Discovery of a novel coronavirus associated with the recent pneumonia outbreak in humans and its potential bat origin'],
        institution: [{ name: 'bioRxiv' }],
        issued: { 'date-parts': [[2020, 1, 23]] },
        relation: {
          'is-preprint-of': [{ 'id-type': 'doi', id: '10.1038/s41586-020-2012-7', 'asserted-by': 'subject' }],
          'has-review': [{ 'id-type': 'doi', id: '10.3410/f.737300000.793570000', 'asserted-by': 'object' }],
        },
      });
      assert.equal(preprint.preprint, true);
      assert.equal(preprint.publishedDoi, '10.1038/s41586-020-2012-7');
      const article = parseCrossrefWork({
        DOI: '10.1038/s41586-020-2012-7',
        type: 'journal-article',
        title: ['A pneumonia outbreak'],
        relation: { 'has-preprint': [{ 'id-type': 'doi', id: '10.1101/2020.01.22.914952', 'asserted-by': 'object' }] },
      });
      assert.deepEqual([article.preprint, article.publishedDoi], [undefined, undefined]);
    });

    it('reads every item of a work list', () => {
      const [first, uniprot, ligo, chemistry] = parseCrossrefListResponse(SEARCH);
      assert.deepEqual(first, STATE_OF_OA);

      assert.equal(uniprot.doi, '10.1093/nar/gkaa1100', 'DOIs are lower-cased');
      assert.equal(uniprot.title, 'UniProt: the universal protein knowledgebase in 2021', 'a subtitle already in the title is not repeated');
      assert.deepEqual(uniprot.authors, [{ literal: 'The UniProt Consortium' }]);
      assert.equal(uniprot.year, 2020, 'issued, the earliest date, wins over published-print');

      assert.equal(ligo.title, 'Observation of Gravitational Waves from a Binary Black Hole Merger: LIGO Scientific and Virgo Collaborations');
      assert.equal(ligo.year, 2016, 'issued without a year falls back to published-print');
      assert.deepEqual(ligo.authors, [{ family: 'Abbott', given: 'B. P.' }, { family: 'Zweizig' }]);

      assert.equal(chemistry.title, 'Synthesis of N-Heterocycles by Photoredox Catalysis & CO2 Fixation');
      assert.equal(chemistry.abstract, 'A one-pot route. Yields > 90 %.');
      assert.equal(chemistry.venue, 'Angewandte Chemie International Edition');
    });

    it('rejects answers that are not works as malformed', () => {
      assertMalformed(() => parseCrossrefWorkResponse(SEARCH));
      assertMalformed(() => parseCrossrefWorkResponse({ status: 'ok', 'message-type': 'work', message: 'gone' }));
      assertMalformed(() => parseCrossrefListResponse(WORK));
      assertMalformed(() => parseCrossrefListResponse({ status: 'ok', 'message-type': 'work-list', message: { items: {} } }));
      assertMalformed(() => parseCrossrefWork({ title: ['No DOI'] }));
      assertMalformed(() => parseCrossrefWork({ DOI: 'not-a-doi' }));
    });

    it('ignores fields of an unexpected type instead of failing the work', () => {
      const record = parseCrossrefWork({ DOI: '10.1000/x', title: 'not a list', author: [{ given: 'Only given' }, 'x'], issued: { 'date-parts': 2018 }, 'container-title': [] });
      assert.equal(record.title, '');
      assert.deepEqual(record.authors, []);
      assert.equal(record.year, undefined);
      assert.equal(record.venue, undefined);
      assert.equal(record.url, 'https://doi.org/10.1000/x');
    });
  });

  describe('text', () => {
    it('strips JATS and HTML, decoding entities and dropping an "Abstract" heading', () => {
      assert.equal(
        stripMarkup(
          '<jats:title>Abstract</jats:title>\n<jats:sec><jats:title>Background</jats:title><jats:p>H<jats:sub>2</jats:sub>O &amp; CO<sub>2</sub> &#x3b1;&#946;</jats:p></jats:sec>',
        ),
        'Background H2O & CO2 αβ',
      );
      assert.equal(stripMarkup('a &unknown; b &#0; c'), 'a &unknown; b &#0; c');
    });
  });

  describe('the client', () => {
    const servers: ScriptedServer[] = [];

    async function serve(handler: Handler): Promise<ScriptedServer> {
      const server = await ScriptedServer.start(handler);
      servers.push(server);
      return server;
    }

    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it('searches journals with /journals?query=, and reads their titles', async () => {
      const journals = {
        status: 'ok',
        'message-type': 'journal-list',
        'message-version': '1.0.0',
        message: {
          'items-per-page': 5,
          query: { 'start-index': 0, 'search-terms': 'machine learning research' },
          'total-results': 2,
          items: [
            {
              'last-status-check-time': 1700000000000,
              publisher: 'Microtome Publishing',
              title: 'Journal of Machine Learning Research',
              ISSN: ['1532-4435', '1533-7928'],
              'issn-type': [{ type: 'print', value: '1532-4435' }],
            },
            { publisher: 'Springer Science and Business Media LLC', title: 'Machine Learning', ISSN: ['0885-6125'] },
          ],
        },
      };
      const server = await serve((_, res) => sendJson(res, 200, journals));
      assert.deepEqual(await new CrossrefSource({ baseUrl: server.baseUrl }).searchVenues('machine learning research'), [
        'Journal of Machine Learning Research',
        'Machine Learning',
      ]);
      const url = new URL(server.urls[0], server.baseUrl);
      assert.equal(url.pathname, '/journals');
      assert.equal(url.searchParams.get('query'), 'machine learning research');
      const works = await serve((_, res) => sendJson(res, 200, { status: 'ok', 'message-type': 'work-list', message: { items: [] } }));
      await assert.rejects(new CrossrefSource({ baseUrl: works.baseUrl }).searchVenues('x'), (e: unknown) => e instanceof SourceError && e.kind === 'malformed');
    });

    it('looks a DOI up as /works/{doi}, with the contact address', async () => {
      const server = await serve((_, res) => sendJson(res, 200, WORK));
      const crossref = new CrossrefSource({ baseUrl: server.baseUrl, email: 'me@example.org' });
      assert.deepEqual(await crossref.byDoi('10.7717/PeerJ.4375'), STATE_OF_OA);
      const url = new URL(server.urls[0], server.baseUrl);
      assert.equal(url.pathname, '/works/10.7717%2Fpeerj.4375');
      assert.equal(url.searchParams.get('mailto'), 'me@example.org');
      assert.match(String(server.requests[0].headers['user-agent']), /^Attest\/.* \(mailto:me@example\.org\)$/);
    });

    it('asks for a DOI written as a www.doi.org link, and does not ask for one whose registrant is too short to exist', async () => {
      const server = await serve((_, res) => sendJson(res, 200, WORK));
      const crossref = new CrossrefSource({ baseUrl: server.baseUrl });
      assert.deepEqual(await crossref.byDoi('https://www.doi.org/10.7717/PeerJ.4375'), STATE_OF_OA);
      assert.equal(new URL(server.urls[0], server.baseUrl).pathname, '/works/10.7717%2Fpeerj.4375');
      await assert.rejects(crossref.byDoi('10.77/peerj.4375'), isNotAsked);
      assert.equal(server.requests.length, 1);
    });

    it('answers undefined when Crossref, answering properly, has no such DOI', async () => {
      const server = await serve((req, res) => (req.url?.includes('99999999') ? sendText(res, 404, 'Resource not found.') : sendJson(res, 200, SEARCH)));
      const crossref = new CrossrefSource({ baseUrl: server.baseUrl });
      await crossref.search({ title: 'The state of OA' });
      assert.equal(await crossref.byDoi('10.7717/peerj.99999999'), undefined);
    });

    it('does not take a 404 for "no such DOI" before Crossref has answered properly', async () => {
      const server = await serve((_, res) => sendText(res, 404, 'Resource not found.'));
      await failsWith(new CrossrefSource({ baseUrl: server.baseUrl }).byDoi('10.7717/peerj.99999999'), 'unavailable');
    });

    it('sends a DOI as one path segment, so its dots cannot climb out of the API path', async () => {
      const server = await serve((_, res) => sendJson(res, 200, WORK));
      await new CrossrefSource({ baseUrl: `${server.baseUrl}/api` }).byDoi('10.1234/../../admin').catch(() => undefined);
      assert.equal(new URL(server.urls[0], server.baseUrl).pathname, '/api/works/10.1234%2F..%2F..%2Fadmin');
    });

    it('searches with query.bibliographic, query.author, rows and select', async () => {
      const server = await serve((_, res) => sendJson(res, 200, SEARCH));
      const records = await new CrossrefSource({ baseUrl: server.baseUrl }).search({ title: 'The state of OA', authors: ['Piwowar', 'Priem'], year: 2018, limit: 4 });
      assert.equal(records.length, 4);
      const url = new URL(server.urls[0], server.baseUrl);
      assert.equal(url.pathname, '/works');
      assert.equal(url.searchParams.get('query.bibliographic'), 'The state of OA 2018');
      assert.equal(url.searchParams.get('query.author'), 'Piwowar Priem');
      assert.equal(url.searchParams.get('rows'), '4');
      assert.deepEqual(url.searchParams.get('select')?.split(',').sort(), [
        'DOI',
        'URL',
        'abstract',
        'author',
        'container-title',
        'issued',
        'published-online',
        'published-print',
        'relation',
        'subtitle',
        'title',
        'type',
        'update-to',
        'updated-by',
      ]);
    });

    it('asks query.bibliographic with the whole reference when the entry was written as text', async () => {
      const server = await serve((_, res) => sendJson(res, 200, SEARCH));
      const citation = 'Piwowar, H., Priem, J. (2018). The state of OA. PeerJ, 6, e4375.';
      await new CrossrefSource({ baseUrl: server.baseUrl }).search({ title: 'The state of OA', authors: ['Piwowar'], year: 2018, citation });
      assert.equal(new URL(server.urls[0], server.baseUrl).searchParams.get('query.bibliographic'), citation);
    });

    it('leaves out query.author when the entry names no author', async () => {
      const server = await serve((_, res) => sendJson(res, 200, SEARCH));
      await new CrossrefSource({ baseUrl: server.baseUrl }).search({ title: 'The state of OA' });
      const url = new URL(server.urls[0], server.baseUrl);
      assert.equal(url.searchParams.has('query.author'), false);
      assert.equal(url.searchParams.get('rows'), '5');
    });

    it('refuses an empty title and text that is no DOI without asking: no answer, never "no such work"', async () => {
      const server = await serve((_, res) => sendJson(res, 200, SEARCH));
      await assert.rejects(new CrossrefSource({ baseUrl: server.baseUrl }).search({ title: '  ', authors: ['Piwowar'] }), isNotAsked);
      await assert.rejects(new CrossrefSource({ baseUrl: server.baseUrl }).byDoi('peerj.4375'), isNotAsked);
      assert.equal(server.requests.length, 0);
    });

    it('sends a Metadata Plus token as a header, and names its setting when it is refused', async () => {
      const server = await serve((_, res) => sendText(res, 401, 'Unauthorized'));
      const error = await new CrossrefSource({ baseUrl: server.baseUrl, plusToken: TOKEN }).byDoi('10.7717/peerj.4375').catch((e: unknown) => e);
      assert.equal(server.requests[0].headers['crossref-plus-api-token'], `Bearer ${TOKEN}`);
      assert.ok(error instanceof SourceError && error.kind === 'unauthorized');
      assert.match(error.message, /Attest: Set Source API Key.*ATTEST_CROSSREF_PLUS_TOKEN/);
      assert.ok(!error.message.includes(TOKEN));
    });

    it('reports an answer of the wrong shape as malformed', async () => {
      const server = await serve((_, res) => sendJson(res, 200, { status: 'ok', 'message-type': 'work-list', message: { items: [] } }));
      await assert.rejects(new CrossrefSource({ baseUrl: server.baseUrl }).byDoi('10.7717/peerj.4375'), (e: unknown) => e instanceof SourceError && e.kind === 'malformed');
    });

    it('without a contact address, sends one request at a time as the public pool requires', async () => {
      const server = await serve(async (_, res) => {
        await delay(30);
        sendJson(res, 200, WORK);
      });
      const crossref = new CrossrefSource({ baseUrl: server.baseUrl });
      await Promise.all(['10.1000/a', '10.1000/b', '10.1000/c'].map((doi) => crossref.byDoi(doi)));
      assert.equal(server.maxInFlight, 1);
    });
  });
});
