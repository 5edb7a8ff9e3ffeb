import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_SOURCES, DOCUMENTED_RATES, SOURCE_NAMES } from '../../../../src/core/sources/config';
import { REPO_ROOT } from '../../support/helpers';

interface Property {
  readonly type: string;
  readonly default?: unknown;
  readonly maximum?: number;
  readonly markdownDescription?: string;
  readonly scope?: string;
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

  it("marks the rate each service documents as a rate's maximum, the most a workspace may set", () => {
    for (const id of Object.keys(SOURCE_NAMES) as (keyof typeof DOCUMENTED_RATES)[]) {
      const property = manifest.contributes.configuration.properties[`attest.sources.${id}.requestsPerSecond`];
      assert.equal(property.maximum, DOCUMENTED_RATES[id], id);
      assert.ok(property.default !== undefined && (property.default as number) <= DOCUMENTED_RATES[id], id);
    }
  });

  it("takes every address Attest sends requests to from the user's own settings only, never a workspace's", () => {
    const addresses = properties.filter(([key]) => /baseUrl$/i.test(key));
    assert.ok(addresses.some(([key]) => key === 'attest.fullText.arxivHtmlBaseUrl') && addresses.some(([key]) => key === 'attest.llm.baseUrl'));
    for (const [key, property] of addresses) assert.equal(property.scope, 'machine', key);
  });

  it("takes the models it runs (and may download) from the user's own settings only, never a workspace's", () => {
    const models = properties.filter(([key]) => /\.model$/.test(key) && key !== 'attest.llm.model');
    assert.deepEqual(
      models.map(([key]) => key),
      ['attest.nli.model', 'attest.retrieval.encoder.model'],
    );
    for (const [key, property] of models) assert.equal(property.scope, 'machine', key);
  });

  it('says of every machine-scoped setting where it is set, the Remote tab in a remote window, and of no other', () => {
    // VS Code applies a machine-scoped setting from User settings in a local window, and from the Remote
    // tab's settings in a remote one, where its User tab shows it greyed out: "a user setting" misleads there.
    const descriptionOf = (property: Property): string => strings[/^%(.+)%$/.exec(property.markdownDescription ?? '')?.[1] ?? ''] ?? '';
    const where = 'A setting of this machine (User settings; in a remote window, the Remote tab)';
    for (const [key, property] of properties) {
      assert.equal(descriptionOf(property).includes(where), property.scope === 'machine', key);
      assert.doesNotMatch(descriptionOf(property), /user settings only|a user setting/i, key);
    }
  });

  it('has a description for every setting in package.nls.json', () => {
    for (const [key, property] of properties) {
      const placeholder = /^%(.+)%$/.exec(property.markdownDescription ?? '')?.[1];
      assert.ok(placeholder && strings[placeholder], key);
    }
  });
});

interface WalkthroughStep {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly media: { readonly markdown: string };
}

describe('the walkthrough', () => {
  const contributes = (
    JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      contributes: { commands: { command: string }[]; walkthroughs: { steps: WalkthroughStep[] }[] };
    }
  ).contributes;
  const steps = contributes.walkthroughs.flatMap((w) => w.steps);
  const text = (placeholder: string): string => strings[/^%(.+)%$/.exec(placeholder)?.[1] ?? ''] ?? '';

  it('walks through the sources, both models, importing, Find Evidence and Suggest', () => {
    assert.deepEqual(
      steps.map((s) => s.id),
      ['sources', 'nliModel', 'encoder', 'importPapers', 'findEvidence', 'suggest'],
    );
  });

  it('has words and a page for every step, and links only commands and settings that exist', () => {
    const commands = new Set(contributes.commands.map((c) => c.command));
    for (const step of steps) {
      assert.ok(text(step.title) && text(step.description), step.id);
      assert.ok(readFileSync(path.join(REPO_ROOT, step.media.markdown), 'utf8').startsWith('# '), step.media.markdown);
      for (const [, command, argument] of text(step.description).matchAll(/\(command:([\w.]+)(?:\?([^)]*))?\)/g)) {
        if (command === 'workbench.action.openSettings') {
          const setting = JSON.parse(decodeURIComponent(argument)) as string;
          assert.ok(
            properties.some(([key]) => key.startsWith(setting)),
            setting,
          );
        } else {
          assert.ok(commands.has(command), command);
        }
      }
    }
  });
});
