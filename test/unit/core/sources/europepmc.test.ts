import assert from 'node:assert/strict';
import type { EuropePmcOptions } from '../../../../src/core/sources/europepmc';
import { EuropePmcSource, parseEuropePmcResult, parseEuropePmcSearch } from '../../../../src/core/sources/europepmc';
import type { SourceRecord } from '../../../../src/core/sources/types';
import { isNotAsked } from '../../support/helpers';
import { sourceFixture } from '../../support/fixtures';
import type { Handler } from '../../support/server';
import { ScriptedServer, sendJson, sendText } from '../../support/server';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const BY_DOI = sourceFixture('europepmc/doi-nature.json');
const SEARCH = sourceFixture('europepmc/search-title.json');
const EMPTY = sourceFixture('europepmc/empty.json');

const BAT_CORONAVIRUS: SourceRecord = {
  source: 'europepmc',
  id: '32015507',
  url: 'https://europepmc.org/article/MED/32015507',
  title: 'A pneumonia outbreak associated with a new coronavirus of probable bat origin',
  authors: [
    { family: 'Zhou', given: 'Peng' },
    { family: 'Yang', given: 'Xing-Lou' },
    { family: 'Shi', given: 'Zheng-Li' },
  ],
  year: 2020,
  venue: 'Nature',
  doi: '10.1038/s41586-020-2012-7',
  pmid: '32015507',
  pmcid: 'PMC7095418',
  abstract:
    'Since the outbreak of severe acute respiratory syndrome (SARS) 18 years ago, a large number of SARS-related coronaviruses (SARSr-CoVs) ' +
    'have been discovered in their natural reservoir host, bats1-4. Previous studies have shown that some bat SARSr-CoVs have the potential ' +
    'to infect humans5-7. Here we report the identification and characterization of a new coronavirus (2019-nCoV), which caused an epidemic ' +
    'of acute respiratory syndrome in humans in Wuhan, China.',
  openAccessUrl: 'https://europepmc.org/articles/PMC7095418?pdf=render',
  updates: { notices: [] },
};

const { failsWith, assertMalformed } = sourceErrorAsserts('europepmc');

describe('Europe PMC', () => {
  describe('reading results', () => {
    it('maps a core result to a record: structured names, journal, open-access PDF before the web page', () => {
      assert.deepEqual(parseEuropePmcSearch(BY_DOI), [BAT_CORONAVIRUS]);
    });

    it('reads group authors, MEDLINE names, HTML abstracts and preprints', () => {
      const [lancet, preprint] = parseEuropePmcSearch(SEARCH);
      assert.equal(lancet.title, 'Global burden of bacterial antimicrobial resistance in 2019: a systematic analysis');
      assert.deepEqual(lancet.authors, [{ literal: 'Antimicrobial Resistance Collaborators' }, { family: 'Murray', given: 'CJL' }]);
      assert.equal(
        lancet.abstract,
        'Background Antimicrobial resistance (AMR) poses a major threat to human health around the world. ' +
          'Methods We estimated deaths and disability-adjusted life-years attributable to and associated with bacterial AMR for 23 pathogens. ' +
          'Findings On the basis of our predictive statistical models, there were an estimated 4·95 million deaths associated with bacterial AMR in 2019.',
      );
      assert.equal(lancet.doi, '10.1016/s0140-6736(21)02724-0');
      assert.equal(lancet.openAccessUrl, 'https://europepmc.org/articles/PMC8841637', 'free to read, though not open access');
      assert.equal(preprint.url, 'https://europepmc.org/article/PPR/PPR465421');
      assert.equal(preprint.venue, 'medRxiv', 'the preprint server');
      assert.deepEqual(preprint.authors, [
        { family: 'Murray', given: 'Christopher J' },
        { family: 'Ikuta', given: 'KS' },
      ]);
      assert.equal(preprint.openAccessUrl, undefined);
    });

    it('reads an answer without hits as no records', () => {
      assert.deepEqual(parseEuropePmcSearch(EMPTY), []);
    });

    it('rejects answers of the wrong shape as malformed', () => {
      assertMalformed(() => parseEuropePmcSearch({ version: '6.9' }));
      assertMalformed(() => parseEuropePmcSearch({ hitCount: 1, resultList: { result: {} } }));
      assertMalformed(() => parseEuropePmcSearch([BY_DOI]));
      assertMalformed(() => parseEuropePmcResult({ title: 'No id', source: 'MED' }));
      assertMalformed(() => parseEuropePmcResult('32015507'));
    });
  });

  describe('asking the API', () => {
    const servers: ScriptedServer[] = [];

    async function serve(handler: Handler): Promise<ScriptedServer> {
      const server = await ScriptedServer.start(handler);
      servers.push(server);
      return server;
    }

    function epmc(server: ScriptedServer, options: EuropePmcOptions = {}): EuropePmcSource {
      return new EuropePmcSource({ baseUrl: server.baseUrl, ...options });
    }

    function sent(server: ScriptedServer, index = 0): URL {
      return new URL(server.requests[index].url, server.baseUrl);
    }

    afterEach(async () => {
      await Promise.all(servers.splice(0).map((s) => s.close()));
    });

    it('looks a DOI up with a DOI:"…" query for core results', async () => {
      const server = await serve((_, res) => sendJson(res, 200, BY_DOI));
      assert.deepEqual(await epmc(server).byDoi('doi:10.1038/S41586-020-2012-7'), BAT_CORONAVIRUS);
      const url = sent(server);
      assert.equal(url.pathname, '/europepmc/webservices/rest/search');
      assert.equal(url.searchParams.get('query'), 'DOI:"10.1038/s41586-020-2012-7"');
      assert.equal(url.searchParams.get('resultType'), 'core');
      assert.equal(url.searchParams.get('format'), 'json');
    });

    it('answers undefined when no result has the DOI', async () => {
      const empty = await serve((_, res) => sendJson(res, 200, EMPTY));
      assert.equal(await epmc(empty).byDoi('10.1234/not-indexed'), undefined);
      const other = await serve((_, res) => sendJson(res, 200, BY_DOI));
      assert.equal(await epmc(other).byDoi('10.1038/s41586-020-2008-3'), undefined, 'a result for another DOI is not an answer');
    });

    it('refuses, without asking, text that is no DOI and a title without words: no answer, never "no such work"', async () => {
      const server = await serve((_, res) => sendJson(res, 200, BY_DOI));
      await assert.rejects(epmc(server).byDoi('s41586-020-2012-7'), isNotAsked);
      await assert.rejects(epmc(server).search({ title: '"()"' }), isNotAsked);
      assert.equal(server.requests.length, 0);
    });

    it('searches the title as a phrase, with the first author', async () => {
      const server = await serve((_, res) => sendJson(res, 200, SEARCH));
      const records = await epmc(server).search({ title: 'Global burden of bacterial "antimicrobial resistance" in {2019}', authors: ['Murray', 'Ikuta'], limit: 2 });
      assert.equal(records.length, 2);
      const url = sent(server);
      assert.equal(url.searchParams.get('query'), 'TITLE:"Global burden of bacterial antimicrobial resistance in 2019" AND AUTH:"Murray"');
      assert.equal(url.searchParams.get('pageSize'), '2');
    });

    it('searches by title alone when the entry names no author', async () => {
      const server = await serve((_, res) => sendJson(res, 200, EMPTY));
      assert.deepEqual(await epmc(server).search({ title: 'A title nobody wrote' }), []);
      assert.equal(sent(server).searchParams.get('query'), 'TITLE:"A title nobody wrote"');
    });

    it('reports an answer of the wrong shape or not JSON as malformed', async () => {
      const wrongShape = await serve((_, res) => sendJson(res, 200, { version: '6.9', errCode: 500, errMsg: 'Internal error' }));
      await failsWith(epmc(wrongShape).byDoi('10.1038/s41586-020-2012-7'), 'malformed');
      const xml = await serve((_, res) => sendText(res, 200, '<responseWrapper><hitCount>0</hitCount></responseWrapper>', { 'content-type': 'application/xml' }));
      await failsWith(epmc(xml).search({ title: 'Anything' }), 'malformed');
    });
  });
});
