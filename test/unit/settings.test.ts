import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SOURCES, SOURCE_NAMES } from '../../src/core/sources/config';
import { REPO_ROOT } from './helpers';

interface Property {
  readonly type: string;
  readonly default?: unknown;
  readonly markdownDescription?: string;
}

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, Property> } } };
const strings = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
const properties = Object.entries(manifest.contributes.configuration.properties);

describe('the settings as the Settings UI shows them', () => {
  it('shows every number as a person would write it: two decimals at most', () => {
    for (const [key, property] of properties) {
      if (typeof property.default !== 'number') continue;
      assert.equal(property.default, Math.round(property.default * 100) / 100, key);
    }
  });

  it('offers the rates the sources are used with when nothing is set', () => {
    for (const id of Object.keys(SOURCE_NAMES) as (keyof typeof DEFAULT_SOURCES)[]) {
      const property = manifest.contributes.configuration.properties[`attest.sources.${id}.requestsPerSecond`];
      assert.equal(property.default, DEFAULT_SOURCES[id].requestsPerSecond, id);
    }
  });

  it('has a description for every setting in package.nls.json', () => {
    for (const [key, property] of properties) {
      const placeholder = /^%(.+)%$/.exec(property.markdownDescription ?? '')?.[1];
      assert.ok(placeholder && strings[placeholder], key);
    }
  });
});
