import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ArxivOptions } from '../../../../src/core/sources/arxiv';
import { ArxivSource, parseArxivFeed } from '../../../../src/core/sources/arxiv';
import { SourceError } from '../../../../src/core/sources/types';
import type { SourceRecord } from '../../../../src/core/sources/types';
import { isNotAsked, REPO_ROOT } from '../../support/helpers';
import type { Handler } from '../../support/server';
import { ScriptedServer, sendText } from '../../support/server';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/sources/arxiv');

function fixture(name: string): string {
  return fs.readFileSync(path.join(FIXTURES, name), 'utf8');
}

function atom(body: string): Handler {
  return (_, res) => sendText(res, 200, body, { 'content-type': 'application/atom+xml; charset=utf-8' });
}

const ATTENTION: SourceRecord = {
  source: 'arxiv',
  id: '1706.03762',
  url: 'https://arxiv.org/abs/1706.03762',
  title: 'Attention Is All You Need',
  authors: [
    { family: 'Vaswani', given: 'Ashish' },
    { family: 'Shazeer', given: 'Noam' },
    { family: 'Parmar', given: 'Niki' },
    { family: 'Uszkoreit', given: 'Jakob' },
    { family: 'Jones', given: 'Llion' },
    { family: 'Gomez', given: 'Aidan N.' },
    { family: 'Kaiser', given: 'Lukasz' },
    { family: 'Polosukhin', given: 'Illia' },
  ],
  year: 2017,
  venue: undefined,
  doi: undefined,
  arxivId: '1706.03762',
  abstract:
    'The dominant sequence transduction models are based on complex recurrent or convolutional neural networks in an encoder-decoder configuration. ' +
    'The best performing models also connect the encoder and decoder through an attention mechanism. ' +
    'We propose a new simple network architecture, the Transformer, based solely on attention mechanisms, dispensing with recurrence and convolutions entirely. ' +
    'Experiments on two machine translation tasks show these models to be superior in quality while being more parallelizable and requiring significantly less time to train.',
  openAccessUrl: 'http://arxiv.org/pdf/1706.03762v7',
  updates: { notices: [] },
};

const { failsWith } = sourceErrorAsserts('arxiv');

describe('the arXiv source', () => {
  const servers: ScriptedServer[] = [];

  async function serve(handler: Handler): Promise<ScriptedServer> {
    const server = await ScriptedServer.start(handler);
    servers.push(server);
    return server;
  }

  function arxiv(server: ScriptedServer, options: ArxivOptions = {}): ArxivSource {
    return new ArxivSource({ baseUrl: server.baseUrl, ...options });
  }

  function sent(server: ScriptedServer, index = 0): URL {
    return new URL(server.requests[index].url, server.baseUrl);
  }

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  describe('lookup by arXiv id', () => {
    it('asks for the id without version or prefix and reads the whole entry', async () => {
      const server = await serve(atom(fixture('id-1706.03762.xml')));
      const record = await arxiv(server).byArxivId('arXiv:1706.03762v5');
      assert.deepEqual(record, ATTENTION);
      const url = sent(server);
      assert.equal(url.pathname, '/api/query');
      assert.equal(url.searchParams.get('id_list'), '1706.03762');
      assert.equal(url.searchParams.get('max_results'), '1');
    });

    it('answers undefined when arXiv has no paper with the id (an empty feed)', async () => {
      const server = await serve(atom(fixture('empty.xml')));
      assert.equal(await arxiv(server).byArxivId('2301.99999'), undefined);
    });

    it('answers undefined when arXiv says the id cannot exist (its error entry)', async () => {
      const server = await serve(atom(fixture('error-bad-id.xml')));
      assert.equal(await arxiv(server).byArxivId('2312.99999'), undefined);
      assert.equal(server.requests.length, 1);
    });

    it('refuses, without asking, text that is no arXiv id: no answer, never "no such work"', async () => {
      const server = await serve(atom(fixture('id-1706.03762.xml')));
      await assert.rejects(arxiv(server).byArxivId('not-an-id'), isNotAsked);
      await assert.rejects(arxiv(server).search({ title: '???' }), isNotAsked);
      assert.equal(server.requests.length, 0);
    });

    it('does not pass off another paper as the one asked for', async () => {
      const server = await serve(atom(fixture('id-1706.03762.xml')));
      assert.equal(await arxiv(server).byArxivId('1810.04805'), undefined);
    });
  });

  describe('search by title and first author', () => {
    it('sends a title phrase and the first author in arXiv syntax', async () => {
      const server = await serve(atom(fixture('search-maldacena.xml')));
      await arxiv(server).search({
        title: 'The Large {N} Limit of "Superconformal" Field Theories AND Supergravity',
        authors: ['van der Berg', 'Maldacena'],
        limit: 3,
      });
      const url = sent(server);
      assert.equal(url.searchParams.get('search_query'), 'ti:"the large n limit of superconformal field theories and supergravity" AND au:van_der_berg');
      assert.equal(url.searchParams.get('max_results'), '3');
    });

    it('searches by title alone when the entry names no author', async () => {
      const server = await serve(atom(fixture('search-maldacena.xml')));
      await arxiv(server).search({ title: 'Attention is all you need' });
      assert.equal(sent(server).searchParams.get('search_query'), 'ti:"attention is all you need"');
    });

    it('reads the DOI, the journal reference, old-style ids and hard-wrapped titles', async () => {
      const server = await serve(atom(fixture('search-maldacena.xml')));
      const [maldacena, lecture] = await arxiv(server).search({ title: 'The large N limit', authors: ['Maldacena'] });
      assert.deepEqual(maldacena, {
        source: 'arxiv',
        id: 'hep-th/9711200',
        url: 'https://arxiv.org/abs/hep-th/9711200',
        title: 'The Large N Limit of Superconformal field theories and supergravity',
        authors: [{ family: 'Maldacena', given: 'Juan M.' }],
        year: 1997,
        venue: 'Adv.Theor.Math.Phys.2:231-252,1998',
        doi: '10.1023/a:1026654312961',
        arxivId: 'hep-th/9711200',
        abstract:
          'We show that the large $N$ limit of certain conformal field theories in various dimensions include in their Hilbert space a sector describing ' +
          'supergravity on the product of Anti-deSitter spacetimes, spheres and other compact manifolds. ' +
          'This is shown by taking some branes in string theory and their near horizon geometry.',
        openAccessUrl: 'https://arxiv.org/pdf/hep-th/9711200v3',
        updates: { notices: [] },
      });
      assert.equal(lecture.title, 'A Lecture on the Large $N$ Limit: Superconformal Theories & Supergravity Revisited');
      assert.equal(lecture.arxivId, '2305.18248');
      assert.deepEqual(lecture.authors, [{ family: 'van der Berg', given: 'Ludwig' }]);
    });

    it('returns no records for an empty feed', async () => {
      const server = await serve(atom(fixture('empty.xml')));
      assert.deepEqual(await arxiv(server).search({ title: 'A title nobody wrote' }), []);
    });
  });

  describe('answers that cannot be used', () => {
    it('reports a feed cut off in the middle as malformed', async () => {
      const whole = fixture('id-1706.03762.xml');
      const server = await serve(atom(whole.slice(0, whole.indexOf('<author>') + 20)));
      const error = await failsWith(arxiv(server).byArxivId('1706.03762'), 'malformed');
      assert.match(error.message, /does not parse/);
    });

    it('reports a page that is not an Atom feed as malformed', async () => {
      const server = await serve((_, res) => sendText(res, 200, '<html><body><h1>Service temporarily unavailable</h1></body></html>', { 'content-type': 'text/html' }));
      const error = await failsWith(arxiv(server).search({ title: 'Attention' }), 'malformed');
      assert.match(error.message, /without a <feed>/);
    });

    it('reports an entry whose id is no arXiv id as malformed', async () => {
      const feed = fixture('id-1706.03762.xml').replace('http://arxiv.org/abs/1706.03762v7</id>', 'urn:uuid:1225c695-cfb8</id>');
      const server = await serve(atom(feed));
      const error = await failsWith(arxiv(server).byArxivId('1706.03762'), 'malformed');
      assert.match(error.message, /urn:uuid:1225c695-cfb8/);
    });

    it("passes on arXiv's reason when it refuses a query", async () => {
      const feed = fixture('error-bad-id.xml')
        .replace(/incorrect_id_format_for_1234\.12345/g, 'max_results_must_be_an_integer')
        .replace('incorrect id format for 1234.12345', 'max_results must be an integer');
      const server = await serve(atom(feed));
      const error = await failsWith(arxiv(server).search({ title: 'Attention' }), 'unavailable');
      assert.match(error.message, /max_results must be an integer/);
    });

    it('parses the same feeds without a server', () => {
      assert.deepEqual(parseArxivFeed(fixture('id-1706.03762.xml')), [ATTENTION]);
      assert.deepEqual(parseArxivFeed(fixture('error-bad-id.xml')), []);
      const [numeric] = parseArxivFeed(fixture('id-1706.03762.xml').replace('<title>Attention Is All You Need</title>', '<title>2048</title>'));
      assert.equal(numeric.title, '2048', 'a title that looks like a number stays text');
      assert.throws(
        () => parseArxivFeed('Rate exceeded.'),
        (error: unknown) => error instanceof SourceError && error.kind === 'malformed',
      );
    });
  });

  it('waits 3 seconds between requests by default, as arXiv asks', async function () {
    this.timeout(10_000);
    const arrivals: number[] = [];
    const server = await serve((req, res) => {
      arrivals.push(Date.now());
      atom(fixture('empty.xml'))(req, res, arrivals.length - 1);
    });
    const source = arxiv(server);
    await Promise.all([source.byArxivId('2301.00001'), source.byArxivId('2301.00002')]);
    assert.equal(arrivals.length, 2);
    assert.ok(arrivals[1] - arrivals[0] >= 2900, `the second request came ${arrivals[1] - arrivals[0]} ms after the first`);
  });
});
