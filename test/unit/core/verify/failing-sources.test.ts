import assert from 'node:assert/strict';
import type * as http from 'node:http';
import { parseBibliography } from '../../../../src/core/bibliography/parse';
import { SOURCE_IDS, sourcesConfigFrom } from '../../../../src/core/sources/config';
import { createSources, publicOrigin, type SourceSecrets } from '../../../../src/core/sources/registry';
import { describeUnchecked, failureReasons, referenceFindings, unreachedSources, verifyEntries } from '../../../../src/core/verify/references';
import { ScriptedServer, sendJson, sendText } from '../../support/server';

const KEY = 'sk-attest-test-5b9e1c';

/** Three papers every source knows: a failure that makes any of them "not found" is a false accusation. */
const CLASSICS = parseBibliography(
  `@inproceedings{vaswani2017, title={Attention Is All You Need}, author={Vaswani, Ashish and Shazeer, Noam and Parmar, Niki}, booktitle={NeurIPS}, year={2017}, eprint={1706.03762}, archiveprefix={arXiv}}
@inproceedings{he2016, title={Deep Residual Learning for Image Recognition}, author={He, Kaiming and Zhang, Xiangyu}, booktitle={CVPR}, year={2016}, doi={10.1109/CVPR.2016.90}}
@inproceedings{devlin2019, title={BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding}, author={Devlin, Jacob and Chang, Ming-Wei}, booktitle={NAACL}, year={2019}}`,
  '/p/refs.bib',
).entries;

type Respond = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** The ways a source, a mirror or a proxy in front of it fails, each answering every request. */
const FAILURES: ReadonlyArray<readonly [string, (elsewhere: string) => Respond]> = [
  ['404 for everything (a retired API path)', () => (_, res) => sendText(res, 404, 'Resource not found.')],
  ['410 for everything', () => (_, res) => sendText(res, 410, 'Gone')],
  ['503 for everything', () => (_, res) => sendText(res, 503, 'Service Unavailable')],
  ['an HTML page with 200 (a captive portal)', () => (_, res) => sendText(res, 200, '<!DOCTYPE html><html><body>Sign in</body></html>', { 'content-type': 'text/html' })],
  ['an empty JSON object', () => (_, res) => sendJson(res, 200, {})],
  ['an empty body', () => (_, res) => sendText(res, 200, '')],
  ['429 asking to wait 59 s', () => (_, res) => sendText(res, 429, 'Too Many Requests', { 'retry-after': '59' })],
  [
    'a byte every second (a slow drip)',
    () => (_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const drip = setInterval(() => res.write(' '), 1000);
      res.on('close', () => clearInterval(drip));
    },
  ],
  ['a redirect to a 404 on another host', (elsewhere) => (req, res) => sendText(res, 302, '', { location: `${elsewhere}${req.url ?? '/'}` })],
  ['401 echoing the key', () => (req, res) => sendText(res, 401, `Invalid key ${String(req.headers['x-api-key'] ?? req.headers.authorization ?? '')} for ${req.url}`)],
];

describe('references against sources that fail', () => {
  const servers: ScriptedServer[] = [];

  async function serve(respond: Respond): Promise<ScriptedServer> {
    const server = await ScriptedServer.start((req, res) => respond(req, res));
    servers.push(server);
    return server;
  }

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  /** Every source at `base`, with its keys given for that origin, so a failure that printed one would show it. */
  function sourcesAt(base: string, secrets?: SourceSecrets): ReturnType<typeof createSources> {
    const settings: Record<string, unknown> = { 'attest.sources.enabled': SOURCE_IDS };
    for (const id of SOURCE_IDS) {
      settings[`attest.sources.${id}.baseUrl`] = `${base}/${id}`;
      settings[`attest.sources.${id}.requestsPerSecond`] = 1000;
    }
    const origin = new URL(base).origin;
    const key = { value: KEY, origin };
    const { config } = sourcesConfigFrom((name) => settings[name]);
    return createSources(config, secrets ?? { openalexApiKey: key, semanticscholarApiKey: key, coreApiKey: key, crossrefPlusToken: key });
  }

  for (const [name, failure] of FAILURES) {
    it(`calls no classic paper "not found" and prints no key when every source answers ${name}`, async () => {
      const elsewhere = await serve((_, res) => sendText(res, 404, 'Not Found'));
      const server = await serve(failure(elsewhere.baseUrl));
      const verdicts = await verifyEntries(CLASSICS, sourcesAt(server.baseUrl), { timeLimitMs: 2500 });
      assert.deepEqual(
        [...verdicts.values()].map((l) => l.verdict.status),
        ['unchecked', 'unchecked', 'unchecked'],
      );
      const said = JSON.stringify([...verdicts.values()]) + describeUnchecked(verdicts) + JSON.stringify(referenceFindings(verdicts, [], true));
      assert.ok(!said.includes(KEY) && !said.includes(KEY.slice(3, 12)), said);
      assert.ok(server.requests.length > 0);
    });
  }

  it('says plainly, in one sentence, that no source could be reached when nothing answers at the address', async () => {
    // A server closed at once leaves a port where nothing listens: every connection is refused.
    const gone = await ScriptedServer.start((_, res) => sendText(res, 200, ''));
    const base = gone.baseUrl;
    await gone.close();
    const verdicts = await verifyEntries(CLASSICS, sourcesAt(base), { timeLimitMs: 10_000 });
    assert.deepEqual(
      [...verdicts.values()].map((l) => l.verdict.status),
      ['unchecked', 'unchecked', 'unchecked'],
    );
    // Open Library is asked about books only, and these are articles.
    assert.deepEqual(unreachedSources(verdicts)?.sort(), SOURCE_IDS.filter((id) => id !== 'openlibrary').sort());
    assert.match(
      describeUnchecked(verdicts) ?? '',
      /^No source could be reached \(.*Crossref.*\), so none of the 3 references was checked; none is marked wrong\. Check the internet connection, or a proxy or firewall between this machine and the sources\.$/,
    );
    // The sources' own words, host and all, are kept for the log.
    assert.ok(
      [...failureReasons(verdicts).keys()].some((reason) => reason.includes(new URL(base).host)),
      [...failureReasons(verdicts).keys()].join('\n'),
    );
  });

  it('does not call sources unreachable that answered, even with errors', async () => {
    const server = await serve((_, res) => sendText(res, 503, 'Service Unavailable'));
    const verdicts = await verifyEntries(CLASSICS, sourcesAt(server.baseUrl), { timeLimitMs: 2500 });
    assert.equal(unreachedSources(verdicts), undefined);
    assert.doesNotMatch(describeUnchecked(verdicts) ?? '', /could not be reached|No source could be reached/);
  });

  it('skips a source that asks to wait 59 s for the rest of the check, says why once, and asks it again in the next check', async () => {
    const server = await serve((_, res) => sendText(res, 429, 'Too Many Requests', { 'retry-after': '59' }));
    const sources = sourcesAt(server.baseUrl);
    const first = await verifyEntries(CLASSICS, sources, { concurrency: 1 });
    const askedInFirst = server.requests.length;
    // Once per source at most: each is skipped after its first refusal, for every later reference.
    assert.ok(askedInFirst <= SOURCE_IDS.length, `${askedInFirst} requests`);
    assert.equal(describeUnchecked(first)?.split('\n').length, 1);
    await verifyEntries(CLASSICS, sources, { concurrency: 1 });
    assert.ok(server.requests.length > askedInFirst, 'the next check asks the sources afresh');
  });

  describe('an identifier or title no source can be asked about', () => {
    /** As arXiv's own listing prints the id: with its primary category. */
    const WITH_CATEGORY = parseBibliography(
      `@misc{vaswani2017, title={Attention Is All You Need}, author={Vaswani, Ashish}, year={2017}, eprint={1706.03762 [cs.CL]}, archiveprefix={arXiv}}`,
      '/p/refs.bib',
    ).entries;
    const UNASKABLE = parseBibliography(
      `@misc{a, title={Attention Is All You Need}, author={Vaswani, Ashish}, year={2017}, eprint={not-an-id}, archiveprefix={arXiv}}
@misc{b, author={Vaswani, Ashish}, year={2017}, eprint={not-an-id}, archiveprefix={arXiv}}
@article{c, title={???}, author={Vaswani, Ashish}, journal={Nature}, year={2017}}`,
      '/p/refs.bib',
    ).entries;

    function offline(): ReturnType<typeof createSources> {
      const settings: Record<string, unknown> = { 'attest.sources.enabled': SOURCE_IDS, 'attest.sources.offline': true };
      return createSources(sourcesConfigFrom((name) => settings[name]).config, {});
    }

    it('reads an arXiv id written with its category, and asks the sources about it', async () => {
      assert.equal(WITH_CATEGORY[0].arxivId, '1706.03762');
      const server = await serve((_, res) => sendText(res, 404, 'Not Found'));
      await verifyEntries(WITH_CATEGORY, sourcesAt(server.baseUrl), { timeLimitMs: 2500 });
      assert.ok(
        server.requests.some((r) => r.url.includes('1706.03762')),
        server.requests.map((r) => r.url).join('\n'),
      );
    });

    it('calls nothing "not found" offline, where no lookup was made', async () => {
      const verdicts = await verifyEntries([...WITH_CATEGORY, ...UNASKABLE], offline(), { timeLimitMs: 2500 });
      assert.deepEqual(
        [...verdicts.values()].map((l) => l.verdict.status),
        ['unchecked', 'unchecked', 'unchecked', 'unchecked'],
      );
    });

    it('counts no lookup it could not make as an answer when the sources answer 404 to everything', async () => {
      const server = await serve((_, res) => sendText(res, 404, 'Not Found'));
      const verdicts = await verifyEntries(UNASKABLE, sourcesAt(server.baseUrl), { timeLimitMs: 2500 });
      assert.deepEqual(
        [...verdicts.values()].map((l) => l.verdict.status),
        ['unchecked', 'unchecked', 'unchecked'],
      );
    });
  });

  it('sends a key only to the origin it was stored for', async () => {
    const server = await serve((_, res) => sendText(res, 503, ''));
    const forPublicApi = Object.fromEntries(
      (['openalexApiKey', 'semanticscholarApiKey', 'coreApiKey', 'crossrefPlusToken'] as const).map((name) => [
        name,
        {
          value: KEY,
          origin: publicOrigin(name === 'crossrefPlusToken' ? 'crossref' : name === 'coreApiKey' ? 'core' : name === 'openalexApiKey' ? 'openalex' : 'semanticscholar'),
        },
      ]),
    ) as SourceSecrets;
    await verifyEntries(CLASSICS.slice(0, 1), sourcesAt(server.baseUrl, forPublicApi), { timeLimitMs: 500 });
    assert.ok(server.requests.length > 0);
    for (const request of server.requests) {
      assert.ok(!JSON.stringify(request).includes(KEY), `a key went to ${server.baseUrl}: ${JSON.stringify(request)}`);
    }
  });
});
