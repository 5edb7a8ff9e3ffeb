/**
 * Full-text settings (`attest.fullText.*`), shared by the editor's settings and the CLI's `--config`,
 * and the provider they make: the writer's PDFs, then the open services the user enabled for
 * reference lookups, with the same offline switch and keys.
 */
import * as path from 'node:path';
import { DEFAULT_SOURCES, type SourcesConfig } from '../sources/config';
import type { SourceGates } from '../sources/gates';
import type { SourceSecrets } from '../sources/registry';
import type { FullTextProvider } from './types';
import { FullTextFinder } from './find';
import { fullTextProvider, type FullTextOptions } from './provider';
import { FullTextStore } from './store';

export interface FullTextConfig {
  readonly enabled: boolean;
  /** The on-disk store's cap; the least recently used full texts go beyond it. */
  readonly cacheBytes: number;
  /** A folder of PDFs searched by DOI and title; absolute once read. */
  readonly pdfFolder?: string;
  /**
   * Where arXiv serves its HTML papers, which is not where its API is. Unset, it is arxiv.org beside
   * the public API, and the API's own address when that points at a mirror or a test server.
   */
  readonly arxivHtmlBaseUrl?: string;
}

const ARXIV_HTML = 'https://arxiv.org';

export const DEFAULT_FULL_TEXT: FullTextConfig = { enabled: true, cacheBytes: 200 * 1024 * 1024 };

/** The settings from their keys, relative folders against `base`; defaults where unset or invalid, with the problems. */
export function fullTextConfigFrom(get: (key: string) => unknown, base: string): { config: FullTextConfig; problems: string[] } {
  const problems: string[] = [];
  const enabled = get('attest.fullText.enabled');
  const size = get('attest.fullText.cacheSizeMB');
  const folder = get('attest.fullText.pdfFolder');
  const arxiv = get('attest.fullText.arxivHtmlBaseUrl');
  if (enabled !== undefined && typeof enabled !== 'boolean') problems.push('attest.fullText.enabled must be true or false; using true.');
  if (size !== undefined && !(typeof size === 'number' && size > 0)) problems.push('attest.fullText.cacheSizeMB must be a positive number; using 200.');
  if (folder !== undefined && typeof folder !== 'string') problems.push('attest.fullText.pdfFolder must be a folder path; ignoring it.');
  if (arxiv !== undefined && arxiv !== '' && !isUrl(arxiv)) problems.push('attest.fullText.arxivHtmlBaseUrl must be an http(s) URL; ignoring it.');
  const config: FullTextConfig = {
    enabled: typeof enabled === 'boolean' ? enabled : DEFAULT_FULL_TEXT.enabled,
    cacheBytes: typeof size === 'number' && size > 0 ? size * 1024 * 1024 : DEFAULT_FULL_TEXT.cacheBytes,
    ...(typeof folder === 'string' && folder.trim() !== '' ? { pdfFolder: path.resolve(base, folder.trim()) } : {}),
    ...(isUrl(arxiv) ? { arxivHtmlBaseUrl: arxiv } : {}),
  };
  return { config, problems };
}

function isUrl(value: unknown): value is string {
  return typeof value === 'string' && /^https?:\/\/[^\s]+$/.test(value);
}

/**
 * The provider the settings ask for, its store under `directory`; undefined when full texts are off.
 * `gates` are the run's, which its reference lookups pass too; `warn` is told once what of the PDF
 * folder could not be searched.
 */
export function createFullTextProvider(
  config: FullTextConfig,
  sources: SourcesConfig,
  secrets: SourceSecrets,
  directory: string,
  gates?: SourceGates,
  warn?: (message: string) => void,
): FullTextProvider | undefined {
  const options = fullTextOptions(config, sources, secrets, directory, gates);
  return options && fullTextProvider(options, warn);
}

/** What the provider and the at-hand lookup are made of; undefined when full texts are off. */
export function fullTextOptions(config: FullTextConfig, sources: SourcesConfig, secrets: SourceSecrets, directory: string, gates?: SourceGates): FullTextOptions | undefined {
  if (!config.enabled) return undefined;
  const store = new FullTextStore(directory, config.cacheBytes);
  const finder = new FullTextFinder({
    enabled: sources.enabled,
    europepmcBaseUrl: sources.sources.europepmc.baseUrl,
    arxivHtmlBaseUrl: config.arxivHtmlBaseUrl ?? (sources.sources.arxiv.baseUrl === DEFAULT_SOURCES.arxiv.baseUrl ? ARXIV_HTML : sources.sources.arxiv.baseUrl),
    coreBaseUrl: sources.sources.core.baseUrl,
    // As for lookups: a key goes only to the origin it was given for.
    coreApiKey: secrets.coreApiKey?.origin === new URL(sources.sources.core.baseUrl).origin ? secrets.coreApiKey.value : undefined,
    email: sources.email,
    offline: sources.offline,
    requestsPerSecond: { europepmc: sources.sources.europepmc.requestsPerSecond, arxiv: sources.sources.arxiv.requestsPerSecond, core: sources.sources.core.requestsPerSecond },
    gates,
    store,
  });
  return { finder, store, pdfFolder: config.pdfFolder };
}

/**
 * The full-text options of one editor session, reused by every judging run while the settings and the
 * key stay the same: the HTTP clients keep their rate limits and their memory of a failing or throttling
 * service from one run to the next, as the reference lookups' clients do. Other settings or another key
 * make new ones at the next run.
 */
export class FullTextSession {
  private made?: { readonly inputs: string; readonly options: FullTextOptions | undefined };

  /** @param gates the session's, which its reference lookups pass too */
  constructor(private readonly gates?: SourceGates) {}

  options(config: FullTextConfig, sources: SourcesConfig, secrets: SourceSecrets, directory: string): FullTextOptions | undefined {
    // Compared in memory only; the key is never written anywhere.
    const inputs = JSON.stringify([config, sources, secrets.coreApiKey ?? null, directory]);
    if (this.made?.inputs !== inputs) this.made = { inputs, options: fullTextOptions(config, sources, secrets, directory, this.gates) };
    return this.made.options;
  }
}
