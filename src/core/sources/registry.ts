import { ArxivSource } from './arxiv';
import type { LookupCache } from './cache';
import type { SourcesConfig } from './config';
import { CoreSource } from './core';
import { CrossrefSource } from './crossref';
import { EuropePmcSource } from './europepmc';
import { OpenAlexSource } from './openalex';
import { SemanticScholarSource } from './semanticscholar';
import type { PaperSource, SourceId } from './types';

/**
 * Credentials, which never live in settings: the editor keeps them in its secret storage, the CLI
 * reads them from the environment (`SECRET_ENVIRONMENT`).
 */
export interface SourceSecrets {
  readonly openalexApiKey?: string;
  readonly semanticscholarApiKey?: string;
  readonly coreApiKey?: string;
  readonly crossrefPlusToken?: string;
}

export const SECRET_ENVIRONMENT: Readonly<Record<keyof SourceSecrets, string>> = {
  openalexApiKey: 'ATTEST_OPENALEX_API_KEY',
  semanticscholarApiKey: 'ATTEST_SEMANTICSCHOLAR_API_KEY',
  coreApiKey: 'ATTEST_CORE_API_KEY',
  crossrefPlusToken: 'ATTEST_CROSSREF_PLUS_TOKEN',
};

export function secretsFromEnvironment(env: NodeJS.ProcessEnv): SourceSecrets {
  const read = (name: string): string | undefined => env[name]?.trim() || undefined;
  return {
    openalexApiKey: read(SECRET_ENVIRONMENT.openalexApiKey),
    semanticscholarApiKey: read(SECRET_ENVIRONMENT.semanticscholarApiKey),
    coreApiKey: read(SECRET_ENVIRONMENT.coreApiKey),
    crossrefPlusToken: read(SECRET_ENVIRONMENT.crossrefPlusToken),
  };
}

/** The enabled sources, in the configured order, sharing one lookup cache. */
export function createSources(config: SourcesConfig, secrets: SourceSecrets, cache?: LookupCache): PaperSource[] {
  return config.enabled.map((id) => createSource(id, config, secrets, cache));
}

function createSource(id: SourceId, config: SourcesConfig, secrets: SourceSecrets, cache: LookupCache | undefined): PaperSource {
  const common = { ...config.sources[id], email: config.email, cache, offline: config.offline };
  switch (id) {
    case 'crossref':
      return new CrossrefSource({ ...common, plusToken: secrets.crossrefPlusToken });
    case 'openalex':
      return new OpenAlexSource({ ...common, apiKey: secrets.openalexApiKey });
    case 'semanticscholar':
      return new SemanticScholarSource({ ...common, apiKey: secrets.semanticscholarApiKey });
    case 'arxiv':
      return new ArxivSource(common);
    case 'europepmc':
      return new EuropePmcSource(common);
    case 'core':
      return new CoreSource({ ...common, apiKey: secrets.coreApiKey });
  }
}
