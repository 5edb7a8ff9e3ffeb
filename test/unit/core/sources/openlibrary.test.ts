import assert from 'node:assert/strict';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import type { BibEntry } from '../../../../src/core/bibliography/types';
import { OpenLibrarySource, parseOpenLibraryEdition, parseOpenLibrarySearch } from '../../../../src/core/sources/openlibrary';
import type { BibliographicQuery, PaperSource, SourceRecord } from '../../../../src/core/sources/types';
import { identifiersIn } from '../../../../src/core/bibliography/referenceIdentifiers';
import { suspiciousMetadata } from '../../../../src/core/check';
import { resolveEntry } from '../../../../src/core/verify/existence';
import { isNotAsked } from '../../support/helpers';
import { sourceFixture } from '../../support/fixtures';
import type { Handler } from '../../support/server';
import { ScriptedServer, sendJson, sendText } from '../../support/server';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const EDITION = sourceFixture('openlibrary/edition-deep-learning.json');
const AUTHORS: Readonly<Record<string, unknown>> = {
  OL7380089A: sourceFixture('openlibrary/author-goodfellow.json'),
  OL2632916A: sourceFixture('openlibrary/author-bengio.json'),
  OL7380090A: sourceFixture('openlibrary/author-courville.json'),
};
const SEARCH = sourceFixture('openlibrary/search-deep-learning.json');
const EMPTY = sourceFixture('openlibrary/search-empty.json');

const DEEP_LEARNING: SourceRecord = {
  source: 'openlibrary',
  id: 'OL26230924M',
  url: 'https://openlibrary.org/books/OL26230924M',
  title: 'Deep Learning',
  authors: [
    { family: 'Goodfellow', given: 'Ian' },
    { family: 'Bengio', given: 'Yoshua' },
    { family: 'Courville', given: 'Aaron' },
  ],
  year: 2016,
  isbn: '9780262035613',
};

const { failsWith, assertMalformed } = sourceErrorAsserts('openlibrary');

/** Open Library as documented: `/isbn/{isbn}.json` redirects to the edition, whose authors are read by key. */
const openLibrary: Handler = (request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  if (url.pathname === '/isbn/9780262035613.json') {
    response.writeHead(302, { location: '/books/OL26230924M.json' });
    response.end();
    return;
  }
  if (url.pathname === '/books/OL26230924M.json') return sendJson(response, 200, EDITION);
  const author = /^\/authors\/(OL\d+A)\.json$/.exec(url.pathname)?.[1];
  if (author && AUTHORS[author]) return sendJson(response, 200, AUTHORS[author]);
  if (url.pathname === '/search.json') return sendJson(response, 200, url.searchParams.get('title') === 'Deep Learning' ? SEARCH : EMPTY);
  sendJson(response, 404, { error: 'notfound', key: url.pathname });
};

function entry(bibtex: string): BibEntry {
  const [parsed] = parseBibliography(bibtex, '/p/refs.bib').entries;
  return parsed;
}

describe('Open Library', () => {
  let server: ScriptedServer;
  beforeEach(async () => (server = await ScriptedServer.start(openLibrary)));
  afterEach(async () => server.close());
  const source = (): OpenLibrarySource => new OpenLibrarySource({ baseUrl: server.baseUrl, requestsPerSecond: 1000 });

  it('reads an edition by ISBN, its authors by their keys, an ISBN-10 asked as its ISBN-13', async () => {
    assert.deepEqual(await source().byIsbn('0-262-03561-8'), DEEP_LEARNING);
    assert.deepEqual(server.urls, ['/isbn/9780262035613.json', '/books/OL26230924M.json', '/authors/OL7380089A.json', '/authors/OL2632916A.json', '/authors/OL7380090A.json']);
  });

  it('answers "no such book" for an ISBN Open Library does not hold, and asks nothing for one that is no ISBN', async () => {
    const library = source();
    // A 404 counts once the service has answered well: before, it may be a proxy's or a wrong address's.
    await library.byIsbn('9780262035613');
    const before = server.urls.length;
    assert.equal(await library.byIsbn('978-0-306-40615-7'), undefined);
    assert.ok(isNotAsked(await failsWith(library.byIsbn('978-0-262-03561-4'), 'unavailable')));
    assert.deepEqual(server.urls.slice(before), ['/isbn/9780306406157.json']);
  });

  it('searches by title and first author, and takes the year of the edition the entry cites', async () => {
    const records = await source().search({ title: 'Deep Learning', authors: ['Goodfellow'], year: 2017, limit: 5 });
    assert.deepEqual(
      records.map((r) => [r.id, r.title, r.year, r.authors.length, r.isbn]),
      [
        ['OL17801874W', 'Deep Learning', 2017, 3, '9780262035613'],
        ['OL20624161W', 'Deep learning: adaptive computation and machine learning', 2017, 1, undefined],
      ],
    );
    const asked = new URL(server.urls[0], 'http://localhost').searchParams;
    assert.deepEqual([asked.get('title'), asked.get('author'), asked.get('limit')], ['Deep Learning', 'Goodfellow', '5']);
    assert.equal(parseOpenLibrarySearch(SEARCH, 2020)[0].year, 2016, 'no edition of 2020: the first publication year');
  });

  it('treats an answer of another shape as a failure, never as "no such book"', async () => {
    assertMalformed(() => parseOpenLibraryEdition({ title: 'No key' }));
    assertMalformed(() => parseOpenLibrarySearch({ numFound: 0 }));
    const broken = await ScriptedServer.start((_request, response) => sendText(response, 200, '<html>maintenance</html>', { 'content-type': 'text/html' }));
    try {
      await failsWith(new OpenLibrarySource({ baseUrl: broken.baseUrl, requestsPerSecond: 1000 }).byIsbn('9780262035613'), 'malformed');
    } finally {
      await broken.close();
    }
  });

  it('finds a book cited by its ISBN, and is asked about books only', async () => {
    const article: PaperSource = { id: 'crossref', name: 'Crossref', search: async (_query: BibliographicQuery) => [] };
    const book = entry(
      '@book{goodfellow2016, title={Deep Learning}, author={Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron}, publisher={MIT Press}, year={2016}, isbn={978-0-262-03561-3}}',
    );
    const verdict = await resolveEntry(book, [article, source()]);
    assert.equal(verdict.status, 'found');
    assert.equal(verdict.status === 'found' && verdict.via, 'isbn');
    assert.equal(verdict.status === 'found' && verdict.record.source, 'openlibrary');

    const titled = await resolveEntry(
      entry('@book{g, title={Deep Learning}, author={Goodfellow, Ian and Bengio, Yoshua and Courville, Aaron}, publisher={MIT Press}, year={2016}}'),
      [article, source()],
    );
    assert.deepEqual(titled.status === 'found' && [titled.via, titled.record.id], ['title', 'OL17801874W']);

    const before = server.urls.length;
    await resolveEntry(entry('@article{a, title={Deep Learning}, author={LeCun, Yann}, journal={Nature}, year={2015}}'), [article, source()]);
    assert.equal(server.urls.length, before, 'an article is not searched for in Open Library');
  });

  it('reports an ISBN whose check digit is wrong, and reads ISBNs written in a reference', () => {
    const wrong = entry('@book{b, title={Deep Learning}, author={Goodfellow, Ian}, year={2016}, isbn={978-0-262-03561-4, 0-262-03561-8}}');
    const findings = suspiciousMetadata([wrong], new Date('2026-01-01'));
    assert.equal(findings.length, 1);
    assert.match(findings[0].message, /"978-0-262-03561-4" is not an ISBN/);
    assert.deepEqual(suspiciousMetadata([entry('@book{b, title={Deep Learning}, isbn={0-262-03561-8}}')], new Date('2026-01-01')), []);
    const reference = 'I. Goodfellow, Y. Bengio, and A. Courville. Deep Learning. MIT Press, 2016. ISBN 978-0-262-03561-3.';
    assert.equal(identifiersIn(reference).isbn, '978-0-262-03561-3');
  });
});
