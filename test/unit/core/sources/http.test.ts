import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LookupCache, MAX_ENTRY_BYTES } from '../../../../src/core/sources/cache';
import type { HttpClientOptions } from '../../../../src/core/sources/http';
import { CheckRun } from '../../../../src/core/sources/health';
import { HttpClient } from '../../../../src/core/sources/http';
import { SourceError } from '../../../../src/core/sources/types';
import type { Handler } from '../../support/server';
import { delay, ScriptedServer, sendJson, sendText } from '../../support/server';
import { listFiles, makeTempDir } from '../../support/tempDir';
import { sourceErrorAsserts } from '../../support/sourceErrors';

const SECRET = 'sk-very-secret-4f2a';

const { failsWith } = sourceErrorAsserts('openalex');

describe('the HTTP client of the sources', () => {
  const servers: ScriptedServer[] = [];
  const cleanups: Array<() => Promise<void>> = [];

  async function serve(handler: Handler): Promise<ScriptedServer> {
    const server = await ScriptedServer.start(handler);
    servers.push(server);
    return server;
  }

  function client(server: ScriptedServer, options: Partial<HttpClientOptions> = {}): HttpClient {
    return new HttpClient({
      source: 'openalex',
      baseUrl: server.baseUrl,
      requestsPerSecond: 1000,
      maxConcurrent: 8,
      backoffMs: 5,
      timeoutMs: 2000,
      ...options,
    });
  }

  async function tempCache(): Promise<{ dir: string; cache: LookupCache }> {
    const temp = await makeTempDir();
    cleanups.push(temp.remove);
    return { dir: temp.dir, cache: new LookupCache(temp.dir) };
  }

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await Promise.all(cleanups.splice(0).map((remove) => remove()));
  });

  describe('answers', () => {
    it('returns the parsed JSON body and sends a polite User-Agent with the contact address', async () => {
      const server = await serve((_, res) => sendJson(res, 200, { id: 'W1', title: 'A work' }));
      const http = client(server, { email: 'me@example.org', privateParams: { api_key: SECRET } });
      const body = await http.getJson('/works/doi:10.1/x', { select: 'id,title' });
      assert.deepEqual(body, { id: 'W1', title: 'A work' });
      const [request] = server.requests;
      assert.match(String(request.headers['user-agent']), /^Attest\/\d+\.\d+\.\d+ \(mailto:me@example\.org\)$/);
      const sent = new URL(request.url, server.baseUrl);
      assert.equal(sent.pathname, '/works/doi:10.1/x');
      assert.equal(sent.searchParams.get('select'), 'id,title');
      assert.equal(sent.searchParams.get('api_key'), SECRET);
    });

    it('omits the contact address from the User-Agent when none is configured', async () => {
      const server = await serve((_, res) => sendJson(res, 200, {}));
      await client(server).getJson('/');
      assert.match(String(server.requests[0].headers['user-agent']), /^Attest\/\d+\.\d+\.\d+$/);
    });

    it('returns text bodies (XML) as they are', async () => {
      const xml = '<?xml version="1.0"?><feed><entry><title>Ünïcode</title></entry></feed>';
      const server = await serve((_, res) => sendText(res, 200, xml, { 'content-type': 'application/atom+xml' }));
      assert.equal(await client(server).getText('/query', { id_list: '2305.18248' }), xml);
    });

    it('resolves an identifier lookup\'s 404 to undefined once the source has answered properly, telling "no such work" apart from a failure', async () => {
      const server = await serve((req, res) => (req.url?.includes('missing') ? sendText(res, 404, 'Resource not found.') : sendJson(res, 200, { id: 'W1' })));
      const http = client(server);
      await http.lookupJson('/works/W1', {}, {}, (json) => json);
      assert.equal(await http.lookupJson('/works/10.1/missing', {}, {}, (json) => json), undefined);
      assert.equal(server.requests.length, 2, 'a 404 is an answer, not retried');
    });
  });

  describe('failures that are never "no such work"', () => {
    const notFound = (res: Parameters<Handler>[1]): void => sendText(res, 404, 'Resource not found.');

    it('takes a 404 or 410 of a search for a failure, not for "found nothing"', async () => {
      for (const status of [404, 410]) {
        const server = await serve((_, res) => sendText(res, status, 'Gone'));
        const error = await failsWith(client(server).getJson('/works', { search: 'attention' }), 'unavailable');
        assert.match(error.message, new RegExp(`HTTP ${status}`));
      }
    });

    it("takes an identifier lookup's 404 for a failure while the source has not answered properly", async () => {
      const server = await serve((_, res) => notFound(res));
      const http = client(server);
      for (let i = 0; i < 4; i++)
        await failsWith(
          http.lookupJson(`/works/10.1/x${i}`, {}, {}, (json) => json),
          'unavailable',
        );
      assert.equal(server.requests.length, 4, 'unconfirmed 404s are no reason to skip the source');
    });

    it('takes a 404 page in HTML, or a 410, for a failure even from a source that answers', async () => {
      const server = await serve((req, res) => {
        if (req.url === '/works/ok') return sendJson(res, 200, { id: 'W1' });
        if (req.url?.includes('gone')) return sendText(res, 410, 'Gone');
        return sendText(res, 404, '<html><body>Not Found</body></html>', { 'content-type': 'text/html' });
      });
      const http = client(server);
      await http.lookupJson('/works/ok', {}, {}, (json) => json);
      await failsWith(
        http.lookupJson('/works/10.1/x', {}, {}, (json) => json),
        'unavailable',
      );
      await failsWith(
        http.lookupJson('/works/gone', {}, {}, (json) => json),
        'unavailable',
      );
    });

    it('takes a 404 reached through a redirect to another host for a failure', async () => {
      const other = await serve((_, res) => notFound(res));
      const server = await serve((req, res) => (req.url === '/works/ok' ? sendJson(res, 200, { id: 'W1' }) : sendText(res, 302, '', { location: `${other.baseUrl}/x` })));
      const http = client(server);
      await http.lookupJson('/works/ok', {}, {}, (json) => json);
      await failsWith(
        http.lookupJson('/works/10.1/x', {}, {}, (json) => json),
        'unavailable',
      );
    });

    it('takes an HTML page or an empty body sent with 200 for a malformed answer', async () => {
      const html = await serve((_, res) => sendText(res, 200, '<!doctype html><title>Proxy</title>', { 'content-type': 'text/html' }));
      assert.match((await failsWith(client(html).getJson('/works'), 'malformed')).message, /HTML page/);
      const empty = await serve((_, res) => sendText(res, 200, ''));
      assert.match((await failsWith(client(empty).getJson('/works'), 'malformed')).message, /empty answer/);
    });

    it('refuses with "unauthorized" on 401 and 403, naming the setting and hiding the key', async () => {
      for (const status of [401, 403]) {
        const server = await serve((_, res) => sendJson(res, status, { error: 'Invalid API key', key: SECRET }));
        const http = client(server, {
          privateHeaders: { 'x-api-key': SECRET },
          credentialsSetting: 'attest.sources.openalex.apiKey',
        });
        const error = await failsWith(http.getJson('/works'), 'unauthorized');
        assert.match(error.message, /attest\.sources\.openalex\.apiKey/);
        assert.match(error.message, new RegExp(`HTTP ${status}.*Invalid API key`));
        assert.ok(!error.message.includes(SECRET), error.message);
        assert.equal(server.requests[0].headers['x-api-key'], SECRET);
        assert.equal(server.requests.length, 1, 'a refusal is not retried');
      }
    });

    it('hides a key that an error echoes even where the explanation is cut short', async () => {
      const server = await serve((_, res) => sendText(res, 401, `${'x'.repeat(190)} invalid key ${SECRET}`));
      const http = client(server, { privateHeaders: { Authorization: `Bearer ${SECRET}` } });
      const error = await failsWith(http.getJson('/works'), 'unauthorized');
      assert.ok(!error.message.includes(SECRET.slice(0, 8)), error.message);
    });

    it('hides a key that an error echoes percent-encoded, as it was sent in the URL, in any case of hex or encoded twice', async () => {
      const key = 'Kq+7/x=9 z!';
      const server = await serve((req, res) => {
        const sent = /api_key=([^&]*)/.exec(req.url ?? '')?.[1] ?? '';
        sendText(res, 401, `bad key ${sent} / ${sent.toLowerCase()} / ${encodeURIComponent(key).replace(/%/g, '%25')} / ${encodeURIComponent(key)}`);
      });
      const error = await failsWith(client(server, { privateParams: { api_key: key } }).getJson('/works'), 'unauthorized');
      assert.equal(error.message.match(/…/g)?.length, 4, error.message);
      assert.doesNotMatch(error.message, /Kq|7%2F|x%3D/i);
    });

    it('hides a key that an error echoes JSON-escaped or as HTML character references', async () => {
      const key = 'AbC/dEf"gh+ij&kl';
      const echoes = [
        'AbC\\/dEf\\"gh+ij&kl',
        '\\u0041bC\\u002FdEf\\u0022gh\\u002bij\\u0026kl',
        'AbC&#x2F;dEf&quot;gh&#43;ij&amp;kl',
        'AbC&sol;dEf&#0034;gh&plus;ij&#x26;kl',
        'AbC&amp;#x2F;dEf&amp;quot;gh+ij&amp;amp;kl',
      ];
      for (const echo of echoes) {
        const server = await serve((_, res) => sendText(res, 401, `{"error":"bad key ${echo}"}`, { 'content-type': 'application/json' }));
        const error = await failsWith(client(server, { privateHeaders: { Authorization: `Bearer ${key}` } }).getJson('/works'), 'unauthorized');
        assert.match(error.message, /bad key …/, echo);
        assert.doesNotMatch(error.message, /AbC|dEf|ij.{0,12}kl/, `${echo} → ${error.message}`);
      }
    });

    it('reports other client errors as "unavailable" with the source\'s explanation', async () => {
      const server = await serve((_, res) => sendJson(res, 400, { error: 'Invalid filter', message: 'Unknown filter field: author_name' }));
      const error = await failsWith(client(server).getJson('/works'), 'unavailable');
      assert.match(error.message, /HTTP 400.*Unknown filter field/);
    });
  });

  describe('retries', () => {
    it('waits as long as Retry-After says after a 429, then succeeds', async () => {
      const server = await serve((_, res, i) => (i === 0 ? sendText(res, 429, 'slow down', { 'retry-after': '1' }) : sendJson(res, 200, { ok: true })));
      const started = Date.now();
      assert.deepEqual(await client(server).getJson('/works'), { ok: true });
      assert.ok(Date.now() - started >= 900, `retried after ${Date.now() - started} ms, before Retry-After`);
      assert.equal(server.requests.length, 2);
    });

    it('holds back every request of the source while a 429 asks it to wait', async () => {
      const arrivals: number[] = [];
      const server = await serve((_, res, i) => {
        arrivals.push(Date.now());
        if (i === 0) sendText(res, 429, '', { 'retry-after': '1' });
        else sendJson(res, 200, {});
      });
      const http = client(server, { maxConcurrent: 1 });
      const started = Date.now();
      const first = http.getJson('/a');
      await delay(100);
      await Promise.all([first, http.getJson('/b')]);
      assert.equal(server.requests.length, 3);
      assert.ok(arrivals[1] - started >= 900 && arrivals[2] - started >= 900, 'a request went out during the pause');
    });

    it('understands Retry-After given as an HTTP date', async () => {
      const server = await serve((_, res, i) =>
        i === 0 ? sendText(res, 503, '', { 'retry-after': new Date(Date.now() - 5000).toUTCString() }) : sendJson(res, 200, { ok: true }),
      );
      assert.deepEqual(await client(server).getJson('/works'), { ok: true });
    });

    it('gives up at once as "rate-limited" when Retry-After asks for a long wait, and asks that source nothing more', async () => {
      const server = await serve((_, res) => sendText(res, 429, '', { 'retry-after': '59' }));
      const started = Date.now();
      const http = client(server);
      const error = await failsWith(http.getJson('/works'), 'rate-limited');
      assert.ok(Date.now() - started < 1000);
      assert.match(error.message, /59 s/);
      const skipped = await failsWith(http.getJson('/works/other'), 'rate-limited');
      assert.match(skipped.message, /skipped/);
      assert.equal(server.requests.length, 1);
    });

    it('skips a source after three timeouts in a row instead of waiting out each request', async () => {
      const server = await serve((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
      });
      const http = client(server, { timeoutMs: 100, maxConcurrent: 1 });
      for (let i = 0; i < 3; i++) await failsWith(http.getJson(`/works/${i}`), 'timeout');
      const skipped = await failsWith(http.getJson('/works/next'), 'timeout');
      assert.match(skipped.message, /skipped for a few minutes after 3 failures in a row/);
      // Not asked, so not waited for.
      assert.equal(server.requests.length, 3);
    });

    it('within a check, skips a failing source for the rest of it however long it lasts, and asks it again in the next check', async () => {
      const server = await serve((_, res) => sendText(res, 429, '', { 'retry-after': '59' }));
      const http = client(server);
      const run = new CheckRun();
      await failsWith(http.getJson('/works/a', {}, { run }), 'rate-limited');
      const realNow = Date.now;
      Date.now = () => realNow() + 60 * 60_000;
      try {
        const skipped = await failsWith(http.getJson('/works/b', {}, { run }), 'rate-limited');
        assert.match(skipped.message, /skipped for the rest of this check after .*59 s/);
        assert.equal(server.requests.length, 1);
      } finally {
        Date.now = realNow;
      }
      await failsWith(http.getJson('/works/c', {}, { run: new CheckRun() }), 'rate-limited');
      assert.equal(server.requests.length, 2);
    });

    it('retries a 500 and returns the answer that follows', async () => {
      const server = await serve((_, res, i) => (i < 2 ? sendText(res, 500, 'oops') : sendJson(res, 200, { ok: true })));
      assert.deepEqual(await client(server).getJson('/works'), { ok: true });
      assert.equal(server.requests.length, 3);
    });

    it('reports "unavailable" after four answers of 500', async () => {
      const server = await serve((_, res) => sendText(res, 500, 'oops'));
      const error = await failsWith(client(server).getJson('/works'), 'unavailable');
      assert.match(error.message, /HTTP 500.*4 attempts/);
      assert.equal(server.requests.length, 4);
    });

    it('reports "rate-limited" after four answers of 429', async () => {
      const server = await serve((_, res) => sendText(res, 429, '', { 'retry-after': '0' }));
      await failsWith(client(server).getJson('/works'), 'rate-limited');
      assert.equal(server.requests.length, 4);
    });

    it('reports "unreachable" when nothing listens, without retrying', async () => {
      const server = await serve(() => undefined);
      const baseUrl = server.baseUrl;
      await server.close();
      servers.splice(servers.indexOf(server), 1);
      const http = new HttpClient({ source: 'openalex', baseUrl, requestsPerSecond: 10, maxConcurrent: 1, privateParams: { api_key: SECRET } });
      const error = await failsWith(http.getJson('/works'), 'unreachable');
      assert.match(error.message, /Could not reach 127\.0\.0\.1/);
      assert.ok(!error.message.includes(SECRET));
    });

    it('fails at once while a source it could not reach stays unreachable, instead of each request waiting its turn', async () => {
      const server = await serve(() => undefined);
      const baseUrl = server.baseUrl;
      await server.close();
      servers.splice(servers.indexOf(server), 1);
      // One request every 10 s: a second request that went to the network would wait its turn and say "Could not reach".
      const http = new HttpClient({ source: 'openalex', baseUrl, requestsPerSecond: 0.1, maxConcurrent: 1 });
      await failsWith(http.getJson('/works'), 'unreachable');
      const again = await failsWith(http.getJson('/works/other'), 'unreachable');
      assert.match(again.message, /could not be reached moments ago/);
    });
  });

  describe('time limits and cancellation', () => {
    it('reports "timeout" when the source does not answer in time', async () => {
      const server = await serve(() => undefined);
      const error = await failsWith(client(server, { timeoutMs: 150 }).getJson('/works'), 'timeout');
      assert.match(error.message, /0\.15 s/);
    });

    it('reports "timeout" when the body stalls after the headers', async () => {
      const server = await serve((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"results": [');
      });
      await failsWith(client(server, { timeoutMs: 150 }).getJson('/works'), 'timeout');
    });

    it('reports "cancelled" when the caller aborts mid-request', async () => {
      const server = await serve(() => undefined);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const started = Date.now();
      await failsWith(client(server).getJson('/works', {}, { signal: controller.signal }), 'cancelled');
      assert.ok(Date.now() - started < 1000);
    });

    it('stops waiting out a backoff when the caller aborts', async () => {
      const server = await serve((_, res) => sendText(res, 503, ''));
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      await failsWith(client(server, { backoffMs: 3000 }).getJson('/works', {}, { signal: controller.signal }), 'cancelled');
      assert.ok(Date.now() - started < 1000);
      assert.equal(server.requests.length, 1);
    });

    it('stops waiting in the queue when the caller aborts, and never sends that request', async () => {
      const server = await serve(async (_, res) => {
        await delay(300);
        sendJson(res, 200, {});
      });
      const http = client(server, { maxConcurrent: 1 });
      const first = http.getJson('/first');
      const controller = new AbortController();
      const queued = http.getJson('/queued', {}, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await failsWith(queued, 'cancelled');
      await first;
      assert.deepEqual(server.urls, ['/first']);
    });

    it('reports "cancelled" at once for a signal aborted before the call', async () => {
      const server = await serve((_, res) => sendJson(res, 200, {}));
      await failsWith(client(server).getJson('/works', {}, { signal: AbortSignal.abort() }), 'cancelled');
      assert.equal(server.requests.length, 0);
    });
  });

  describe('bodies that cannot be read', () => {
    it('reports "malformed" for a body that is not JSON', async () => {
      const server = await serve((_, res) => sendText(res, 200, 'Service temporarily unavailable'));
      const error = await failsWith(client(server).getJson('/works'), 'malformed');
      assert.match(error.message, /not valid JSON/);
    });

    it('reports "malformed" for JSON cut short', async () => {
      const server = await serve((_, res) => sendText(res, 200, '{"results": [{"id": "W1", "title": "A wo'));
      await failsWith(client(server).getJson('/works'), 'malformed');
    });

    it('reports "unavailable" when the connection drops before the body is complete', async () => {
      const server = await serve((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"results": [');
        setTimeout(() => res.destroy(), 20);
      });
      await failsWith(client(server, { backoffMs: 1 }).getJson('/works'), 'unavailable');
    });

    it('refuses a body over 20 MB as "malformed" instead of reading it all', async () => {
      const chunk = Buffer.alloc(1024 * 1024, 'a');
      const server = await serve((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        let sent = 0;
        const write = (): void => {
          while (sent < 30 && !res.destroyed) {
            sent++;
            if (!res.write(chunk)) {
              res.once('drain', write);
              return;
            }
          }
          res.end();
        };
        write();
      });
      const error = await failsWith(client(server).getJson('/works'), 'malformed');
      assert.match(error.message, /larger than 20 MB/);
    });

    it('refuses a body whose declared length is over 20 MB without reading it', async () => {
      const server = await serve((_, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(25 * 1024 * 1024) });
        res.write('[');
      });
      await failsWith(client(server).getJson('/works'), 'malformed');
    });
  });

  describe('redirects', () => {
    it('follows a redirect (an OpenAlex work merged into another)', async () => {
      const server = await serve((req, res) => (req.url?.startsWith('/works/W1') ? sendText(res, 301, '', { location: '/works/W2' }) : sendJson(res, 200, { id: 'W2' })));
      assert.deepEqual(await client(server).getJson('/works/W1'), { id: 'W2' });
      assert.deepEqual(server.urls, ['/works/W1', '/works/W2']);
    });

    it('does not carry private headers to another origin', async () => {
      const other = await serve((_, res) => sendJson(res, 200, { moved: true }));
      const server = await serve((_, res) => sendText(res, 302, '', { location: `${other.baseUrl}/elsewhere` }));
      const http = client(server, { privateHeaders: { 'x-api-key': SECRET } });
      assert.deepEqual(await http.getJson('/works'), { moved: true });
      assert.equal(server.requests[0].headers['x-api-key'], SECRET);
      assert.equal(other.requests[0].headers['x-api-key'], undefined);
    });

    it('refuses a redirect to another scheme than http(s), as a failure to look up, saying why', async () => {
      const server = await serve((_, res) => sendText(res, 302, '', { location: 'file:///etc/passwd' }));
      const error = await failsWith(client(server).getJson('/works'), 'unavailable');
      assert.match(error.message, /redirected to file:\/\/…, which is not a web address; Attest follows redirects to http and https only/);
      assert.doesNotMatch(error.message, /not implemented/);
    });

    it('refuses a redirect inward, to a link-local or private address the source is not on, as a failure saying why', async () => {
      for (const inward of ['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/admin', 'http://[fe80::1]/']) {
        const server = await serve((_, res) => sendText(res, 302, '', { location: inward }));
        const error = await failsWith(client(server).getJson('/works'), 'unavailable');
        assert.match(
          error.message,
          /^127\.0\.0\.1:\d+ redirected to http:\/\/.*, which Attest did not follow: a (link-local|private) address, which 127\.0\.0\.1:\d+ is not\.$/,
          inward,
        );
      }
    });

    it('drops a private query parameter that a redirect to another origin carries back', async () => {
      const other = await serve((_, res) => sendJson(res, 200, { moved: true }));
      const server = await serve((_, res) => sendText(res, 302, '', { location: `${other.baseUrl}/elsewhere?api_key=${SECRET}&page=2` }));
      const http = client(server, { privateParams: { api_key: SECRET } });
      await http.getJson('/works');
      const forwarded = new URL(other.requests[0].url, other.baseUrl);
      assert.equal(forwarded.searchParams.get('api_key'), null);
      assert.equal(forwarded.searchParams.get('page'), '2');
    });

    it('gives up on a redirect loop', async () => {
      const server = await serve((_, res) => sendText(res, 302, '', { location: '/again' }));
      const error = await failsWith(client(server).getJson('/works'), 'unavailable');
      assert.match(error.message, /redirected more than/);
      assert.ok(server.requests.length <= 6);
    });
  });

  describe('politeness', () => {
    it('spaces requests to the configured rate', async () => {
      const arrivals: number[] = [];
      const server = await serve((_, res) => {
        arrivals.push(Date.now());
        sendJson(res, 200, {});
      });
      const http = client(server, { requestsPerSecond: 20 });
      await Promise.all(Array.from({ length: 5 }, (_, i) => http.getJson(`/works/${i}`)));
      // Five requests at 20 per second take at least four intervals of 50 ms; all at once would take ~0.
      assert.ok(arrivals[4] - arrivals[0] >= 150, `five requests within ${arrivals[4] - arrivals[0]} ms`);
    });

    it('spends none of its allowance on requests cancelled while they waited their turn', async () => {
      const server = await serve((_, res) => sendJson(res, 200, {}));
      const http = client(server, { requestsPerSecond: 2, maxConcurrent: 4 });
      await http.getJson('/first');
      const controller = new AbortController();
      const waiting = Array.from({ length: 4 }, (_, i) => http.getJson(`/cancelled/${i}`, {}, { signal: controller.signal }).catch(() => undefined));
      await delay(50);
      controller.abort();
      await Promise.all(waiting);
      const started = Date.now();
      await http.getJson('/next');
      assert.ok(Date.now() - started < 1000, `the next request waited ${Date.now() - started} ms`);
      assert.deepEqual(server.urls, ['/first', '/next']);
    });

    it('never holds more requests open than the concurrency limit', async () => {
      const server = await serve(async (_, res) => {
        await delay(40);
        sendJson(res, 200, {});
      });
      const http = client(server, { maxConcurrent: 2 });
      await Promise.all(Array.from({ length: 6 }, (_, i) => http.getJson(`/works/${i}`)));
      assert.equal(server.requests.length, 6);
      assert.equal(server.maxInFlight, 2);
    });
  });

  describe('the disk cache', () => {
    it('answers a repeated lookup from disk, also for a new client after a restart', async () => {
      const server = await serve((req, res) => (req.url?.includes('missing') ? sendText(res, 404, '') : sendJson(res, 200, { id: 'W1' })));
      const { dir } = await tempCache();
      const first = client(server, { cache: new LookupCache(dir) });
      assert.deepEqual(await first.getJson('/works/W1'), { id: 'W1' });
      assert.equal(await first.lookupJson('/works/missing', {}, {}, (json) => json), undefined);
      const restarted = client(server, { cache: new LookupCache(dir) });
      assert.deepEqual(await restarted.getJson('/works/W1'), { id: 'W1' });
      assert.equal(await restarted.lookupJson('/works/missing', {}, {}, (json) => json), undefined);
      assert.equal(server.requests.length, 2, 'the restarted client asked the source again');
    });

    it('asks again once an entry has expired', async () => {
      const server = await serve((_, res) => sendJson(res, 200, { id: 'W1' }));
      const { dir } = await tempCache();
      const http = client(server, { cache: new LookupCache(dir, { foundMs: 1, notFoundMs: 1 }) });
      await http.getJson('/works/W1');
      await delay(10);
      await http.getJson('/works/W1');
      assert.equal(server.requests.length, 2);
    });

    it('does not cache an answer it could not read, nor a failure', async () => {
      const server = await serve((_, res, i) => (i === 0 ? sendText(res, 200, '{"trunc') : i === 1 ? sendText(res, 401, '') : sendJson(res, 200, { id: 'W1' })));
      const { cache } = await tempCache();
      const http = client(server, { cache });
      await failsWith(http.getJson('/works/W1'), 'malformed');
      await failsWith(http.getJson('/works/W1'), 'unauthorized');
      assert.deepEqual(await http.getJson('/works/W1'), { id: 'W1' });
      assert.equal(server.requests.length, 3);
    });

    it("caches only answers the source's reader accepts, and asks again for cached ones it rejects", async () => {
      const server = await serve((_, res, i) => sendJson(res, 200, i === 0 ? { unexpected: true } : { id: 'W1' }));
      const { dir } = await tempCache();
      const readWork = (json: unknown): string => {
        const id = (json as { id?: unknown }).id;
        if (typeof id !== 'string') throw new SourceError('malformed', 'no id', 'openalex');
        return id;
      };
      const http = client(server, { cache: new LookupCache(dir) });
      await failsWith(http.getJson('/works/W1', {}, {}, readWork), 'malformed');
      assert.equal(await http.getJson('/works/W1', {}, {}, readWork), 'W1');
      assert.equal(server.requests.length, 2, 'the rejected answer was served from the cache');
      const stricter = (): string => {
        throw new SourceError('malformed', 'read differently now', 'openalex');
      };
      await failsWith(client(server, { cache: new LookupCache(dir) }).getJson('/works/W1', {}, {}, stricter), 'malformed');
      assert.equal(server.requests.length, 3, 'the cached answer the reader rejected was not a miss');
    });

    it('treats a corrupt cache file as a miss and replaces it', async () => {
      const server = await serve((_, res) => sendJson(res, 200, { id: 'W1' }));
      const { dir, cache } = await tempCache();
      await client(server, { cache }).getJson('/works/W1');
      const [file] = await listFiles(dir);
      for (const garbage of ['{"key": "http://', '', 'null', '{"key": 1, "status": 200}']) {
        await fs.writeFile(path.join(dir, file), garbage);
        assert.deepEqual(await client(server, { cache: new LookupCache(dir) }).getJson('/works/W1'), { id: 'W1' });
      }
      assert.equal(server.requests.length, 5);
      assert.deepEqual(await client(server, { cache: new LookupCache(dir) }).getJson('/works/W1'), { id: 'W1' });
      assert.equal(server.requests.length, 5, 'the replaced entry is read again');
    });

    it('takes an entry that is a FIFO, a link to /dev/zero or too large for an entry as a miss at once, and replaces it', async () => {
      const server = await serve((_, res) => sendJson(res, 200, { id: 'W1' }));
      const { dir, cache } = await tempCache();
      await client(server, { cache }).getJson('/works/W1');
      const [name] = await listFiles(dir);
      const file = path.join(dir, name);
      const damages: Array<[string, () => Promise<void>]> = [
        ['a FIFO', async () => void execFileSync('mkfifo', [file])],
        ['a link to /dev/zero', () => fs.symlink('/dev/zero', file)],
        ['too large', () => fs.writeFile(file, Buffer.alloc(MAX_ENTRY_BYTES + 1, 0x20))],
      ];
      for (const [what, damage] of damages) {
        await fs.rm(file);
        await damage();
        const asked = server.requests.length;
        assert.deepEqual(await client(server, { cache: new LookupCache(dir) }).getJson('/works/W1'), { id: 'W1' }, what);
        assert.equal(server.requests.length, asked + 1, `${what} was not a miss`);
        assert.ok((await fs.lstat(file)).isFile(), `${what} was not replaced by an entry`);
        assert.deepEqual(await client(server, { cache: new LookupCache(dir) }).getJson('/works/W1'), { id: 'W1' });
        assert.equal(server.requests.length, asked + 1, `the entry that replaced ${what} is read`);
      }
    });

    it('keeps private params and headers out of cache file names and contents', async () => {
      const server = await serve((_, res) => sendJson(res, 200, { id: 'W1' }));
      const { dir, cache } = await tempCache();
      const http = client(server, {
        cache,
        email: 'me@example.org',
        privateParams: { api_key: SECRET, mailto: 'me@example.org' },
        privateHeaders: { authorization: `Bearer ${SECRET}` },
      });
      await http.getJson('/works/W1', { select: 'id' });
      const files = await listFiles(dir);
      assert.equal(files.length, 1);
      const content = await fs.readFile(path.join(dir, files[0]), 'utf8');
      for (const secret of [SECRET, 'me@example.org']) {
        assert.ok(!files[0].includes(secret) && !content.includes(secret), `${secret} in ${files[0]}: ${content}`);
      }
      assert.match(content, /select=id/);
      const otherKey = client(server, { cache: new LookupCache(dir), privateParams: { api_key: 'another-key' } });
      await otherKey.getJson('/works/W1', { select: 'id' });
      assert.equal(server.requests.length, 1, 'a different key is the same lookup');
    });

    it('offline, serves cached answers (even expired ones) and sends nothing', async () => {
      const server = await serve((req, res) => (req.url?.includes('missing') ? sendText(res, 404, '') : sendJson(res, 200, { id: 'W1' })));
      const { dir } = await tempCache();
      const online = client(server, { cache: new LookupCache(dir) });
      await online.getJson('/works/W1');
      await online.lookupJson('/works/missing', {}, {}, (json) => json);
      const sentOnline = server.requests.length;
      await delay(5);
      const offline = client(server, { cache: new LookupCache(dir, { foundMs: 1, notFoundMs: 1 }), offline: true });
      assert.deepEqual(await offline.getJson('/works/W1'), { id: 'W1' });
      assert.equal(await offline.lookupJson('/works/missing', {}, {}, (json) => json), undefined);
      const error = await failsWith(offline.getJson('/works/W2'), 'offline');
      assert.match(error.message, /Offline/);
      assert.equal(server.requests.length, sentOnline, 'offline mode sent a request');
    });

    it('offline without a cache fails every lookup as "offline" and sends nothing', async () => {
      const server = await serve((_, res) => sendJson(res, 200, {}));
      await failsWith(client(server, { offline: true }).getJson('/works/W1'), 'offline');
      assert.equal(server.requests.length, 0);
    });
  });
});
