import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './helpers';

/** The SolrCloud the Solr backend's tests run against: its first node, and the launcher's control address. */
export interface TestCluster {
  readonly url: string;
  /** Stops and starts nodes (scripts/solr.js's cluster); absent for a cluster named by ATTEST_SOLR_URL alone. */
  readonly control?: string;
}

/**
 * The cluster `npm run solr:start` started (build/solr/state.json), or the one ATTEST_SOLR_URL names.
 * Without one the tests are skipped, saying so, unless ATTEST_SOLR_REQUIRED is set (as `npm test` does,
 * having started one), when its absence fails them.
 */
export function testCluster(): TestCluster | undefined {
  const named = process.env.ATTEST_SOLR_URL;
  let state: { urls?: unknown; control?: unknown } | undefined;
  try {
    state = JSON.parse(readFileSync(path.join(REPO_ROOT, 'build/solr/state.json'), 'utf8')) as typeof state;
  } catch {
    state = undefined;
  }
  const urls = Array.isArray(state?.urls) ? state.urls.filter((url): url is string => typeof url === 'string') : [];
  const control = typeof state?.control === 'string' ? state.control : undefined;
  if (named !== undefined) return { url: named, ...(control !== undefined && urls.includes(named) && { control }) };
  if (urls.length > 0) return { url: urls[0], ...(control !== undefined && { control }) };
  if (process.env.ATTEST_SOLR_REQUIRED) throw new Error('No SolrCloud for the Solr backend tests: npm run solr:start starts one.');
  return undefined;
}

/** Stops (or starts again) node `index` of the test cluster. */
export async function setNode(cluster: TestCluster, index: number, action: 'stop' | 'start'): Promise<void> {
  if (cluster.control === undefined) throw new Error('this cluster cannot be controlled');
  const response = await fetch(`${cluster.control}/nodes/${index}/${action}`, { method: 'POST' });
  if (!response.ok) throw new Error(`${action} node ${index}: ${await response.text()}`);
}
