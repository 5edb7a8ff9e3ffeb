import assert from 'node:assert/strict';
import * as path from 'node:path';
import { DEFAULT_FULL_TEXT, fullTextConfigFrom, FullTextSession } from '../../../../src/core/fulltext/config';
import { sourcesConfigFrom } from '../../../../src/core/sources/config';
import { ScriptedServer, sendText } from '../../support/server';
import { makeTempDir } from '../../support/tempDir';
import { passagesFromJats } from '../../../../src/core/fulltext/jats';
import { passagesFromLatexml } from '../../../../src/core/fulltext/latexml';
import { passagesFromPlainText } from '../../../../src/core/fulltext/prose';

describe('full-text settings', () => {
  it('reads the settings, folders relative to the base, and reports what it could not use', () => {
    const settings: Record<string, unknown> = {
      'attest.fullText.cacheSizeMB': 5,
      'attest.fullText.pdfFolder': 'papers',
      'attest.fullText.arxivHtmlBaseUrl': 'http://127.0.0.1:9/',
    };
    const { config, problems } = fullTextConfigFrom((key) => settings[key], '/work/paper');
    assert.deepEqual(config, { enabled: true, cacheBytes: 5 * 1024 * 1024, pdfFolder: path.resolve('/work/paper', 'papers'), arxivHtmlBaseUrl: 'http://127.0.0.1:9/' });
    assert.deepEqual(problems, []);
    const bad: Record<string, unknown> = { 'attest.fullText.enabled': 'yes', 'attest.fullText.cacheSizeMB': -1, 'attest.fullText.arxivHtmlBaseUrl': 'arxiv.org' };
    const read = fullTextConfigFrom((key) => bad[key], '/work');
    assert.deepEqual(read.config, { enabled: true, cacheBytes: 200 * 1024 * 1024 });
    assert.equal(read.problems.length, 3);
  });
});

describe('the full texts of one editor session', () => {
  it("keeps a throttling service's wait from one judging run to the next, and starts afresh when a setting changes", async () => {
    const server = await ScriptedServer.start((_request, response) => sendText(response, 429, 'Too Many Requests', { 'retry-after': '120' }));
    const temp = await makeTempDir();
    try {
      const settings = (email: string) =>
        sourcesConfigFrom((key) => ({ 'attest.sources.enabled': ['europepmc'], 'attest.sources.europepmc.baseUrl': server.baseUrl, 'attest.sources.email': email })[key]).config;
      const session = new FullTextSession();
      const run = (email: string, doi: string) => session.options(DEFAULT_FULL_TEXT, settings(email), {}, temp.dir)?.finder?.find({ doi });
      const first = await run('me@example.org', '10.1000/a');
      assert.ok(first && 'reason' in first && /rate|429|wait/i.test(first.reason), JSON.stringify(first));
      const asked = server.urls.length;
      assert.ok(asked > 0);
      const second = await run('me@example.org', '10.1000/b');
      assert.ok(second && 'reason' in second, JSON.stringify(second));
      assert.equal(server.urls.length, asked, 'the next run does not ask a service that asked it to wait');
      await run('other@example.org', '10.1000/c');
      assert.ok(server.urls.length > asked, 'changed settings make new clients');
    } finally {
      await server.close();
      await temp.remove();
    }
  });
});

describe('full texts of hostile shapes', () => {
  it('reads deeply nested, unclosed and very long documents in one pass', () => {
    // Sections nested past the limit are refused, saying so: read, they cost time quadratic in the depth.
    const nested = `<article><body>${'<sec><title>S</title>'.repeat(20_000)}<p>deep text</p></body></article>`;
    assert.deepEqual(passagesFromJats(nested), { reason: 'the JATS full text nests its elements more than 256 deep; it was not read' });
    const deepest = `<article><body>${'<sec><title>S</title>'.repeat(250)}<p>deep text</p></body></article>`;
    const jats = passagesFromJats(deepest);
    assert.ok('passages' in jats && jats.passages[0].text === 'deep text');
    const unclosed = `<article class="ltx_document"><section><h2 class="ltx_title">Results</h2>${'<p class="ltx_p">word '.repeat(20_000)}`;
    const html = passagesFromLatexml(unclosed);
    assert.ok('passages' in html && html.passages.length > 0);
    const lines = passagesFromPlainText(`Results\n${'a-\n'.repeat(100_000)}end`);
    assert.ok('passages' in lines);
  });
});
