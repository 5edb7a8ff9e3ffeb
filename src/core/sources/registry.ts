import * as path from 'node:path';
import { ArxivSource } from './arxiv';
import type { LookupCache } from './cache';
import { DEFAULT_SOURCES, type SourcesConfig } from './config';
import { CoreSource } from './core';
import { CrossrefSource } from './crossref';
import { DblpSource } from './dblp';
import { DblpDumpSource } from './dblpDump/source';
import type { SourceGates } from './gates';
import { EuropePmcSource } from './europepmc';
import { OpenAlexSource } from './openalex';
import { OpenLibrarySource } from './openlibrary';
import { SemanticScholarSource } from './semanticscholar';
import type { PaperSource } from './types';
import type { SourceId } from './ids';

/**
 * A credential and the origin it was given for. It is sent there only: a base URL pointed elsewhere
 * (by a workspace's settings or a config file) gets no key.
 */
export interface SourceKey {
  readonly value: string;
  /** `https://api.crossref.org`, as `URL.origin` writes it. */
  readonly origin: string;
}

/**
 * Credentials, which never live in settings: the editor keeps them in its secret storage, the CLI
 * reads them from the environment (`SECRET_ENVIRONMENT`).
 */
export interface SourceSecrets {
  readonly openalexApiKey?: SourceKey;
  readonly semanticscholarApiKey?: SourceKey;
  readonly coreApiKey?: SourceKey;
  readonly crossrefPlusToken?: SourceKey;
}

/** The source each credential is for. */
export const SECRET_SOURCE: Readonly<Record<keyof SourceSecrets, SourceId>> = {
  openalexApiKey: 'openalex',
  semanticscholarApiKey: 'semanticscholar',
  coreApiKey: 'core',
  crossrefPlusToken: 'crossref',
};

/** The origin of a source's public API, for which the environment's keys are meant. */
export function publicOrigin(id: SourceId): string {
  return new URL(DEFAULT_SOURCES[id].baseUrl).origin;
}

export const SECRET_ENVIRONMENT: Readonly<Record<keyof SourceSecrets, string>> = {
  openalexApiKey: 'ATTEST_OPENALEX_API_KEY',
  semanticscholarApiKey: 'ATTEST_SEMANTICSCHOLAR_API_KEY',
  coreApiKey: 'ATTEST_CORE_API_KEY',
  crossrefPlusToken: 'ATTEST_CROSSREF_PLUS_TOKEN',
};

/** Keys from the environment, for each service's public API only. */
export function secretsFromEnvironment(env: NodeJS.ProcessEnv): SourceSecrets {
  const read = (name: keyof SourceSecrets): SourceKey | undefined => {
    const value = env[SECRET_ENVIRONMENT[name]]?.trim();
    return value ? { value, origin: publicOrigin(SECRET_SOURCE[name]) } : undefined;
  };
  return {
    openalexApiKey: read('openalexApiKey'),
    semanticscholarApiKey: read('semanticscholarApiKey'),
    coreApiKey: read('coreApiKey'),
    crossrefPlusToken: read('crossrefPlusToken'),
  };
}

/**
 * The enabled sources, in the configured order, sharing one lookup cache and the run's gates, which the
 * full texts pass too. `indexFolder` is where local sources keep their indexes (DBLP's dump's): a
 * folder of the host's storage, needed when a dump is set.
 */
export function createSources(config: SourcesConfig, secrets: SourceSecrets, cache?: LookupCache, gates?: SourceGates, indexFolder?: string): PaperSource[] {
  return config.enabled.map((id) => createSource(id, config, secrets, cache, gates, indexFolder));
}

function createSource(
  id: SourceId,
  config: SourcesConfig,
  secrets: SourceSecrets,
  cache: LookupCache | undefined,
  gates: SourceGates | undefined,
  indexFolder: string | undefined,
): PaperSource {
  const common = { ...config.sources[id], email: config.email, cache, offline: config.offline, gates };
  const origin = new URL(common.baseUrl).origin;
  const key = (secret: SourceKey | undefined): string | undefined => (secret?.origin === origin ? secret.value : undefined);
  switch (id) {
    case 'crossref':
      return new CrossrefSource({ ...common, plusToken: key(secrets.crossrefPlusToken) });
    case 'openalex':
      return new OpenAlexSource({ ...common, apiKey: key(secrets.openalexApiKey) });
    case 'semanticscholar':
      return new SemanticScholarSource({ ...common, apiKey: key(secrets.semanticscholarApiKey) });
    case 'arxiv':
      return new ArxivSource(common);
    case 'europepmc':
      return new EuropePmcSource(common);
    case 'core':
      return new CoreSource({ ...common, apiKey: key(secrets.coreApiKey) });
    case 'openlibrary':
      return new OpenLibrarySource(common);
    case 'dblp':
      if (config.dblpDumpFile === undefined) return new DblpSource(common);
      if (indexFolder === undefined) throw new Error("DBLP's dump needs a folder of the host's storage to keep its index in.");
      return new DblpDumpSource({ file: config.dblpDumpFile, folder: path.join(indexFolder, 'dblp') });
  }
}
