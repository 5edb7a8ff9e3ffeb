import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DOCUMENTED_RATES, SOURCE_IDS, settingOrigin, sourcesConfigFrom, type SettingOrigin } from '../../../../src/core/sources/config';
import { SourceGates } from '../../../../src/core/sources/gates';
import { createSources } from '../../../../src/core/sources/registry';
import { setUpSources } from '../../../../src/cli/sourcesSetup';
import { REPO_ROOT } from '../../support/helpers';
import { ScriptedServer, sendText } from '../../support/server';
import { makeTempDir } from '../../support/tempDir';
import { VirtualClock } from '../../support/virtualClock';

/** Every source's rate set to `rate` by `origin`. */
function allAt(rate: number, origin: SettingOrigin): ReturnType<typeof sourcesConfigFrom> {
  const settings: Record<string, unknown> = Object.fromEntries(SOURCE_IDS.map((id) => [`attest.sources.${id}.requestsPerSecond`, rate]));
  return sourcesConfigFrom(
    (key) => settings[key],
    () => origin,
  );
}

describe('the rates a workspace may set', () => {
  it("keeps a workspace's rate to each service's documented one, and says so", () => {
    const { config, problems } = allAt(1000, 'workspace');
    for (const id of SOURCE_IDS) assert.equal(config.sources[id].requestsPerSecond, DOCUMENTED_RATES[id], id);
    assert.equal(config.sources.arxiv.requestsPerSecond, 0.33);
    assert.equal(problems.length, SOURCE_IDS.length);
    assert.match(
      problems.find((p) => p.includes('arxiv')) ?? '',
      /1000 in this workspace's settings, above the 0\.33 a second arXiv allows; using 0\.33\. Only your user settings/,
    );
  });

  it('lets a workspace lower a rate', () => {
    const { config, problems } = allAt(0.1, 'workspace');
    for (const id of SOURCE_IDS) assert.equal(config.sources[id].requestsPerSecond, 0.1, id);
    assert.deepEqual(problems, []);
  });

  it("lets the user's own settings raise a rate", () => {
    const { config, problems } = allAt(1000, 'user');
    for (const id of SOURCE_IDS) assert.equal(config.sources[id].requestsPerSecond, 1000, id);
    assert.deepEqual(problems, []);
  });

  it("counts a value set in the workspace or one of its folders as the workspace's, even over a user value", () => {
    assert.equal(settingOrigin({ workspaceValue: 1000 }), 'workspace');
    assert.equal(settingOrigin({ workspaceFolderValue: 1000 }), 'workspace');
    assert.equal(settingOrigin({ globalValue: 50, workspaceValue: 1000 } as Parameters<typeof settingOrigin>[0]), 'workspace');
    assert.equal(settingOrigin({ globalValue: 50 } as Parameters<typeof settingOrigin>[0]), 'user');
    assert.equal(settingOrigin(undefined), 'user');
  });

  it("takes the CLI's --config file as the user's own", async () => {
    const temp = await makeTempDir();
    try {
      const file = path.join(temp.dir, 'attest.json');
      await fs.writeFile(file, JSON.stringify({ 'attest.sources.arxiv.requestsPerSecond': 2 }));
      const setup = await setUpSources({ config: file, offline: true, cache: path.join(temp.dir, 'cache'), showUnchecked: false });
      assert.equal(setup.config.sources.arxiv.requestsPerSecond, 2);
      assert.deepEqual(setup.warnings, []);
    } finally {
      await temp.remove();
    }
  });

  it("sends a workspace's 1000 a second to arXiv at the one request every 3 seconds arXiv asks", async () => {
    const clock = new VirtualClock();
    const arrivals: number[] = [];
    const empty = await fs.readFile(path.join(REPO_ROOT, 'test/fixtures/sources/arxiv/empty.xml'), 'utf8');
    const server = await ScriptedServer.start((_, response) => {
      arrivals.push(clock.now());
      sendText(response, 200, empty, { 'content-type': 'application/atom+xml; charset=utf-8' });
    });
    try {
      const settings: Record<string, unknown> = {
        'attest.sources.enabled': ['arxiv'],
        'attest.sources.arxiv.baseUrl': server.baseUrl,
        'attest.sources.arxiv.requestsPerSecond': 1000,
      };
      const workspace = (key: string): SettingOrigin => (key.endsWith('requestsPerSecond') ? 'workspace' : 'user');
      const [arxiv] = createSources(sourcesConfigFrom((key) => settings[key], workspace).config, {}, undefined, new SourceGates(clock));
      await Promise.all(Array.from({ length: 4 }, (_, i) => arxiv.byArxivId?.(`2301.0000${i}`)));
      assert.equal(arrivals.length, 4);
      for (let i = 1; i < arrivals.length; i++) assert.ok(arrivals[i] - arrivals[i - 1] >= 3000, `requests at ${arrivals.join(', ')} ms`);
    } finally {
      await server.close();
    }
  });
});
