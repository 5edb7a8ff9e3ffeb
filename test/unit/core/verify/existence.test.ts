import assert from 'node:assert/strict';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import type { BibEntry } from '../../../../src/core/bibliography/types';
import { SourceError, type BibliographicQuery, type PaperSource, type RequestOptions, type SourceRecord } from '../../../../src/core/sources/types';
import type { SourceId } from '../../../../src/core/sources/ids';
import { CrossrefSource } from '../../../../src/core/sources/crossref';
import { OpenAlexSource } from '../../../../src/core/sources/openalex';
import { SemanticScholarSource } from '../../../../src/core/sources/semanticscholar';
import { resolveEntry } from '../../../../src/core/verify/existence';
import { describeUnchecked, referenceFindings, VerdictCache, verifyEntries } from '../../../../src/core/verify/references';
import { sourceFixture } from '../../support/fixtures';
import { RESNET } from '../../support/records';
import { ScriptedServer, sendJson } from '../../support/server';

const LSTM: SourceRecord = {
  source: 'openalex',
  id: 'W2064675550',
  title: 'Long Short-Term Memory',
  authors: [
    { family: 'Hochreiter', given: 'Sepp' },
    { family: 'Schmidhuber', given: 'Jürgen' },
  ],
  year: 1997,
  venue: 'Neural Computation',
  doi: '10.1162/neco.1997.9.8.1735',
};

/** A source that knows some records, or fails every request with `failure`. */
class FakeSource implements PaperSource {
  readonly name: string;
  readonly queries: BibliographicQuery[] = [];
  readonly dois: string[] = [];
  searchVenues?: (name: string) => Promise<string[]>;

  constructor(
    readonly id: SourceId,
    private readonly records: readonly SourceRecord[],
    private readonly failure?: SourceError,
  ) {
    this.name = id;
  }

  async byDoi(doi: string): Promise<SourceRecord | undefined> {
    this.dois.push(doi);
    if (this.failure) throw this.failure;
    return this.records.find((r) => r.doi === doi.toLowerCase());
  }

  async search(query: BibliographicQuery): Promise<SourceRecord[]> {
    this.queries.push(query);
    if (this.failure) throw this.failure;
    const words = query.title
      .toLowerCase()
      .split(/\W+/)
      .filter((w) => w.length > 3);
    return this.records.filter((r) => words.some((w) => r.title.toLowerCase().includes(w)));
  }
}

/** A source that answers only after `delayMs`, unless its question is cancelled first. */
class SlowSource implements PaperSource {
  readonly name: string;
  cancelled = 0;

  constructor(
    readonly id: SourceId,
    private readonly delayMs: number,
  ) {
    this.name = id;
  }

  search(_query: BibliographicQuery, options?: RequestOptions): Promise<SourceRecord[]> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve([]), this.delayMs);
      options?.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        this.cancelled++;
        reject(new SourceError('cancelled', 'cancelled', this.id));
      });
    });
  }
}

function entry(bibtex: string): BibEntry {
  const [parsed] = parseBibliography(bibtex, '/p/refs.bib').entries;
  return parsed;
}

const resnetEntry = (fields: string, title = 'Deep Residual Learning for Image Recognition'): BibEntry =>
  entry(`@inproceedings{he2016, title={${title}}, author={He, Kaiming and Zhang, Xiangyu and Ren, Shaoqing and Sun, Jian}, booktitle={CVPR}, ${fields}}`);

const down = (id: SourceId): FakeSource => new FakeSource(id, [], new SourceError('unavailable', `${id} is down`, id));

describe('reference existence', () => {
  it('finds a correct entry by its DOI and searches no title', async () => {
    const crossref = new FakeSource('crossref', [RESNET]);
    const openalex = new FakeSource('openalex', [RESNET]);
    const verdict = await resolveEntry(resnetEntry('year={2016}, doi={10.1109/CVPR.2016.90}'), [crossref, openalex]);
    assert.equal(verdict.status, 'found');
    assert.equal(verdict.status === 'found' && verdict.via, 'doi');
    assert.equal(openalex.queries.length + crossref.queries.length, 0);
  });

  it('asks the other sources only when the first does not find the work', async () => {
    const crossref = new FakeSource('crossref', [RESNET]);
    const openalex = new FakeSource('openalex', [RESNET]);
    assert.equal((await resolveEntry(resnetEntry('year={2016}'), [crossref, openalex])).status, 'found');
    assert.equal(openalex.queries.length, 0);
    const fabricated = entry('@article{x, title={Residual Learning of Nothing}, author={Nobody, A.}, year={2020}}');
    const [first, second] = [new FakeSource('crossref', []), new FakeSource('openalex', [])];
    assert.equal((await resolveEntry(fabricated, [first, second])).status, 'not-found');
    assert.equal(second.queries.length, 1);
  });

  it('asks the others at once when the first source is slow, and stops waiting for it when one finds the work', async () => {
    const slow = new SlowSource('arxiv', 20_000);
    const started = Date.now();
    const verdict = await resolveEntry(resnetEntry('year={2016}'), [slow, new FakeSource('crossref', [RESNET])]);
    assert.equal(verdict.status, 'found');
    assert.ok(Date.now() - started < 5000, `waited ${Date.now() - started} ms for the slow source`);
    assert.equal(slow.cancelled, 1, 'the slow question was cancelled');
  });

  it('leaves a venue that only a preprint is known for unconfirmed, as a hint, and compares it with a published version when one is found', async () => {
    const preprint: SourceRecord = {
      source: 'arxiv',
      id: '2310.01234',
      title: 'Sparse Recursive Experts',
      authors: [{ family: 'Lee', given: 'Minji' }],
      year: 2023,
      arxivId: '2310.01234',
    };
    const claimsIclr = entry('@inproceedings{lee, title={Sparse Recursive Experts}, author={Lee, Minji}, booktitle={ICLR}, year={2024}}');
    const onlyPreprint = await resolveEntry(claimsIclr, [new FakeSource('arxiv', [preprint]), new FakeSource('crossref', []), new FakeSource('openalex', [])]);
    assert.equal(onlyPreprint.status, 'found');
    assert.equal(onlyPreprint.status === 'found' && onlyPreprint.venueUnconfirmed, 'ICLR');
    const verdicts = new Map([['lee', { entry: claimsIclr, verdict: onlyPreprint }]]);
    const [hint] = referenceFindings(verdicts, [], false);
    assert.deepEqual([hint.code, hint.severity], ['venue-unconfirmed', 'hint']);
    assert.match(hint.message, /known only as a preprint in arXiv; no source confirms that it appeared in ICLR/);
    const published: SourceRecord = { ...preprint, source: 'openalex', id: 'W1', venue: 'Advances in Neural Information Processing Systems', arxivId: undefined };
    const elsewhere = await resolveEntry(claimsIclr, [new FakeSource('arxiv', [preprint]), new FakeSource('openalex', [published]), new FakeSource('crossref', [])]);
    assert.equal(elsewhere.status, 'metadata-mismatch');
    assert.ok(elsewhere.status === 'metadata-mismatch' && elsewhere.differences.some((d) => d.field === 'venue'));
    const citesPreprint = entry('@misc{lee, title={Sparse Recursive Experts}, author={Lee, Minji}, year={2023}, howpublished={arXiv preprint arXiv:2310.01234}}');
    const plain = await resolveEntry(citesPreprint, [new FakeSource('arxiv', [preprint]), new FakeSource('crossref', [])]);
    assert.equal(plain.status === 'found' && plain.venueUnconfirmed, undefined);
  });

  it('calls a venue no source knows a mismatch when only a preprint is found, and keeps a real one a hint', async () => {
    const preprint: SourceRecord = {
      source: 'openalex',
      id: 'W9',
      title: 'Sparse Recursive Experts',
      authors: [{ family: 'Lee', given: 'Minji' }],
      year: 2023,
      doi: '10.48550/arxiv.2310.01234',
    };
    const claims = (venue: string): BibEntry => entry(`@inproceedings{lee, title={Sparse Recursive Experts}, author={Lee, Minji}, booktitle={${venue}}, year={2023}}`);
    const venues = ['Neural Information Processing Systems', 'Journal of Machine Learning Research', 'Machine Learning', 'Pattern Recognition Letters'];
    /** OpenAlex with a venue index: the names sharing a word with the query, or a failure. */
    const openalex = (failure?: SourceError): FakeSource & { venueQueries: string[] } => {
      const source = Object.assign(new FakeSource('openalex', [preprint]), { venueQueries: [] as string[] });
      source.searchVenues = async (name: string) => {
        source.venueQueries.push(name);
        if (failure) throw failure;
        return venues.filter((v) => name.split(' ').some((w) => w.length > 3 && v.includes(w)));
      };
      return source;
    };
    const invented = await resolveEntry(claims('Symposium on Probabilistic Reasoning Machines'), [openalex(), new FakeSource('crossref', [])]);
    assert.equal(invented.status, 'metadata-mismatch');
    const venue = invented.status === 'metadata-mismatch' ? invented.differences.find((d) => d.field === 'venue') : undefined;
    assert.deepEqual([venue?.expected, venue?.found, venue?.note], ['Symposium on Probabilistic Reasoning Machines', '(no such venue in OpenAlex)', 'no such venue']);

    const known = openalex();
    const iclr = await resolveEntry(claims('ICLR'), [known, new FakeSource('crossref', [])]);
    assert.equal(iclr.status === 'found' && iclr.venueUnconfirmed, 'ICLR');
    assert.deepEqual(known.venueQueries, [], 'a well-known venue needs no question');
    const jmlr = await resolveEntry(claims('J. Mach. Learn. Res.'), [openalex(), new FakeSource('crossref', [])]);
    assert.equal(jmlr.status === 'found' && jmlr.venueUnconfirmed, 'J. Mach. Learn. Res.');

    const failing = await resolveEntry(claims('Symposium on Probabilistic Reasoning Machines'), [
      openalex(new SourceError('timeout', 'slow', 'openalex')),
      new FakeSource('crossref', []),
    ]);
    assert.equal(failing.status, 'found', 'a venue search that failed is no evidence');

    // Crossref's journals are asked last, and only when the source that knows conferences does not know the venue.
    const journals: string[] = [];
    const crossref = Object.assign(new FakeSource('crossref', []), { venuesJournalsOnly: true });
    crossref.searchVenues = async (name: string) => {
      journals.push(name);
      return [];
    };
    const conferenceIndex = openalex();
    const letters = await resolveEntry(claims('Pattern Recognition Letters'), [crossref, conferenceIndex]);
    assert.equal(letters.status === 'found' && letters.venueUnconfirmed, 'Pattern Recognition Letters');
    assert.deepEqual([journals, conferenceIndex.venueQueries], [[], ['Pattern Recognition Letters']]);
    await resolveEntry(claims('Symposium on Probabilistic Reasoning Machines'), [crossref, conferenceIndex]);
    assert.deepEqual(journals, ['Symposium on Probabilistic Reasoning Machines']);

    // Without a source that knows conferences, a venue Crossref's journals lack may still be a real conference.
    const journalsOnly = await resolveEntry(claims('Symposium on Probabilistic Reasoning Machines'), [crossref, new FakeSource('openalex', [preprint])]);
    assert.equal(journalsOnly.status === 'found' && journalsOnly.venueUnconfirmed, 'Symposium on Probabilistic Reasoning Machines');
  });

  it('follows a preprint to the published version its record links to, and compares the claimed venue with it', async () => {
    const authors = [
      { family: 'Zhou', given: 'Peng' },
      { family: 'Yang', given: 'Xing-Lou' },
    ];
    const title = 'A pneumonia outbreak associated with a new coronavirus of probable bat origin';
    const preprint: SourceRecord = {
      source: 'crossref',
      id: '10.1101/2020.01.22.914952',
      title,
      authors,
      year: 2020,
      doi: '10.1101/2020.01.22.914952',
      preprint: true,
      publishedDoi: '10.1038/s41586-020-2012-7',
    };
    const published: SourceRecord = { source: 'openalex', id: 'W3004280078', title, authors, year: 2020, venue: 'Nature', doi: '10.1038/s41586-020-2012-7' };
    const claims = (venue: string): BibEntry => entry(`@article{zhou, title={${title}}, author={Zhou, Peng and Yang, Xing-Lou}, journal={${venue}}, year={2020}}`);
    // The title search finds only the preprint; the published version is known by its DOI alone.
    const byDoiOnly = (): PaperSource => Object.assign(new FakeSource('openalex', []), { byDoi: async (doi: string) => (doi === published.doi ? published : undefined) });
    const sources = (): PaperSource[] => [new FakeSource('crossref', [preprint]), byDoiOnly(), new FakeSource('semanticscholar', [])];
    const right = await resolveEntry(claims('Nature'), sources());
    assert.deepEqual([right.status, right.status === 'found' && right.record.id, right.status === 'found' && right.venueUnconfirmed], ['found', 'W3004280078', undefined]);
    const wrong = await resolveEntry(claims('Science'), sources());
    assert.equal(wrong.status, 'metadata-mismatch');
    assert.deepEqual(wrong.status === 'metadata-mismatch' && wrong.differences.map((d) => [d.field, d.found]), [['venue', 'Nature']]);
  });

  it('judges an @misc that claims to be a paper, and leaves software, data and web pages unchecked, saying why', async () => {
    const sources = (): FakeSource[] => [new FakeSource('crossref', []), new FakeSource('openalex', [])];
    const paper = entry('@misc{p, title={Sparse Mixtures of Recursive Experts for Long Context}, author={Lee, Minji and Park, Joon}, year={2023}}');
    assert.equal((await resolveEntry(paper, sources())).status, 'not-found');
    const preprint = entry(
      '@misc{q, title={Sparse Mixtures of Recursive Experts}, author={Lee, Minji}, year={2023}, howpublished={arXiv preprint arXiv:2301.99999}, url={https://arxiv.org/abs/2301.99999}}',
    );
    assert.equal((await resolveEntry({ ...preprint, arxivId: undefined }, sources())).status, 'not-found');
    const cases: Array<[string, RegExp]> = [
      ['@misc{t, title={fastplot}, author={Coder, Ann}, year={2022}, url={https://github.com/ann/fastplot}}', /links to github\.com/],
      ['@misc{t, title={The Corpus}, author={Coder, Ann}, year={2022}, note={Dataset on Zenodo}}', /software, data or a web page \("Dataset"\)/],
      ['@misc{t, title={fastplot 2.1}, author={Coder, Ann}, year={2022}, version={2.1}}', /software, data or a web page/],
      ['@online{t, title={Our blog}, author={Coder, Ann}, year={2022}, urldate={2024-01-01}}', /software, data or a web page/],
      ['@misc{t, title={Guidelines}, author={{World Health Organization}}, year={2020}}', /names no person/],
      ['@misc{t, title={Notes}, author={Coder, Ann}}', /lacks a title or a year/],
    ];
    for (const [bibtex, why] of cases) {
      const verdict = await resolveEntry(entry(bibtex), sources());
      assert.equal(verdict.status, 'unchecked', bibtex);
      assert.match(verdict.status === 'unchecked' ? verdict.reason : '', why);
    }
  });

  it('says in one short line per source why it could not answer', async () => {
    const real = entry('@article{x, title={Made up or not}, author={Doe, Q.}, year={2020}}');
    const long = new SourceError('unavailable', `api.crossref.org answered HTTP 503: ${'x'.repeat(500)}`, 'crossref');
    const verdict = await resolveEntry(real, [new FakeSource('crossref', [], long), down('openalex'), new FakeSource('semanticscholar', [])]);
    const lines = verdict.status === 'unchecked' ? verdict.reason.split('\n') : [];
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.match(lines[0], /Only semanticscholar answered|Only Semantic Scholar answered/);
    assert.match(lines[1], /^Crossref: api\.crossref\.org answered HTTP 503: x+…$/);
    assert.ok(lines[1].length <= 200);
    assert.equal(lines[2], 'OpenAlex: openalex is down');
  });

  it('lists the sources that failed in their configured order, whichever failed first', async () => {
    const real = entry('@article{x, title={Made up or not}, author={Doe, Q.}, year={2020}}');
    const failingAfter = (id: SourceId, delayMs: number): PaperSource => ({
      id,
      name: id,
      search: () => new Promise((_, reject) => setTimeout(() => reject(new SourceError('timeout', `${id} timed out`, id)), delayMs)),
    });
    const verdict = await resolveEntry(real, [new FakeSource('crossref', []), failingAfter('openalex', 80), failingAfter('semanticscholar', 0)]);
    const lines = verdict.status === 'unchecked' ? verdict.reason.split('\n') : [];
    assert.deepEqual(lines.slice(1), ['OpenAlex: openalex timed out', 'Semantic Scholar: semanticscholar timed out']);
    assert.deepEqual(verdict.status === 'unchecked' && verdict.failures?.map((f) => f.source), ['openalex', 'semanticscholar']);
  });

  it('does not call a work fabricated when only sources that index part of the literature answered', async () => {
    const real = entry('@article{x, title={Made up or not}, author={Doe, Q.}, year={2020}}');
    const partial = (id: 'arxiv' | 'europepmc'): FakeSource => Object.assign(new FakeSource(id, []), { partialCoverage: true });
    const verdict = await resolveEntry(real, [down('crossref'), down('openalex'), down('semanticscholar'), partial('arxiv'), partial('europepmc')]);
    assert.equal(verdict.status, 'unchecked');
    assert.match(verdict.status === 'unchecked' ? verdict.reason : '', /^Only arXiv and Europe PMC answered, and they index only part of the literature\./);
  });

  it('reports the fields that differ when the DOI names the same work with other metadata', async () => {
    const verdict = await resolveEntry(resnetEntry('year={2019}, doi={10.1109/cvpr.2016.90}'), [new FakeSource('crossref', [RESNET])]);
    assert.equal(verdict.status, 'metadata-mismatch');
    assert.deepEqual(verdict.status === 'metadata-mismatch' && verdict.differences.map((d) => [d.field, d.expected, d.found]), [['year', '2019', '2016']]);
  });

  it('finds an entry without identifiers by title, first author and year', async () => {
    const crossref = new FakeSource('crossref', []);
    const openalex = new FakeSource('openalex', [LSTM]);
    const verdict = await resolveEntry(
      entry('@article{h97, title={Long short-term memory}, author={Hochreiter, S. and Schmidhuber, J.}, journal={Neural Computation}, year={1997}}'),
      [crossref, openalex],
    );
    assert.equal(verdict.status, 'found');
    assert.equal(verdict.status === 'found' && verdict.record.id, 'W2064675550');
    assert.deepEqual(crossref.queries[0], { title: 'Long short-term memory', authors: ['Hochreiter', 'Schmidhuber'], year: 1997, limit: 5 });
  });

  it('calls a reference no source knows possibly fabricated, naming the sources asked', async () => {
    const fabricated = entry('@article{x, title={Quantum Gradient Descent Eliminates Citation Errors}, author={Nguyen, Linh}, journal={Nature}, year={2023}}');
    const verdict = await resolveEntry(fabricated, [new FakeSource('crossref', [RESNET]), new FakeSource('openalex', [LSTM]), new FakeSource('semanticscholar', [])]);
    assert.deepEqual(verdict, { status: 'not-found', asked: ['crossref', 'openalex'] });
  });

  it('names the same sources whichever answered first, run after run', async () => {
    const fabricated = entry('@article{x, title={Quantum Gradient Descent Eliminates Citation Errors}, author={Nguyen, Linh}, journal={Nature}, year={2023}}');
    const partial = (id: SourceId, delayMs: number): PaperSource => Object.assign(new SlowSource(id, delayMs), { partialCoverage: true });
    const named = async (delays: Record<'openalex' | 'semanticscholar' | 'arxiv' | 'europepmc', number>): Promise<unknown> => {
      const sources = [
        new FakeSource('crossref', []),
        new SlowSource('openalex', delays.openalex),
        new SlowSource('semanticscholar', delays.semanticscholar),
        partial('arxiv', delays.arxiv),
        partial('europepmc', delays.europepmc),
      ];
      const verdict = await resolveEntry(fabricated, sources);
      return verdict.status === 'not-found' ? verdict.asked : verdict.status;
    };
    const slowOpenAlex = await named({ openalex: 60, semanticscholar: 5, arxiv: 1, europepmc: 1 });
    const slowOthers = await named({ openalex: 5, semanticscholar: 60, arxiv: 80, europepmc: 1 });
    assert.deepEqual(slowOpenAlex, ['crossref', 'openalex']);
    assert.deepEqual(slowOthers, slowOpenAlex);
  });

  it('names the sources asked in the configured order, whatever order they answered in', async () => {
    const fabricated = entry('@article{x, title={Quantum Gradient Descent Eliminates Citation Errors}, author={Nguyen, Linh}, year={2023}, doi={10.1234/invented}}');
    // OpenAlex cannot answer the DOI lookup, so Crossref is heard from first; OpenAlex answers the title search.
    const openalex = new FakeSource('openalex', [LSTM]);
    openalex.byDoi = async () => {
      throw new SourceError('timeout', 'slow', 'openalex');
    };
    const verdict = await resolveEntry(fabricated, [openalex, new FakeSource('crossref', [RESNET])]);
    assert.equal(verdict.status, 'not-found');
    assert.deepEqual(verdict.status === 'not-found' && verdict.asked, ['openalex', 'crossref']);
  });

  it('calls a DOI of another work under a title that exists nowhere a DOI-title conflict, saying no source has the title', async () => {
    const chimera = entry('@article{x, title={Residual Attention for Citation Checking}, author={Smith, A.}, year={2021}, doi={10.1109/cvpr.2016.90}}');
    const verdict = await resolveEntry(chimera, [new FakeSource('crossref', [RESNET]), new FakeSource('openalex', [])]);
    assert.equal(verdict.status, 'doi-title-conflict');
    assert.equal(verdict.status === 'doi-title-conflict' && verdict.record.title, RESNET.title);
    assert.deepEqual(verdict.status === 'doi-title-conflict' && verdict.titleNotFoundIn, ['crossref', 'openalex']);
  });

  it("calls a real DOI attached to another real work's title a DOI-title conflict, an error showing both titles, on the entry and its citations", async () => {
    const swapped = entry(
      '@article{h97, title={Long short-term memory}, author={Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen}, journal={Neural Computation}, year={1997}, doi={10.1109/cvpr.2016.90}}',
    );
    const verdict = await resolveEntry(swapped, [new FakeSource('crossref', [RESNET]), new FakeSource('openalex', [{ ...LSTM, doi: undefined }])]);
    assert.equal(verdict.status, 'doi-title-conflict', 'the title alone would have been found, with no DOI to disagree about');
    assert.equal(verdict.status === 'doi-title-conflict' && verdict.titled?.title, LSTM.title);
    const range = { start: { line: 2, character: 0 }, end: { line: 2, character: 10 } };
    const findings = referenceFindings(new Map([['h97', { entry: swapped, verdict }]]), [{ key: 'h97', command: '\\cite', file: '/p/main.tex', range }], false);
    assert.deepEqual(
      findings.map((f) => [f.code, f.severity, f.file]),
      [
        ['doi-title-conflict', 'error', '/p/refs.bib'],
        ['doi-title-conflict', 'error', '/p/main.tex'],
      ],
    );
    assert.match(
      findings[0].message,
      /DOI 10\.1109\/cvpr\.2016\.90 is "Deep Residual Learning for Image Recognition" in Crossref, another work than the title cited, "Long short-term memory"\. A work titled "Long Short-Term Memory" is in OpenAlex\./,
    );
    assert.deepEqual(findings[0].evidence?.differences, [{ field: 'title', expected: 'Long short-term memory', found: RESNET.title }]);
  });

  it("calls the DOI of an author's other paper a DOI-title conflict, not a title to correct", async () => {
    const identity: SourceRecord = { ...RESNET, id: 'identity', title: 'Identity Mappings in Deep Residual Networks', doi: '10.1007/978-3-319-46493-0_38', venue: 'ECCV' };
    const cited = resnetEntry('year={2016}, doi={10.1007/978-3-319-46493-0_38}');
    const verdict = await resolveEntry(cited, [new FakeSource('crossref', [identity, RESNET]), new FakeSource('openalex', [])]);
    assert.equal(verdict.status, 'doi-title-conflict');
    assert.equal(verdict.status === 'doi-title-conflict' && verdict.titled?.doi, RESNET.doi);
  });

  it("takes a DOI whose record is the cited title without its end, or another source's record of it, for the cited work", async () => {
    const shortened = resnetEntry('year={2016}, doi={10.1109/cvpr.2016.90}', 'Deep residual learning');
    assert.equal(
      (await resolveEntry(shortened, [new FakeSource('crossref', [RESNET]), new FakeSource('openalex', [])])).status,
      'metadata-mismatch',
      'a title to complete, not another work',
    );
    const oddRecord = { ...RESNET, title: 'Proceedings of the IEEE Conference on Computer Vision' };
    const verdict = await resolveEntry(resnetEntry('year={2016}, doi={10.1109/cvpr.2016.90}'), [
      new FakeSource('crossref', [oddRecord]),
      new FakeSource('openalex', [{ ...RESNET, source: 'openalex' }]),
    ]);
    assert.equal(verdict.status, 'found');
  });

  it('finds a DOI-title conflict in Crossref and OpenAlex answers as they send them', async () => {
    const server = await ScriptedServer.start((request, response) => {
      const url = decodeURIComponent(request.url ?? '');
      if (url.startsWith('/crossref/works/10.7717/peerj.4375')) sendJson(response, 200, sourceFixture('crossref/work-peerj.4375.json'));
      else if (url.startsWith('/crossref/works?')) sendJson(response, 200, sourceFixture('crossref/search-state-of-oa.json'));
      else if (url.startsWith('/openalex/works/doi:')) sendJson(response, 200, sourceFixture('openalex/work-peerj.4375.json'));
      else if (url.startsWith('/openalex/works?')) sendJson(response, 200, sourceFixture('openalex/search-state-of-oa.json'));
      else sendJson(response, 404, { status: 'error' });
    });
    try {
      const sources = [
        new CrossrefSource({ baseUrl: `${server.baseUrl}/crossref`, requestsPerSecond: 100 }),
        new OpenAlexSource({ baseUrl: `${server.baseUrl}/openalex`, requestsPerSecond: 100 }),
      ];
      const made = entry('@article{v17, title={Attention is all you need}, author={Vaswani, Ashish and Shazeer, Noam}, year={2017}, doi={10.7717/peerj.4375}}');
      const verdict = await resolveEntry(made, sources);
      assert.equal(verdict.status, 'doi-title-conflict');
      assert.match(verdict.status === 'doi-title-conflict' ? verdict.record.title : '', /^The state of OA/);
      // OpenAlex's answer to the title search (recorded) has the work the title names.
      assert.equal(verdict.status === 'doi-title-conflict' && `${verdict.titled?.source}: ${verdict.titled?.title}`, 'openalex: Attention Is All You Need');
      const real = entry(
        '@article{p18, title={The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles}, author={Piwowar, Heather and others}, year={2018}, doi={10.7717/peerj.4375}}',
      );
      assert.equal((await resolveEntry(real, sources)).status, 'found', 'the same DOI under its own title is no conflict');
    } finally {
      await server.close();
    }
  });

  it('reports a DOI that no source knows when the work is found by its title', async () => {
    const made = entry(
      '@article{h97, title={Long short-term memory}, author={Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen}, journal={Neural Computation}, year={1997}, doi={10.9999/fake.123}}',
    );
    const verdict = await resolveEntry(made, [new FakeSource('crossref', []), new FakeSource('openalex', [LSTM])]);
    assert.equal(verdict.status, 'metadata-mismatch');
    const doi = verdict.status === 'metadata-mismatch' ? verdict.differences.find((d) => d.field === 'doi') : undefined;
    assert.equal(doi?.expected, '10.9999/fake.123');
    assert.equal(doi?.found, LSTM.doi);
    const onlyOneAsked = await resolveEntry(made, [new FakeSource('openalex', [{ ...LSTM, doi: undefined }])]);
    assert.equal(onlyOneAsked.status, 'found', 'one index not knowing a DOI is not proof it does not exist');
    const bothAsked = await resolveEntry(made, [new FakeSource('crossref', []), new FakeSource('openalex', [{ ...LSTM, doi: undefined }])]);
    assert.match(bothAsked.status === 'metadata-mismatch' ? (bothAsked.differences[0].found ?? '') : '', /no such DOI in crossref, openalex|no such DOI in Crossref, OpenAlex/);
  });

  it('does not wait for more sources once two have said the DOI does not exist and the work is found by its title', async () => {
    const made = entry(
      '@article{h97, title={Long short-term memory}, author={Hochreiter, Sepp and Schmidhuber, J{\\"u}rgen}, journal={Neural Computation}, year={1997}, doi={10.9999/fake.123}}',
    );
    const slow = new SlowSource('semanticscholar', 20_000);
    const knowsNoDoi: PaperSource = Object.assign(slow, { byDoi: async () => undefined });
    const started = Date.now();
    const verdict = await resolveEntry(made, [new FakeSource('crossref', [{ ...LSTM, doi: undefined }]), knowsNoDoi]);
    assert.equal(verdict.status, 'metadata-mismatch');
    assert.ok(Date.now() - started < 5000, `waited ${Date.now() - started} ms for a source that could not change the verdict`);
  });

  it('never calls a reference fabricated when sources could not answer', async () => {
    const real = entry('@article{x, title={Made up or not}, author={Doe, Q.}, year={2020}}');
    const allDown = await resolveEntry(real, [down('crossref'), down('openalex')]);
    assert.equal(allDown.status, 'unchecked');
    assert.match(allDown.status === 'unchecked' ? allDown.reason : '', /crossref is down/);
    const oneAnswered = await resolveEntry(real, [new FakeSource('crossref', []), down('openalex'), down('semanticscholar')]);
    assert.equal(oneAnswered.status, 'unchecked');
    assert.equal((await resolveEntry(real, [])).status, 'unchecked');
  });

  it('does not call a web page or software fabricated when title searches miss it', async () => {
    const software = entry('@misc{tool, title={A plotting library nobody indexed}, author={Coder, A.}, year={2022}, howpublished={GitHub}}');
    const verdict = await resolveEntry(software, [new FakeSource('crossref', []), new FakeSource('openalex', [])]);
    assert.equal(verdict.status, 'unchecked');
  });

  it('stops when cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(resolveEntry(resnetEntry('year={2016}'), [new FakeSource('crossref', [RESNET])], { signal: controller.signal }), /cancelled/);
  });

  it('looks each key up once, reports progress, and keeps the bibliography order', async () => {
    const entries = parseBibliography(
      '@article{b, title={Long short-term memory}, author={Hochreiter, S. and Schmidhuber, J.}, year={1997}}\n@article{a, title={Nothing like it}, year={2001}}\n@article{b, title={dup}}',
      '/p/refs.bib',
    ).entries;
    const progress: string[] = [];
    const verdicts = await verifyEntries(entries, [new FakeSource('crossref', [LSTM]), new FakeSource('openalex', [])], {
      onProgress: (done, total) => progress.push(`${done}/${total}`),
      concurrency: 2,
    });
    assert.deepEqual([...verdicts.keys()], ['b', 'a']);
    assert.deepEqual(
      [...verdicts.values()].map((v) => v.verdict.status),
      ['found', 'not-found'],
    );
    assert.deepEqual(progress, ['1/2', '2/2']);
  });

  it('stops at the time limit, calling the rest unchecked, and asks again next time', async () => {
    const entries = parseBibliography('@article{a, title={Some study of things}, author={Doe, Q.}, year={2020}}', '/p/refs.bib').entries;
    const cache = new VerdictCache();
    const started = Date.now();
    const verdicts = await verifyEntries(entries, [new SlowSource('crossref', 10_000), new SlowSource('openalex', 10_000)], { timeLimitMs: 200, cache });
    assert.ok(Date.now() - started < 2000);
    const verdict = verdicts.get('a')?.verdict;
    assert.equal(verdict?.status, 'unchecked');
    assert.match(verdict?.status === 'unchecked' ? verdict.reason : '', /time limit \(0 s\)|time limit/);
    assert.equal(cache.get(entries[0]), undefined, 'an entry the time ran out on is looked up next time');
  });

  it('keeps a failure for a few minutes, so an edit elsewhere does not ask the failing sources again', async () => {
    const entries = parseBibliography('@article{a, title={Some study of things}, author={Doe, Q.}, year={2020}}', '/p/refs.bib').entries;
    const cache = new VerdictCache();
    const crossref = down('crossref');
    await verifyEntries(entries, [crossref, down('openalex')], { cache });
    await verifyEntries(entries, [crossref, down('openalex')], { cache });
    assert.equal(crossref.queries.length, 1);
  });

  it('sums up in one plain line per cause how many references were not checked, naming the sources and not their hosts', async () => {
    const entries = parseBibliography(
      '@article{a, title={First study}, author={Doe, Q.}, year={2020}}\n@article{b, title={Second study}, author={Roe, R.}, year={2021}}\n@book{c, title={A handbook}, author={Poe, E.}, year={1999}}',
      '/p/refs.bib',
    ).entries;
    const unreachable = (id: SourceId): FakeSource =>
      new FakeSource(id, [], new SourceError('unreachable', '127.0.0.1:38766 is skipped for the rest of the check after 3 failures in a row, the last: connection refused', id));
    const limited = new FakeSource(
      'semanticscholar',
      [],
      new SourceError('rate-limited', "127.0.0.1:38766 is limiting Attest's requests; gave up after 4 attempts.", 'semanticscholar'),
    );
    const arxiv = Object.assign(new FakeSource('arxiv', []), { partialCoverage: true });
    const verdicts = await verifyEntries(entries.slice(0, 2), [unreachable('crossref'), unreachable('openalex'), limited, arxiv]);
    const books = await verifyEntries(entries.slice(2), [new FakeSource('crossref', []), new FakeSource('openalex', [])]);
    const summary = describeUnchecked(new Map([...verdicts, ...books])) ?? '';
    assert.deepEqual(summary.split('\n'), [
      'Crossref and OpenAlex could not be reached (offline, or a proxy or firewall in the way?): 2 references not checked.',
      'Semantic Scholar asked Attest to slow down: 2 references not checked.',
      '1 reference of a kind the sources index incompletely (a book, software, data, a web page) was not found there; not checked, and not marked wrong.',
    ]);
    assert.equal(describeUnchecked(new Map()), undefined);
  });

  it('reports a fabricated reference on its entry and on every citation of it; unchecked ones only on request', async () => {
    const entries = parseBibliography('@article{fake, title={An invented study of things}, year={2020}}\n@article{odd, title={Unreachable}, year={2020}}', '/p/refs.bib').entries;
    const sources = [new FakeSource('crossref', []), new FakeSource('openalex', [])];
    const verdicts = await verifyEntries(entries.slice(0, 1), sources);
    const unchecked = await verifyEntries(entries.slice(1), [down('crossref')]);
    const range = { start: { line: 3, character: 6 }, end: { line: 3, character: 10 } };
    const citations = [{ key: 'fake', command: '\\cite', file: '/p/main.tex', range }];
    const findings = referenceFindings(verdicts, citations, false);
    assert.deepEqual(
      findings.map((f) => [f.code, f.severity, f.file]),
      [
        ['not-found', 'error', '/p/refs.bib'],
        ['not-found', 'error', '/p/main.tex'],
      ],
    );
    assert.match(findings[0].message, /No record of 'fake' in Crossref, OpenAlex; possibly fabricated\./);
    assert.deepEqual(findings[0].evidence?.asked, ['Crossref', 'OpenAlex']);
    assert.deepEqual(referenceFindings(unchecked, [], false), []);
    assert.deepEqual(
      referenceFindings(unchecked, [], true).map((f) => [f.code, f.severity]),
      [['unchecked', 'hint']],
    );
  });
});

/** Minutes from now, as `VerdictCache` reads the clock. */
async function later<T>(minutes: number, run: () => Promise<T>): Promise<T> {
  const now = Date.now;
  const then = now() + minutes * 60_000;
  Date.now = () => then;
  try {
    return await run();
  } finally {
    Date.now = now;
  }
}

describe('verdicts a failure shaped', () => {
  const entries = parseBibliography('@article{a, title={Some study of things}, author={Doe, Q.}, year={2020}}', '/p/refs.bib').entries;

  it('looks a "not found" up again a few minutes on when a source could not answer, and keeps one all the sources gave', async () => {
    const cache = new VerdictCache();
    const failed = await verifyEntries(entries, [down('crossref'), new FakeSource('openalex', []), new FakeSource('semanticscholar', [])], { cache });
    assert.equal(failed.get('a')?.verdict.status, 'not-found');
    assert.equal(await later(6, async () => cache.get(entries[0])), undefined, 'Crossref, down then, may have the work');
    const answered = await verifyEntries(entries, [new FakeSource('crossref', []), new FakeSource('openalex', [])], { cache });
    assert.equal(answered.get('a')?.verdict.status, 'not-found');
    assert.equal((await later(60, async () => cache.get(entries[0])))?.verdict.status, 'not-found');
  });
});

describe('checks at once', () => {
  /** Crossref answering by DOI after `delayMs`, unless its question is cancelled first. */
  class DelayedCrossref implements PaperSource {
    readonly id = 'crossref';
    readonly name = 'Crossref';
    asked = 0;

    constructor(private readonly delayMs: number) {}

    byDoi(doi: string, options?: RequestOptions): Promise<SourceRecord | undefined> {
      this.asked++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(doi.toLowerCase() === RESNET.doi ? RESNET : undefined), this.delayMs);
        options?.signal?.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(new SourceError('cancelled', 'cancelled', this.id));
        });
      });
    }

    async search(): Promise<SourceRecord[]> {
      return [];
    }
  }

  const resnet = [resnetEntry('year={2016}, doi={10.1109/CVPR.2016.90}')];

  it('look an entry up once when two checks ask for it at the same time', async () => {
    const crossref = new DelayedCrossref(50);
    const cache = new VerdictCache();
    const [first, second] = await Promise.all([verifyEntries(resnet, [crossref], { cache }), verifyEntries(resnet, [crossref], { cache })]);
    assert.deepEqual([first.get('he2016')?.verdict.status, second.get('he2016')?.verdict.status], ['found', 'found']);
    assert.equal(crossref.asked, 1);
  });

  it('look the entry up again when the check whose lookup they waited for is cancelled', async () => {
    const crossref = new DelayedCrossref(200);
    const cache = new VerdictCache();
    const controller = new AbortController();
    const cancelled = verifyEntries(resnet, [crossref], { cache, signal: controller.signal });
    const waiting = verifyEntries(resnet, [crossref], { cache });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(cancelled, /cancelled/);
    assert.equal((await waiting).get('he2016')?.verdict.status, 'found');
    assert.equal(crossref.asked, 2);
  });
});

describe('abstracts of found references', () => {
  /** The Literature Graph paper as Crossref has it: no abstract. */
  const crossref = (): FakeSource => new FakeSource('crossref', [{ ...LITERATURE_GRAPH }]);
  const LITERATURE_GRAPH: SourceRecord = {
    source: 'crossref',
    id: '10.18653/v1/n18-3011',
    title: 'Construction of the Literature Graph in Semantic Scholar',
    authors: [
      { family: 'Ammar', given: 'Waleed' },
      { family: 'Groeneveld', given: 'Dirk' },
      { family: 'Bhagavatula', given: 'Chandra' },
      { family: 'Beltagy', given: 'Iz' },
    ],
    year: 2018,
    doi: '10.18653/v1/n18-3011',
  };
  const cited = parseBibliography(
    '@inproceedings{ammar2018, title={Construction of the Literature Graph in Semantic Scholar}, author={Ammar, Waleed and Groeneveld, Dirk and Bhagavatula, Chandra and Beltagy, Iz}, year={2018}, doi={10.18653/v1/n18-3011}}',
    '/p/refs.bib',
  ).entries;
  const PAPER = sourceFixture('semanticscholar/paper-doi.json') as Record<string, unknown>;
  let server: ScriptedServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('asks again at the next check for an abstract whose fetch the time limit cut short', async () => {
    // Semantic Scholar stalls past the check's time limit, then answers.
    server = await ScriptedServer.start((_request, response, index) => {
      if (index > 0) sendJson(response, 200, PAPER);
    });
    const semanticScholar = new SemanticScholarSource({ baseUrl: server.baseUrl, requestsPerSecond: 100 });
    const cache = new VerdictCache();
    const first = (await verifyEntries(cited, [crossref(), semanticScholar], { cache, timeLimitMs: 300 })).get('ammar2018');
    assert.equal(first?.verdict.status, 'found');
    assert.equal(first?.abstract, undefined);
    const second = (await verifyEntries(cited, [crossref(), semanticScholar], { cache, timeLimitMs: 5000 })).get('ammar2018');
    assert.equal(second?.abstract?.from, 'semanticscholar');
    assert.match(second?.abstract?.text ?? '', /^We describe a deployed scalable system/);
    assert.equal(server.requests.length, 2);
    await verifyEntries(cited, [crossref(), semanticScholar], { cache });
    assert.equal(server.requests.length, 2, 'the abstract found is kept');
  });

  it('asks again for an abstract when the source that has it failed, and keeps "no abstract" when every source answered', async () => {
    let failures = 1;
    const flaky: PaperSource = {
      id: 'semanticscholar',
      name: 'Semantic Scholar',
      search: async () => [],
      byDoi: async () => {
        if (failures-- > 0) throw new SourceError('unavailable', 'api.semanticscholar.org answered HTTP 503; gave up after 4 attempts.', 'semanticscholar');
        return {
          ...LITERATURE_GRAPH,
          source: 'semanticscholar',
          abstract: 'We describe a deployed scalable system. It organises published literature into a graph of papers, authors and citations.',
        };
      },
    };
    const cache = new VerdictCache();
    assert.equal((await verifyEntries(cited, [crossref(), flaky], { cache })).get('ammar2018')?.abstract, undefined);
    assert.equal((await verifyEntries(cited, [crossref(), flaky], { cache })).get('ammar2018')?.abstract?.from, 'semanticscholar');

    server = await ScriptedServer.start((_request, response) => sendJson(response, 200, { ...PAPER, abstract: null }));
    const none = new SemanticScholarSource({ baseUrl: server.baseUrl, requestsPerSecond: 100 });
    const kept = new VerdictCache();
    await verifyEntries(cited, [crossref(), none], { cache: kept });
    const again = await verifyEntries(cited, [crossref(), none], { cache: kept });
    assert.equal(again.get('ammar2018')?.verdict.status, 'found');
    assert.equal(again.get('ammar2018')?.abstract, undefined);
    assert.equal(server.requests.length, 1, 'a record without an abstract is an answer');
  });
});
