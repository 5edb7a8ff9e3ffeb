import * as path from 'node:path';
import type { SourceId } from './ids';

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
  /**
   * DBLP's XML dump on this machine (`attest.sources.dblp.dumpFile`), absolute: DBLP, when enabled, is
   * answered from it rather than from its API. Undefined for none.
   */
  readonly dblpDumpFile?: string;
}

export const DEFAULT_TIME_LIMIT_SECONDS = 300;

export const SOURCE_IDS: readonly SourceId[] = ['crossref', 'openalex', 'semanticscholar', 'arxiv', 'europepmc', 'core', 'openlibrary', 'dblp'];

export const SOURCE_NAMES: Readonly<Record<SourceId, string>> = {
  crossref: 'Crossref',
  openalex: 'OpenAlex',
  semanticscholar: 'Semantic Scholar',
  arxiv: 'arXiv',
  europepmc: 'Europe PMC',
  core: 'CORE',
  openlibrary: 'Open Library',
  dblp: 'DBLP',
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
  // Open Library asks clients to identify themselves and keep to a few requests a second.
  openlibrary: { baseUrl: 'https://openlibrary.org', requestsPerSecond: 1 },
  // DBLP publishes no rate; it answers 429 with a Retry-After to clients that ask too fast.
  dblp: { baseUrl: 'https://dblp.org', requestsPerSecond: 1 },
};

/**
 * The most requests a second each service's terms allow an ordinary client: Crossref's polite pool
 * (10/s for single records since December 2025), OpenAlex's documented 100/s, Semantic Scholar's 1/s
 * for an API key, arXiv's one every 3 seconds, Europe PMC's 10/s, CORE's 25 a minute for a
 * registered key, Open Library's 3/s for a client that names itself, and for DBLP, which publishes no
 * rate, the one a second it answers without asking to slow down. A workspace's settings may lower a rate but not raise it past these: whoever wrote
 * them is not the user whose address or key a service would block. Two decimals at most, as the
 * Settings UI shows them, rounded down.
 */
export const DOCUMENTED_RATES: Readonly<Record<SourceId, number>> = {
  crossref: 10,
  openalex: 100,
  semanticscholar: 1,
  arxiv: 0.33,
  europepmc: 10,
  core: 0.41,
  openlibrary: 3,
  dblp: 1,
};

/**
 * Where a setting's value came from: the user's own settings (and the CLI's `--config`, which the
 * user names), or a workspace's (`.vscode/settings.json`, a `.code-workspace` file), which come with
 * a folder someone else may have written.
 */
export type SettingOrigin = 'user' | 'workspace';

/** The scopes VS Code's `WorkspaceConfiguration.inspect` reports a value in, as far as they tell the origin. */
export interface InspectedSetting {
  readonly workspaceValue?: unknown;
  readonly workspaceFolderValue?: unknown;
}

/** A value set in a workspace or one of its folders overrides the user's, so it is the one in effect. */
export function settingOrigin(inspected: InspectedSetting | undefined): SettingOrigin {
  return inspected?.workspaceFolderValue !== undefined || inspected?.workspaceValue !== undefined ? 'workspace' : 'user';
}

/**
 * The rate to keep to for `source`: the user's own as set, a workspace's no higher than the service's
 * documented rate (`DOCUMENTED_RATES`).
 */
export function allowedRate(source: SourceId, requestsPerSecond: number, origin: SettingOrigin): number {
  return origin === 'user' ? requestsPerSecond : Math.min(requestsPerSecond, DOCUMENTED_RATES[source]);
}

/**
 * How many requests at once the services Attest also reads full texts from take, lookups and full
 * texts together: arXiv and CORE one, as they ask.
 */
export const MAX_CONCURRENT = { arxiv: 1, europepmc: 2, core: 1 } as const satisfies Partial<Record<SourceId, number>>;

/**
 * CORE answers only with an API key, so it is asked only when the user enables it; DBLP, of one field,
 * when a writer in computer science enables it. Open Library is asked about books only (`PaperSource.booksOnly`).
 */
export const DEFAULT_ENABLED: readonly SourceId[] = ['crossref', 'openalex', 'semanticscholar', 'arxiv', 'europepmc', 'openlibrary'];

/**
 * Reads the config from flat setting keys (`attest.sources.enabled`, `attest.sources.crossref.baseUrl`,
 * …), as `settings.json` and the CLI's `--config` file both write them. Values of the wrong type are
 * reported and replaced by the default, so one typo does not stop every check. `originOf` says where
 * each value came from; a workspace's rate above a service's documented one is lowered to it, and said.
 * A relative path (DBLP's dump) is read against `base`, the config file's folder or the workspace's.
 */
export function sourcesConfigFrom(
  get: (key: string) => unknown,
  originOf: (key: string) => SettingOrigin = () => 'user',
  base = process.cwd(),
): { config: SourcesConfig; problems: string[] } {
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
  const rate = (id: SourceId): number => {
    const key = `attest.sources.${id}.requestsPerSecond`;
    const set = read(key, isPositive, DEFAULT_SOURCES[id].requestsPerSecond, 'a positive number');
    const allowed = allowedRate(id, set, originOf(key));
    if (allowed < set) {
      problems.push(
        `${key} is ${set} in this workspace's settings, above the ${allowed} a second ${SOURCE_NAMES[id]} allows; using ${allowed}. Only your user settings may set it higher.`,
      );
    }
    return allowed;
  };
  const sources = Object.fromEntries(
    SOURCE_IDS.map((id) => [
      id,
      {
        baseUrl: read(`attest.sources.${id}.baseUrl`, isHttpUrl, DEFAULT_SOURCES[id].baseUrl, 'an http(s) URL').replace(/\/+$/, ''),
        requestsPerSecond: rate(id),
      },
    ]),
  ) as Record<SourceId, SourceSettings>;
  const dump = read('attest.sources.dblp.dumpFile', isString, '', 'a file path').trim();
  if (dump !== '' && !enabled.includes('dblp')) {
    problems.push('attest.sources.dblp.dumpFile is set, but dblp is not in attest.sources.enabled: add dblp there for DBLP to be answered from the dump.');
  }
  return {
    config: {
      enabled,
      offline: read('attest.sources.offline', isBoolean, false, 'true or false'),
      email: email.length > 0 ? email : undefined,
      sources,
      timeLimitMs: read('attest.references.timeLimitSeconds', isPositive, DEFAULT_TIME_LIMIT_SECONDS, 'a positive number of seconds') * 1000,
      ...(dump !== '' && { dblpDumpFile: path.resolve(base, dump) }),
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
