import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './helpers';

/** A source's answer as stored under test/fixtures/sources, e.g. `sourceFixture('crossref/work-peerj.4375.json')`. */
export function sourceFixture(name: string): unknown {
  return JSON.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/sources', name), 'utf8'));
}
