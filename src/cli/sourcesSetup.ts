import * as os from 'node:os';
import * as path from 'node:path';
import { createFullTextProvider, createSources, type FullTextProvider, LookupCache, type PaperSource, secretsFromEnvironment, SourceGates } from '../core/app/services';
import type { SupportThresholds } from '../core/app/support';
import { readSettings, type SourcesConfig } from '../core/app/settings';
import { readNamedTextFile, SMALL_FILE_BYTES } from '../core/app/text';

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
  const values = flags.config ? await readConfigFile(flags.config) : {};
  const settings = readSettings((key) => values[key], { base: flags.config ? path.dirname(path.resolve(flags.config)) : process.cwd() });
  const effective: SourcesConfig = { ...settings.sources, offline: flags.offline || settings.sources.offline };
  const cache = new LookupCache(flags.cache ? path.resolve(flags.cache) : defaultCacheDirectory());
  const secrets = secretsFromEnvironment(process.env);
  // One gate per service for the run: lookups and full texts share each service's allowance.
  const gates = new SourceGates();
  const { pipeline, problems } = settings;
  return {
    config: effective,
    sources: createSources(effective, secrets, cache, gates),
    checkReferences: pipeline.checkReferences,
    showUnchecked: flags.showUnchecked || pipeline.showUnchecked,
    checkSupport: pipeline.checkSupport,
    reportMissingAbstracts: pipeline.reportMissingAbstracts,
    thresholds: pipeline.thresholds ?? {},
    cache,
    fullText: createFullTextProvider(settings.fullText, effective, secrets, path.join(cache.directory, 'fulltexts'), gates, flags.warn),
    warnings: [...problems.sources, ...problems.support, ...problems.fullText, ...problems.other],
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
