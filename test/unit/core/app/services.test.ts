import assert from 'node:assert/strict';
import * as path from 'node:path';
import { createServices, readSecrets, secretsFromEnvironment } from '../../../../src/core/app/services';
import { readSettings } from '../../../../src/core/app/settings';
import { makeTempDir } from '../../support/tempDir';

/** The settings a workspace or config file with `values` gives. */
function settingsOf(values: Record<string, unknown>) {
  return readSettings((key) => values[key], { base: process.cwd() });
}

describe('core services: built from what the host keeps', () => {
  it('reads each credential for the origin its source is configured at, so a key kept for the public API never goes to a base URL pointed elsewhere', async () => {
    const { sources } = settingsOf({ 'attest.sources.openalex.baseUrl': 'http://127.0.0.1:9' });
    const kept = new Map([
      ['openalexApiKey https://api.openalex.org', 'public-openalex-key'],
      ['coreApiKey https://api.core.ac.uk', 'public-core-key'],
    ]);
    const asked: string[] = [];
    const secrets = await readSecrets(sources, async (name, origin) => {
      asked.push(`${name} ${origin}`);
      return kept.get(`${name} ${origin}`);
    });
    assert.ok(asked.includes('openalexApiKey http://127.0.0.1:9'));
    assert.equal(secrets.openalexApiKey, undefined);
    assert.deepEqual(secrets.coreApiKey, { value: 'public-core-key', origin: 'https://api.core.ac.uk' });
  });

  it('reads only the credentials asked for, and takes an empty one for none', async () => {
    const { sources } = settingsOf({});
    const asked: string[] = [];
    const secrets = await readSecrets(
      sources,
      async (name) => {
        asked.push(name);
        return '';
      },
      ['coreApiKey'],
    );
    assert.deepEqual(asked, ['coreApiKey']);
    assert.deepEqual(secrets, {});
  });

  it('keeps lookups in the folder the host gives, and builds no full texts when they are turned off', async () => {
    const { dir, remove } = await makeTempDir();
    try {
      const on = settingsOf({});
      const lookups = path.join(dir, 'lookups');
      const folders = { lookups, fullTexts: path.join(dir, 'fulltexts') };
      const services = createServices(on, { secrets: secretsFromEnvironment({}), folders });
      assert.equal(services.cache.directory, lookups);
      assert.equal(services.sources.length, on.sources.enabled.length);
      assert.equal(typeof services.fullText, 'function');
      const off = settingsOf({ 'attest.fullText.enabled': false });
      assert.equal(createServices(off, { secrets: {}, folders }).fullText, undefined);
    } finally {
      await remove();
    }
  });
});
