import * as os from 'node:os';
import * as path from 'node:path';
import { createServices, type FullTextProvider, type LookupCache, type PaperSource, type PrepareProgress, secretsFromEnvironment } from '../core/app/services';
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
  const lookups = flags.cache ? path.resolve(flags.cache) : defaultCacheDirectory();
  const services = createServices(
    { sources: effective, fullText: settings.fullText },
    {
      secrets: secretsFromEnvironment(process.env),
      folders: { lookups, fullTexts: path.join(lookups, 'fulltexts'), indexes: path.join(lookups, 'indexes') },
      warn: flags.warn,
    },
  );
  const { pipeline, problems } = settings;
  return {
    config: effective,
    sources: services.sources,
    checkReferences: pipeline.checkReferences,
    showUnchecked: flags.showUnchecked || pipeline.showUnchecked,
    checkSupport: pipeline.checkSupport,
    reportMissingAbstracts: pipeline.reportMissingAbstracts,
    thresholds: pipeline.thresholds ?? {},
    cache: services.cache,
    fullText: services.fullText,
    warnings: [...problems.sources, ...problems.support, ...problems.fullText, ...problems.other],
  };
}

/**
 * Makes the local sources ready before a check (DBLP's dump indexed, once), so that the check's time
 * limit is spent on lookups. `progress` shows how far it is; a source that cannot be made ready is
 * reported through `warn` and answers each lookup with the reason, which is never a verdict.
 */
export async function prepareLocalSources(sources: readonly PaperSource[], warn: (message: string) => void, progress?: (progress: PrepareProgress) => void): Promise<void> {
  for (const source of sources) {
    if (!source.prepare) continue;
    let said = false;
    try {
      await source.prepare({
        onProgress: (step) => {
          if (!said) warn(`${step.task}, once: later runs use its index until the file changes.`);
          said = true;
          progress?.(step);
        },
      });
    } catch (error) {
      warn((error as Error).message);
    }
  }
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
