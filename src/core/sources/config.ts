import type { SourceId } from './types';

/** How one source is reached. */
export interface SourceSettings {
  readonly baseUrl: string;
  readonly requestsPerSecond: number;
}

/** The settings of the reference existence check, shared by the editor's settings and the CLI's `--config`. */
export interface SourcesConfig {
  /** The sources asked, in the order they are asked for a title search. */
  readonly enabled: readonly SourceId[];
  /** Send nothing; answer from the lookup cache only, and call everything else unchecked. */
  readonly offline: boolean;
  /** Contact address for the sources' polite pools (OpenAlex, Crossref). */
  readonly email?: string;
  readonly sources: Readonly<Record<SourceId, SourceSettings>>;
  /** How long one check of the references may take (`attest.references.timeLimitSeconds`). */
  readonly timeLimitMs: number;
}

const DEFAULT_TIME_LIMIT_SECONDS = 300;

export const SOURCE_IDS: readonly SourceId[] = ['crossref', 'openalex', 'semanticscholar', 'arxiv', 'europepmc', 'core'];

export const SOURCE_NAMES: Readonly<Record<SourceId, string>> = {
  crossref: 'Crossref',
  openalex: 'OpenAlex',
  semanticscholar: 'Semantic Scholar',
  arxiv: 'arXiv',
  europepmc: 'Europe PMC',
  core: 'CORE',
};

/** Each service's documented public endpoint and the rate it asks anonymous clients to keep to. */
export const DEFAULT_SOURCES: Readonly<Record<SourceId, SourceSettings>> = {
  crossref: { baseUrl: 'https://api.crossref.org', requestsPerSecond: 5 },
  openalex: { baseUrl: 'https://api.openalex.org', requestsPerSecond: 10 },
  semanticscholar: { baseUrl: 'https://api.semanticscholar.org', requestsPerSecond: 1 },
  // arXiv asks for one request every 3 seconds; 0.33 keeps to it and reads plainly in the Settings UI.
  arxiv: { baseUrl: 'https://export.arxiv.org', requestsPerSecond: 0.33 },
  europepmc: { baseUrl: 'https://www.ebi.ac.uk', requestsPerSecond: 10 },
  // CORE allows registered keys 10 to 25 requests a minute.
  core: { baseUrl: 'https://api.core.ac.uk', requestsPerSecond: 0.4 },
};

/**
 * How many requests at once the services Attest also reads full texts from take, lookups and full
 * texts together: arXiv and CORE one, as they ask.
 */
export const MAX_CONCURRENT = { arxiv: 1, europepmc: 2, core: 1 } as const satisfies Partial<Record<SourceId, number>>;

/** CORE answers only with an API key, so it is asked only when the user enables it. */
export const DEFAULT_ENABLED: readonly SourceId[] = ['crossref', 'openalex', 'semanticscholar', 'arxiv', 'europepmc'];

/**
 * Reads the config from flat setting keys (`attest.sources.enabled`, `attest.sources.crossref.baseUrl`,
 * …), as `settings.json` and the CLI's `--config` file both write them. Values of the wrong type are
 * reported and replaced by the default, so one typo does not stop every check.
 */
export function sourcesConfigFrom(get: (key: string) => unknown): { config: SourcesConfig; problems: string[] } {
  const problems: string[] = [];
  const read = <T>(key: string, valid: (v: unknown) => v is T, fallback: T, expected: string): T => {
    const value = get(key);
    if (value === undefined || value === null) return fallback;
    if (valid(value)) return value;
    problems.push(`${key} must be ${expected}; using the default.`);
    return fallback;
  };
  const enabled = read('attest.sources.enabled', isSourceList, DEFAULT_ENABLED, `a list of ${SOURCE_IDS.join(', ')}`);
  const email = read('attest.sources.email', isString, '', 'a string').trim();
  const sources = Object.fromEntries(
    SOURCE_IDS.map((id) => [
      id,
      {
        baseUrl: read(`attest.sources.${id}.baseUrl`, isHttpUrl, DEFAULT_SOURCES[id].baseUrl, 'an http(s) URL').replace(/\/+$/, ''),
        requestsPerSecond: read(`attest.sources.${id}.requestsPerSecond`, isPositive, DEFAULT_SOURCES[id].requestsPerSecond, 'a positive number'),
      },
    ]),
  ) as Record<SourceId, SourceSettings>;
  return {
    config: {
      enabled,
      offline: read('attest.sources.offline', isBoolean, false, 'true or false'),
      email: email.length > 0 ? email : undefined,
      sources,
      timeLimitMs: read('attest.references.timeLimitSeconds', isPositive, DEFAULT_TIME_LIMIT_SECONDS, 'a positive number of seconds') * 1000,
    },
    problems,
  };
}

function isSourceList(value: unknown): value is SourceId[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string' && (SOURCE_IDS as readonly string[]).includes(v));
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isBoolean(value: unknown): value is boolean {
  return typeof value === 'boolean';
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function isHttpUrl(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\/[^\s]+$/.test(value);
}
