import assert from 'node:assert/strict';
import { LookupCache } from '../../../../src/core/sources/cache';
import { splitPersonName } from '../../../../src/core/sources/normalize';
import { MAX_ABSTRACT_CHARS, OpenAlexSource, parseOpenAlexResults, parseOpenAlexWork, rebuildAbstract } from '../../../../src/core/sources/openalex';
import type { SourceRecord } from '../../../../src/core/sources/types';
import { SourceError } from '../../../../src/core/sources/types';
import { isNotAsked } from '../../support/helpers';
import { sourceFixture } from '../../support/fixtures';
import type { Handler } from '../../support/server';
import { ScriptedServer, sendJson, sendText } from '../../support/server';
import { makeTempDir } from '../../support/tempDir';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const WORK = sourceFixture('openalex/work-peerj.4375.json');
const SEARCH = sourceFixture('openalex/search-state-of-oa.json');
const KEY = 'oa-key-93f1c2';

const STATE_OF_OA: SourceRecord = {
  source: 'openalex',
  id: 'W2741809807',
  url: 'https://openalex.org/W2741809807',
  title: 'The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles',
  authors: [
    { family: 'Piwowar', given: 'Heather' },
    { family: 'Priem', given: 'Jason' },
    { family: 'Larivière', given: 'Vincent' },
    { family: 'Alperin', given: 'Juan Pablo' },
    { family: 'Matthias', given: 'Lisa' },
    { family: 'Norlander', given: 'Bree' },
    { family: 'Farley', given: 'Ashley' },
    { family: 'West', given: 'Jevin D.' },
    { family: 'Haustein', given: 'Stefanie' },
  ],
  year: 2018,
  venue: 'PeerJ',
  doi: '10.7717/peerj.4375',
  arxivId: undefined,
  abstract:
    'Despite growing interest in Open Access (OA) to scholarly literature, there is an unmet need for large-scale, ' +
    'up-to-date, and reproducible studies assessing the prevalence and characteristics of OA. We address this need using oaDOI, ' +
    'an open online service that determines OA status for 67 million articles.',
  openAccessUrl: 'https://peerj.com/articles/4375.pdf',
};

const { assertMalformed } = sourceErrorAsserts('openalex');

describe('OpenAlex', () => {
  describe('reading works', () => {
    it('maps a Work object to a record, rebuilding the abstract from its inverted index', () => {
      assert.deepEqual(parseOpenAlexWork(WORK), STATE_OF_OA);
    });

    it('reads every work of a list, taking what each has', () => {
      const [first, attention, untitled] = parseOpenAlexResults(SEARCH);
      assert.deepEqual(first, STATE_OF_OA);
      assert.equal(attention.title, 'Attention Is All You Need');
      assert.equal(attention.doi, undefined);
      assert.equal(attention.arxivId, '1706.03762', 'from its location on arxiv.org');
      assert.equal(attention.venue, 'Neural Information Processing Systems');
      assert.equal(attention.abstract, undefined);
      assert.equal(attention.openAccessUrl, 'http://arxiv.org/pdf/1706.03762', 'the best open location when oa_url is null');
      assert.deepEqual(
        attention.authors.map((a) => a.family),
        ['Vaswani', 'Shazeer', 'Kaiser', 'Polosukhin'],
        'an authorship without a linked author still names its raw author',
      );
      assert.equal(untitled.title, '');
      assert.equal(untitled.doi, '10.1234/abc.def');
      assert.equal(untitled.year, undefined);
      assert.equal(untitled.venue, undefined);
      assert.deepEqual(untitled.authors, []);
    });

    it('strips the markup publishers leave in titles', () => {
      const record = parseOpenAlexWork({ id: 'https://openalex.org/W1', title: 'Growth of <i>E. coli</i> under CO<sub>2</sub> &amp; heat' });
      assert.equal(record.title, 'Growth of E. coli under CO2 & heat');
    });

    it('takes the arXiv id from an arXiv DOI', () => {
      const record = parseOpenAlexWork({ id: 'https://openalex.org/W1', doi: 'https://doi.org/10.48550/arxiv.2305.18248', title: 'T' });
      assert.equal(record.arxivId, '2305.18248');
    });

    it('rejects answers that are not works as malformed', () => {
      assertMalformed(() => parseOpenAlexWork([WORK]));
      assertMalformed(() => parseOpenAlexWork(null));
      assertMalformed(() => parseOpenAlexWork({ title: 'No id' }));
      assertMalformed(() => parseOpenAlexResults({ meta: {}, results: { id: 'W1' } }));
      assertMalformed(() => parseOpenAlexResults(WORK));
      assertMalformed(() => parseOpenAlexResults({ results: [{ id: 'W1' }, 'W2'] }));
    });

    it('takes the venue of the published version when the primary location is a repository such as arXiv', () => {
      const arxiv = {
        is_oa: true,
        landing_page_url: 'https://arxiv.org/abs/1706.03762',
        source: { id: 'https://openalex.org/S4306400194', display_name: 'arXiv (Cornell University)', type: 'repository' },
        version: 'submittedVersion',
      };
      const neurips = {
        is_oa: false,
        landing_page_url: 'https://papers.nips.cc/paper/7181',
        source: { id: 'https://openalex.org/S4306420609', display_name: 'Neural Information Processing Systems', type: 'conference' },
        version: 'publishedVersion',
      };
      const pmc = { is_oa: true, source: { display_name: 'PubMed Central', type: 'repository' } };
      const work = (primary: object, locations: object[]): SourceRecord =>
        parseOpenAlexWork({ id: 'https://openalex.org/W2963403868', title: 'Attention Is All You Need', primary_location: primary, locations });
      assert.equal(work(arxiv, [arxiv, neurips]).venue, 'Neural Information Processing Systems');
      assert.equal(work(arxiv, [arxiv, pmc]).venue, 'arXiv (Cornell University)', 'another repository is no published version');
      assert.equal(work(neurips, [neurips, arxiv]).venue, 'Neural Information Processing Systems');
    });

    it('ignores fields of an unexpected type instead of failing the work', () => {
      const record = parseOpenAlexWork({
        id: 'https://openalex.org/W1',
        title: 42,
        display_name: 'Shown name',
        publication_year: '2018',
        authorships: 'nobody',
        primary_location: { source: 'PeerJ' },
        abstract_inverted_index: ['Despite'],
      });
      assert.equal(record.title, 'Shown name');
      assert.equal(record.year, undefined);
      assert.deepEqual(record.authors, []);
      assert.equal(record.venue, undefined);
      assert.equal(record.abstract, undefined);
    });
  });

  describe('rebuilding abstracts', () => {
    it('puts each word at each of its positions', () => {
      assert.equal(rebuildAbstract({ rose: [1, 3, 5], a: [0, 2, 4], is: [6] }), 'a rose a rose a rose is');
    });

    it('closes gaps and skips entries that are not lists of positions', () => {
      assert.equal(rebuildAbstract({ end: [90], start: [0], noise: 'x', half: [1.5, 40] }), 'start half end');
    });

    it('gives undefined for an empty or missing index', () => {
      assert.equal(rebuildAbstract({}), undefined);
      assert.equal(rebuildAbstract(null), undefined);
    });

    it('leaves out positions no abstract reaches, without allocating for them', () => {
      assert.equal(rebuildAbstract({ last: [2 ** 31], first: [0], huge: [1e15, 2 ** 53, Number.MAX_VALUE], before: [-1] }), 'first');
    });

    it("keeps a hostile index to an abstract's length: one word at a million positions", () => {
      const abstract = rebuildAbstract({ again: Array.from({ length: 1_000_000 }, (_, i) => i) }) ?? '';
      assert.ok(abstract.length <= MAX_ABSTRACT_CHARS, `${abstract.length} characters`);
      assert.match(abstract, /^again again again /);
    });

    it("keeps a hostile index to an abstract's length: 200,000 words, and a long word everywhere", () => {
      const many: Record<string, number[]> = {};
      for (let i = 0; i < 200_000; i++) many[`w${i}`] = [i];
      const abstract = rebuildAbstract(many) ?? '';
      assert.ok(abstract.length <= MAX_ABSTRACT_CHARS, `${abstract.length} characters`);
      assert.match(abstract, /^w0 w1 w2 /);
      const long = rebuildAbstract({ ['x'.repeat(1_000_000)]: Array.from({ length: 1000 }, (_, i) => i) }) ?? '';
      assert.equal(long.length, MAX_ABSTRACT_CHARS);
    });

    it('puts one word at a position that many words claim', () => {
      const crowded: Record<string, number[]> = { first: [0] };
      for (let i = 0; i < 20_000; i++) crowded[`w${i}`] = [0, 1];
      assert.equal(rebuildAbstract(crowded), 'first w0');
    });
  });

  describe('names', () => {
    it('splits display names into family and given names', () => {
      assert.deepEqual(splitPersonName('Juan Pablo Alperin'), { family: 'Alperin', given: 'Juan Pablo' });
      assert.deepEqual(splitPersonName('Ludwig van Beethoven'), { family: 'van Beethoven', given: 'Ludwig' });
      assert.deepEqual(splitPersonName('Martin Luther King Jr.'), { family: 'King', given: 'Martin Luther' });
      assert.deepEqual(splitPersonName('Alperin, Juan Pablo'), { family: 'Alperin', given: 'Juan Pablo' });
      assert.deepEqual(splitPersonName('  Plato '), { family: 'Plato' });
    });
  });

  describe('the client', () => {
    const servers: ScriptedServer[] = [];
    const cleanups: Array<() => Promise<void>> = [];

    async function serve(handler: Handler): Promise<ScriptedServer> {
      const server = await ScriptedServer.start(handler);
      servers.push(server);
      return server;
    }

    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
      await Promise.all(cleanups.splice(0).map((remove) => remove()));
    });

    it('looks a DOI up as /works/doi:…, with the key and contact address', async () => {
      const server = await serve((_, res) => sendJson(res, 200, WORK));
      const openalex = new OpenAlexSource({ baseUrl: server.baseUrl, email: 'me@example.org', apiKey: KEY });
      assert.deepEqual(await openalex.byDoi('https://doi.org/10.7717/PEERJ.4375'), STATE_OF_OA);
      const url = new URL(server.urls[0], server.baseUrl);
      assert.equal(url.pathname, '/works/doi:10.7717%2Fpeerj.4375');
      assert.equal(url.searchParams.get('api_key'), KEY);
      assert.equal(url.searchParams.get('mailto'), 'me@example.org');
      assert.match(url.searchParams.get('select') ?? '', /abstract_inverted_index/);
      assert.match(String(server.requests[0].headers['user-agent']), /mailto:me@example\.org/);
    });

    it('escapes characters of a DOI that would break the URL', async () => {
      const server = await serve((_, res) => sendJson(res, 200, WORK));
      await new OpenAlexSource({ baseUrl: server.baseUrl }).byDoi('10.1002/(SICI)1097-4636<778::AID>3.0.CO;2-#');
      assert.equal(new URL(server.urls[0], server.baseUrl).pathname, '/works/doi:10.1002%2F(sici)1097-4636%3C778%3A%3Aaid%3E3.0.co%3B2-%23');
    });

    it('answers undefined for a DOI OpenAlex does not know', async () => {
      const server = await serve((req, res) =>
        req.url?.includes('none') ? sendJson(res, 404, { error: 'Not found', message: 'Work doi:10.1000/none not found' }) : sendJson(res, 200, WORK),
      );
      const openalex = new OpenAlexSource({ baseUrl: server.baseUrl });
      await openalex.byDoi('10.7717/peerj.4375');
      assert.equal(await openalex.byDoi('10.1000/none'), undefined);
    });

    it('refuses something that is no DOI without asking: no answer, never "no such work"', async () => {
      const server = await serve((_, res) => sendJson(res, 200, WORK));
      await assert.rejects(new OpenAlexSource({ baseUrl: server.baseUrl }).byDoi('peerj.4375'), isNotAsked);
      assert.equal(server.requests.length, 0);
    });

    it('does not send DOIs OpenAlex refuses, so the refusal is not mistaken for a bad key', async () => {
      const server = await serve((_, res) => sendText(res, 403, ''));
      await assert.rejects(new OpenAlexSource({ baseUrl: server.baseUrl }).byDoi('10.1000/a,b'), (e: unknown) => e instanceof SourceError && e.kind === 'unavailable');
      assert.equal(server.requests.length, 0);
    });

    it('searches titles with search= and per-page=, lower-cased so words are not operators', async () => {
      const server = await serve((_, res) => sendJson(res, 200, SEARCH));
      const records = await new OpenAlexSource({ baseUrl: server.baseUrl }).search({ title: 'The State of OA: NOT "Closed"', authors: ['Piwowar'], year: 2018, limit: 3 });
      assert.deepEqual(
        records.map((r) => r.id),
        ['W2741809807', 'W2963403868', 'W4000000001'],
      );
      const url = new URL(server.urls[0], server.baseUrl);
      assert.equal(url.pathname, '/works');
      assert.equal(url.searchParams.get('search'), 'the state of oa: not closed');
      assert.equal(url.searchParams.get('per-page'), '3');
    });

    it('refuses an empty title without asking: no answer, never "no such work"', async () => {
      const server = await serve((_, res) => sendJson(res, 200, SEARCH));
      await assert.rejects(new OpenAlexSource({ baseUrl: server.baseUrl }).search({ title: ' "()" ' }), isNotAsked);
      assert.equal(server.requests.length, 0);
    });

    it('reports a refused key as unauthorized, naming the setting and not the key', async () => {
      const server = await serve((_, res) => sendJson(res, 401, { error: 'Invalid API key' }));
      const error = await new OpenAlexSource({ baseUrl: server.baseUrl, apiKey: KEY }).search({ title: 'x' }).catch((e: unknown) => e);
      assert.ok(error instanceof SourceError && error.kind === 'unauthorized');
      assert.match(error.message, /Attest: Set Source API Key.*ATTEST_OPENALEX_API_KEY/);
      assert.ok(!error.message.includes(KEY));
    });

    it('says that searches need a key when OpenAlex answers 403 to a search without one', async () => {
      const server = await serve((_, res) => sendJson(res, 403, { error: 'Forbidden', message: 'API key required for this endpoint.' }));
      const error = await new OpenAlexSource({ baseUrl: server.baseUrl }).search({ title: 'x' }).catch((e: unknown) => e);
      assert.ok(error instanceof SourceError && error.kind === 'unauthorized');
      assert.match(error.message, /HTTP 403: .*API key required/);
      assert.match(error.message, /need an API key.*openalex\.org\/settings\/api.*Attest: Set Source API Key.*ATTEST_OPENALEX_API_KEY/);
    });

    it('says the key may be wrong or spent when OpenAlex answers 403 to a search with one', async () => {
      const server = await serve((_, res) => sendJson(res, 403, { error: 'Forbidden', message: `Invalid api_key ${KEY}` }));
      const error = await new OpenAlexSource({ baseUrl: server.baseUrl, apiKey: KEY }).search({ title: 'x' }).catch((e: unknown) => e);
      assert.ok(error instanceof SourceError && error.kind === 'unauthorized');
      assert.match(error.message, /key may be wrong or its daily allowance spent/);
      assert.ok(!error.message.includes(KEY));
    });

    it('searches venues with /sources?search=, reading every name a venue goes by', async () => {
      // The shape of a real /sources answer, trimmed to the fields Attest selects.
      const sources = {
        meta: { count: 2, db_response_time_ms: 31, page: 1, per_page: 5 },
        results: [
          {
            id: 'https://openalex.org/S4306420609',
            display_name: 'Neural Information Processing Systems',
            abbreviated_title: null,
            alternate_titles: ['NeurIPS', 'NIPS', 'Advances in Neural Information Processing Systems'],
          },
          { id: 'https://openalex.org/S118988714', display_name: 'Journal of Machine Learning Research', abbreviated_title: 'J. Mach. Learn. Res.', alternate_titles: [] },
        ],
        group_by: [],
      };
      const server = await serve((_, res) => sendJson(res, 200, sources));
      const names = await new OpenAlexSource({ baseUrl: server.baseUrl }).searchVenues('Neural Information (Processing) Systems');
      assert.deepEqual(names, [
        'Neural Information Processing Systems',
        'NeurIPS',
        'NIPS',
        'Advances in Neural Information Processing Systems',
        'Journal of Machine Learning Research',
        'J. Mach. Learn. Res.',
      ]);
      const url = new URL(server.urls[0], server.baseUrl);
      assert.equal(url.pathname, '/sources');
      assert.equal(url.searchParams.get('search'), 'neural information processing systems');
      await assert.rejects(
        new OpenAlexSource({ baseUrl: (await serve((_, res) => sendJson(res, 200, { meta: {} }))).baseUrl }).searchVenues('x'),
        (e: unknown) => e instanceof SourceError && e.kind === 'malformed',
      );
    });

    it('reports an answer of the wrong shape as malformed', async () => {
      const server = await serve((req, res) => sendJson(res, 200, req.url?.startsWith('/works?') ? { meta: {}, results: null } : SEARCH));
      const openalex = new OpenAlexSource({ baseUrl: server.baseUrl });
      await assert.rejects(openalex.search({ title: 'x' }), (e: unknown) => e instanceof SourceError && e.kind === 'malformed');
      await assert.rejects(openalex.byDoi('10.7717/peerj.4375'), (e: unknown) => e instanceof SourceError && e.kind === 'malformed');
    });

    it('does not cache an answer of the wrong shape', async () => {
      const server = await serve((_, res, i) => sendJson(res, 200, i === 0 ? { error: 'shape' } : WORK));
      const temp = await makeTempDir();
      cleanups.push(temp.remove);
      const openalex = new OpenAlexSource({ baseUrl: server.baseUrl, cache: new LookupCache(temp.dir) });
      await assert.rejects(openalex.byDoi('10.7717/peerj.4375'), (e: unknown) => e instanceof SourceError && e.kind === 'malformed');
      assert.deepEqual(await openalex.byDoi('10.7717/peerj.4375'), STATE_OF_OA);
    });

    it('answers from its cache after a restart, and offline, without asking again', async () => {
      const server = await serve((_, res) => sendJson(res, 200, WORK));
      const temp = await makeTempDir();
      cleanups.push(temp.remove);
      await new OpenAlexSource({ baseUrl: server.baseUrl, apiKey: KEY, cache: new LookupCache(temp.dir) }).byDoi('10.7717/peerj.4375');
      const offline = new OpenAlexSource({ baseUrl: server.baseUrl, cache: new LookupCache(temp.dir), offline: true });
      assert.deepEqual(await offline.byDoi('doi:10.7717/peerj.4375'), STATE_OF_OA);
      await assert.rejects(offline.byDoi('10.1000/other'), (e: unknown) => e instanceof SourceError && e.kind === 'offline');
      assert.equal(server.requests.length, 1);
    });
  });
});
