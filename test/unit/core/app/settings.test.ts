import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { readSettings, SETTING_DEFAULTS, type SettingsGet } from '../../../../src/core/app/settings';
import { REPO_ROOT } from '../../support/helpers';

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
};
const properties = manifest.contributes.configuration.properties;
const keys = Object.keys(properties);

/** The keys a reading asks for, through every getter it is given. */
function keysRead(): Set<string> {
  const asked = new Set<string>();
  const get: SettingsGet = (key) => {
    asked.add(key);
    return undefined;
  };
  readSettings(get, { userSet: get, originOf: (key) => (asked.add(key), 'user') });
  return asked;
}

describe('core settings: one reading of every attest.* setting', () => {
  it('has the default package.json declares for every setting, and no setting the editor does not offer', () => {
    for (const key of keys) assert.deepEqual(SETTING_DEFAULTS[key], properties[key].default, key);
    assert.deepEqual(Object.keys(SETTING_DEFAULTS).sort(), [...keys].sort());
  });

  it('reads every setting package.json offers', () => {
    const asked = keysRead();
    assert.deepEqual(
      keys.filter((key) => !asked.has(key)),
      [],
    );
  });

  it("checks the same with the editor's defaults written out as with nothing set", () => {
    const fromManifest = readSettings((key) => properties[key]?.default, { userSet: () => undefined, base: '/work' });
    const unset = readSettings(() => undefined, { base: '/work' });
    assert.deepEqual(fromManifest, unset);
    assert.deepEqual(unset.pipeline, { checkReferences: true, showUnchecked: false, checkSupport: true, reportMissingAbstracts: false, thresholds: {} });
    assert.equal(unset.maxFileBytes, 20 * 1024 * 1024);
  });

  it('says which setting has a value of the wrong type and uses its default meanwhile', () => {
    const values: Record<string, unknown> = { 'attest.references.check': 'no', 'attest.check.maxFileSizeMB': -1 };
    const settings = readSettings((key) => values[key], {});
    assert.equal(settings.pipeline.checkReferences, true);
    assert.equal(settings.maxFileBytes, 20 * 1024 * 1024);
    assert.deepEqual(settings.problems.other, [
      'attest.check.maxFileSizeMB must be a positive number; using the default.',
      'attest.references.check must be true or false; using the default.',
    ]);
  });

  it("reads the encoder's input length, and takes the default for one no encoder reads", () => {
    assert.equal(readSettings(() => undefined, {}).encoder.inputTokens, 128);
    assert.equal(readSettings((key) => (key === 'attest.retrieval.encoder.inputTokens' ? 256 : undefined), {}).encoder.inputTokens, 256);
    for (const wrong of [8, 128.5, 100_000, '256']) {
      const settings = readSettings((key) => (key === 'attest.retrieval.encoder.inputTokens' ? wrong : undefined), {});
      assert.equal(settings.encoder.inputTokens, 128, String(wrong));
      assert.deepEqual(settings.problems.other, ['attest.retrieval.encoder.inputTokens must be a whole number of tokens from 16 to 8192; using the default.']);
    }
  });

  it('reads extra bibliographies named relative to the workspace folder from it, and absolute ones as they are', () => {
    const values: Record<string, unknown> = { 'attest.bibliography.extraFiles': ['refs/shared.bib', '/home/a/all.bib'] };
    assert.deepEqual(readSettings((key) => values[key], { base: '/work/paper' }).extraBibliographies, ['/work/paper/refs/shared.bib', '/home/a/all.bib']);
    assert.deepEqual(readSettings((key) => values[key], {}).extraBibliographies, ['refs/shared.bib', '/home/a/all.bib']);
  });
});
