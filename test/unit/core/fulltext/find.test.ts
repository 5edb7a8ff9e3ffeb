import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_FULL_TEXT, fullTextOptions } from '../../../../src/core/fulltext/config';
import { FullTextFinder, type FullTextServices } from '../../../../src/core/fulltext/find';
import { FullTextStore } from '../../../../src/core/fulltext/store';
import type { FullTextResult } from '../../../../src/core/fulltext/types';
import { sourcesConfigFrom } from '../../../../src/core/sources/config';
import { SourceGates } from '../../../../src/core/sources/gates';
import { createSources } from '../../../../src/core/sources/registry';
import { ScriptedServer, sendJson, sendText, type Handler } from '../../support/server';
import { makeTempDir } from '../../support/tempDir';
import { VirtualClock } from '../../support/virtualClock';

const FIXTURES = path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'fulltext');
const DOI = '10.1371/journal.pone.0000001';

/** Europe PMC's `resultType=lite` search answer, as the service writes it. */
function europePmcSearch(results: Record<string, unknown>[]): object {
  return { version: '6.9', hitCount: results.length, request: { queryString: `DOI:"${DOI}"`, resultType: 'lite' }, resultList: { result: results } };
}

const OPEN_RECORD = {
  id: '33000001',
  source: 'MED',
  pmid: '33000001',
  pmcid: 'PMC7000001',
  doi: DOI,
  title: 'Interleukin-6 in severe influenza',
  isOpenAccess: 'Y',
  inEPMC: 'Y',
  inPMC: 'Y',
  hasPDF: 'Y',
};

/** A server speaking Europe PMC, arXiv's HTML and CORE at once, as the test scripts it. */
async function services(routes: Record<string, (request: Parameters<Handler>[0]) => [number, string | object]>): Promise<ScriptedServer> {
  return ScriptedServer.start((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const route = Object.keys(routes).find((prefix) => url.pathname.startsWith(prefix));
    if (!route) return sendText(response, 404, 'Not Found');
    const [status, body] = routes[route](request);
    if (typeof body === 'string') sendText(response, status, body, { 'content-type': body.startsWith('<') ? 'application/xml' : 'text/plain' });
    else sendJson(response, status, body);
  });
}

/**
 * Europe PMC's search over `records` for the fields Attest uses: `DOI:"…"`, `PMCID:…` and
 * `(EXT_ID:… AND SRC:…)`, joined by OR. Anything else is a query this stand-in does not know.
 */
function answerQuery(query: string, records: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const terms = query.split(' OR ').map((term) => {
    const doi = /^DOI:"([^"]+)"$/.exec(term);
    if (doi) return (r: Record<string, unknown>) => typeof r.doi === 'string' && r.doi.toLowerCase() === doi[1].toLowerCase();
    const pmcid = /^PMCID:(PMC\d+)$/.exec(term);
    if (pmcid) return (r: Record<string, unknown>) => r.pmcid === pmcid[1];
    const external = /^\(EXT_ID:(\w+) AND SRC:(\w+)\)$/.exec(term);
    if (external) return (r: Record<string, unknown>) => r.id === external[1] && r.source === external[2];
    throw new Error(`a query term the stand-in does not know: ${term}`);
  });
  return records.filter((record) => terms.some((matches) => matches(record)));
}

function options(server: ScriptedServer, more: Partial<FullTextServices> = {}): FullTextServices {
  return {
    enabled: ['crossref', 'europepmc', 'arxiv', 'core'],
    europepmcBaseUrl: server.baseUrl,
    arxivHtmlBaseUrl: server.baseUrl,
    coreBaseUrl: server.baseUrl,
    offline: false,
    timeoutMs: 2000,
    backoffMs: 1,
    ...more,
  };
}

function sections(result: FullTextResult): string[] {
  assert.ok('fullText' in result, 'reason' in result ? result.reason : '');
  return result.fullText.passages.map((p) => p.section);
}

describe('finding the open full text of a cited work', () => {
  let server: ScriptedServer | undefined;
  let temp: { dir: string; remove: () => Promise<void> } | undefined;
  afterEach(async () => {
    await server?.close();
    await temp?.remove();
    server = undefined;
    temp = undefined;
  });

  it("reads Europe PMC's JATS by DOI, and answers the next check from the store without asking again", async () => {
    const jats = await fs.readFile(path.join(FIXTURES, 'jats-article.xml'), 'utf8');
    server = await services({
      '/europepmc/webservices/rest/search': () => [200, europePmcSearch([OPEN_RECORD])],
      '/europepmc/webservices/rest/PMC7000001/fullTextXML': () => [200, jats],
    });
    temp = await makeTempDir();
    const finder = new FullTextFinder(options(server, { store: new FullTextStore(temp.dir, 10_000_000) }));
    const first = await finder.find({ doi: DOI });
    assert.deepEqual(sections(first).slice(0, 3), ['Introduction', 'Materials and methods', 'Results']);
    assert.ok('fullText' in first && first.fullText.source === 'europepmc' && first.fullText.location === 'PMC7000001');
    assert.match(server.urls[0], /query=DOI%3A%2210\.1371%2Fjournal\.pone\.0000001%22/);
    const asked = server.urls.length;
    assert.deepEqual(await new FullTextFinder(options(server, { store: new FullTextStore(temp.dir, 10_000_000) })).find({ doi: DOI }), first);
    assert.equal(server.urls.length, asked);
  });

  it('takes Europe PMC\'s 404 for the JATS of a work it has just listed as open as "no full text", not as a failure', async () => {
    server = await services({ '/europepmc/webservices/rest/search': () => [200, europePmcSearch([OPEN_RECORD])] });
    const finder = new FullTextFinder(options(server, { enabled: ['europepmc'] }));
    assert.deepEqual(await finder.find({ doi: DOI }), { reason: 'Europe PMC has no full text of PMC7000001' });
  });

  it('asks Europe PMC by PubMed id and PMCID too, and reads the JATS of the record that has them', async () => {
    const jats = await fs.readFile(path.join(FIXTURES, 'jats-article.xml'), 'utf8');
    const noDoi = {
      id: '33000002',
      source: 'MED',
      pmid: '33000002',
      pmcid: 'PMC7000002',
      title: 'Cytokines in severe influenza',
      isOpenAccess: 'Y',
      inEPMC: 'Y',
      inPMC: 'Y',
      hasPDF: 'Y',
    };
    const closed = { id: '33000003', source: 'MED', pmid: '33000003', pmcid: 'PMC7000003', title: 'A closed copy', isOpenAccess: 'N', inEPMC: 'N', inPMC: 'Y', hasPDF: 'N' };
    server = await services({
      '/europepmc/webservices/rest/search': (request) => [
        200,
        europePmcSearch(answerQuery(new URL(request.url ?? '/', 'http://x').searchParams.get('query') ?? '', [OPEN_RECORD, noDoi, closed])),
      ],
      '/europepmc/webservices/rest/PMC7000002/fullTextXML': () => [200, jats],
    });
    const finder = new FullTextFinder(options(server, { enabled: ['europepmc'] }));
    const byPmid = await finder.find({ pmid: '33000002' });
    assert.ok('fullText' in byPmid && byPmid.fullText.location === 'PMC7000002', JSON.stringify(byPmid).slice(0, 200));
    assert.equal(new URL(server.urls[0], 'http://x').searchParams.get('query'), '(EXT_ID:33000002 AND SRC:MED)');
    const byPmcid = await finder.find({ pmcid: 'PMC7000002' });
    assert.ok('fullText' in byPmcid && byPmcid.fullText.location === 'PMC7000002');
    // A DOI Europe PMC does not hold, with the PubMed id it does.
    assert.ok('fullText' in (await finder.find({ doi: '10.1000/elsewhere', pmid: '33000002' })));
    assert.deepEqual(await finder.find({ pmcid: 'PMC7000003' }), { reason: 'Europe PMC has no open-access full text of it' });
    assert.deepEqual(await finder.find({}), { reason: 'Europe PMC is asked by DOI, PMID or PMCID, and the entry has none' });
  });

  it("goes on to arXiv's HTML when Europe PMC holds no open copy, and says why when nobody has one", async () => {
    const html = await fs.readFile(path.join(FIXTURES, 'latexml-paper.html'), 'utf8');
    server = await services({
      '/europepmc/webservices/rest/search': () => [200, europePmcSearch([{ ...OPEN_RECORD, isOpenAccess: 'N' }])],
      '/html/2401.00001': () => [200, html],
    });
    const finder = new FullTextFinder(options(server, { enabled: ['europepmc', 'arxiv'] }));
    const found = await finder.find({ doi: DOI, arxivId: '2401.00001' });
    assert.deepEqual(sections(found), ['Introduction', 'Experiments']);
    assert.ok('fullText' in found && found.fullText.location === 'arXiv:2401.00001');
    assert.deepEqual(await finder.find({ doi: DOI, arxivId: '2401.99999' }), {
      reason: 'Europe PMC has no open-access full text of it; arXiv has no HTML rendering of 2401.99999',
    });
  });

  it("reads CORE's fullText with the user's key, and does not ask CORE without one", async () => {
    const fullText = 'Introduction\nCaches are old.\n\nResults\nThe cache doubled throughput.\n\nReferences\n[1] A. Author. Caches. 1990.';
    server = await services({
      '/v3/search/works/': () => [200, { totalHits: 1, limit: 3, offset: 0, results: [{ id: 4242, doi: DOI, title: 'A cache', fullText }] }],
    });
    const withKey = await new FullTextFinder(options(server, { enabled: ['core'], coreApiKey: 'secret-key' })).find({ doi: DOI });
    assert.deepEqual(sections(withKey), ['Introduction', 'Results']);
    assert.equal(server.requests[0].headers.authorization, 'Bearer secret-key');
    const asked = server.urls.length;
    assert.deepEqual(await new FullTextFinder(options(server, { enabled: ['core'] })).find({ doi: DOI }), { reason: 'CORE needs an API key' });
    assert.equal(server.urls.length, asked);
  });

  it('turns failures into a reason for this check only: a later check asks again', async () => {
    let failing = true;
    server = await services({
      '/europepmc/webservices/rest/search': () => (failing ? [503, 'Service Unavailable'] : [200, europePmcSearch([])]),
    });
    temp = await makeTempDir();
    const finder = new FullTextFinder(options(server, { enabled: ['europepmc'], store: new FullTextStore(temp.dir, 10_000_000) }));
    const failed = await finder.find({ doi: DOI });
    assert.ok('reason' in failed && /503|unavailable/i.test(failed.reason), JSON.stringify(failed));
    failing = false;
    assert.deepEqual(await finder.find({ doi: DOI }), { reason: 'Europe PMC has no open-access full text of it' });
  });

  it('reads garbage as no full text, with the reason', async () => {
    server = await services({
      '/europepmc/webservices/rest/search': () => [200, europePmcSearch([OPEN_RECORD])],
      '/europepmc/webservices/rest/PMC7000001/fullTextXML': () => [200, '<article><front/></article>'],
      '/html/2401.00001': () => [200, '\u0000\u00ff garbage'],
    });
    const found = await new FullTextFinder(options(server, { enabled: ['europepmc', 'arxiv'] })).find({ doi: DOI, arxivId: '2401.00001' });
    assert.deepEqual(found, { reason: 'the JATS full text has no body (only the front matter is open); the arXiv HTML has no LaTeXML document in it' });
  });

  it('puts no identifier that is none into a path or query: an eprint cannot send a request elsewhere', async () => {
    server = await services({});
    const finder = new FullTextFinder(options(server, { enabled: ['europepmc', 'arxiv', 'core'], coreApiKey: 'secret-key' }));
    await finder.find({ arxivId: '../../latest/meta-data/iam/security-credentials/' });
    await finder.find({ doi: '10.1000/x" OR title:"anything', arxivId: '2401.00001" OR title:"anything' });
    assert.equal(server.urls.length, 0, server.urls.join('\n'));
    // A real id is asked for under /html/, in the form arXiv writes it.
    await finder.find({ arxivId: 'arXiv:2401.00001v2' });
    assert.deepEqual(
      server.urls.filter((url) => url.startsWith('/html/')),
      ['/html/2401.00001'],
    );
  });

  it('sends nothing offline', async () => {
    server = await services({});
    const found = await new FullTextFinder(options(server, { offline: true })).find({ doi: DOI, arxivId: '2401.00001' });
    assert.ok('reason' in found && /offline/i.test(found.reason));
    assert.equal(server.urls.length, 0);
  });

  it('asks CORE no more often than its configured rate, counting existence lookups and full-text requests together', async () => {
    const clock = new VirtualClock();
    const arrivals: { at: number; fullText: boolean }[] = [];
    server = await ScriptedServer.start((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      const doi = /^doi:"(.+)"$/.exec(url.searchParams.get('q') ?? '')?.[1];
      const fullText = url.searchParams.get('exclude') !== 'fullText';
      arrivals.push({ at: clock.now(), fullText });
      sendJson(response, 200, {
        totalHits: 1,
        limit: 3,
        offset: 0,
        results: [{ id: 7, doi, title: 'A cache', ...(fullText ? { fullText: 'Results\nThe cache doubled throughput.' } : {}) }],
      });
    });
    temp = await makeTempDir();
    const settings: Record<string, unknown> = {
      'attest.sources.enabled': ['core'],
      'attest.sources.core.baseUrl': server.baseUrl,
      'attest.sources.core.requestsPerSecond': 2,
    };
    const sources = sourcesConfigFrom((key) => settings[key]).config;
    const secrets = { coreApiKey: { value: 'key', origin: server.baseUrl } };
    const gates = new SourceGates(clock);
    const [core] = createSources(sources, secrets, undefined, gates);
    const byDoi = core.byDoi?.bind(core);
    assert.ok(byDoi);
    const finder = fullTextOptions(DEFAULT_FULL_TEXT, sources, secrets, temp.dir, gates)?.finder;
    assert.ok(finder);
    const dois = Array.from({ length: 6 }, (_, i) => `10.1000/work.${i}`);
    await Promise.all(dois.flatMap((doi) => [byDoi(doi), finder.find({ doi })]));

    assert.equal(arrivals.filter((a) => a.fullText).length, 6);
    assert.equal(arrivals.filter((a) => !a.fullText).length, 6);
    // Two a second: any three requests span at least a second.
    for (let i = 2; i < arrivals.length; i++) {
      assert.ok(
        arrivals[i].at - arrivals[i - 2].at >= 1000,
        `requests at ${arrivals
          .slice(i - 2, i + 1)
          .map((a) => a.at)
          .join(', ')} ms`,
      );
    }
  });
});

describe('the full-text store', () => {
  it('keeps under its size cap by dropping the least recently used', async () => {
    const { dir, remove } = await makeTempDir();
    try {
      const passage = (n: number): FullTextResult => ({ fullText: { source: 'pdf', location: `/p/${n}.pdf`, passages: [{ section: 'Results', text: 'x'.repeat(400) }] } });
      const store = new FullTextStore(dir, 1500);
      await store.set('a', passage(1));
      await store.set('b', passage(2));
      // Reading 'a' makes 'b' the least recently used.
      const files = await fs.readdir(dir);
      const old = new Date(Date.now() - 60_000);
      for (const file of files) await fs.utimes(path.join(dir, file), old, old);
      assert.ok(await store.get('a'));
      await store.set('c', passage(3));
      assert.ok(await store.get('a'));
      assert.equal(await store.get('b'), undefined);
      assert.ok(await store.get('c'));
    } finally {
      await remove();
    }
  });

  it('treats a damaged entry as a miss', async () => {
    const { dir, remove } = await makeTempDir();
    try {
      const store = new FullTextStore(dir, 10_000);
      await store.set('k', { reason: 'none' });
      const [file] = await fs.readdir(dir);
      await fs.writeFile(path.join(dir, file), '{"key":"k","storedAt":1,"res');
      assert.equal(await store.get('k'), undefined);
    } finally {
      await remove();
    }
  });
});
