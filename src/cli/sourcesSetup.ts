import * as os from 'node:os';
import * as path from 'node:path';
import { LookupCache } from '../core/sources/cache';
import { sourcesConfigFrom, type SourcesConfig } from '../core/sources/config';
import { SourceGates } from '../core/sources/gates';
import { createSources, secretsFromEnvironment } from '../core/sources/registry';
import { thresholdsFrom, type SupportThresholds } from '../core/verify/support';
import { createFullTextProvider, fullTextConfigFrom } from '../core/fulltext/config';
import type { FullTextProvider } from '../core/fulltext/types';
import type { PaperSource } from '../core/sources/types';
import { readNamedTextFile, SMALL_FILE_BYTES } from '../core/text/readFile';

export interface SourcesSetup {
  readonly config: SourcesConfig;
  readonly sources: PaperSource[];
  /** Whether to look references up at all (`attest.references.check`). */
  readonly checkReferences: boolean;
  readonly showUnchecked: boolean;
  /** Whether to judge each cited abstract against its sentence (`attest.support.check`). */
  readonly checkSupport: boolean;
  /** One `unverifiable` finding per citation of a work without an abstract (`attest.support.reportMissingAbstracts`). */
  readonly reportMissingAbstracts: boolean;
  /** The support thresholds the config file sets; the rest are the model's or the defaults. */
  readonly thresholds: Partial<SupportThresholds>;
  /** Lookups and judgements kept between runs. */
  readonly cache: LookupCache;
  /** The cited works' full texts (the writer's PDFs, open services), unless `attest.fullText.enabled` is false. */
  readonly fullText?: FullTextProvider;
  /** Settings that were not understood, for the user to fix. */
  readonly warnings: string[];
}

/** Thrown for a config file that cannot be used; the message says why. */
export class ConfigFileError extends Error {}

/**
 * The sources as the CLI's flags, `--config` file (the same keys as the editor's settings) and
 * environment (API keys) configure them.
 */
export async function setUpSources(flags: {
  config?: string;
  offline: boolean;
  cache?: string;
  showUnchecked: boolean;
  /** Told once what of the PDF folder could not be searched. */
  warn?: (message: string) => void;
}): Promise<SourcesSetup> {
  const settings = flags.config ? await readConfigFile(flags.config) : {};
  const { config, problems } = sourcesConfigFrom((key) => settings[key]);
  const effective: SourcesConfig = { ...config, offline: flags.offline || config.offline };
  const cache = new LookupCache(flags.cache ? path.resolve(flags.cache) : defaultCacheDirectory());
  const thresholds = thresholdsFrom((key) => settings[key]);
  const secrets = secretsFromEnvironment(process.env);
  const fullText = fullTextConfigFrom((key) => settings[key], flags.config ? path.dirname(path.resolve(flags.config)) : process.cwd());
  // One gate per service for the run: lookups and full texts share each service's allowance.
  const gates = new SourceGates();
  return {
    config: effective,
    sources: createSources(effective, secrets, cache, gates),
    checkReferences: settings['attest.references.check'] !== false,
    showUnchecked: flags.showUnchecked || settings['attest.references.showUnchecked'] === true,
    checkSupport: settings['attest.support.check'] !== false,
    reportMissingAbstracts: settings['attest.support.reportMissingAbstracts'] === true,
    thresholds: thresholds.thresholds,
    cache,
    fullText: createFullTextProvider(fullText.config, effective, secrets, path.join(cache.directory, 'fulltexts'), gates, flags.warn),
    warnings: [...problems, ...thresholds.problems, ...fullText.problems],
  };
}

/** The `--config` file's settings: a JSON object of the editor's keys. */
export async function readConfigFile(file: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readNamedTextFile(file, SMALL_FILE_BYTES);
  } catch (error) {
    throw new ConfigFileError(`cannot read config file: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(`config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigFileError(`config file ${file} must hold a JSON object of settings, e.g. {"attest.sources.offline": true}`);
  }
  return value as Record<string, unknown>;
}

/** Where lookups are kept between runs: the XDG cache directory, as other command-line tools use. */
function defaultCacheDirectory(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'attest', 'lookups');
}
