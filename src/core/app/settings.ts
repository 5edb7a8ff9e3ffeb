/**
 * Every `attest.*` setting read once, typed, from a `get(key)`: the editor's configuration and the
 * CLI's `--config` file give the same keys, so both read them here. A value of the wrong type is
 * reported and replaced by its default, so one typo does not stop every check.
 */
import { isStringList } from '../json';
import { DEFAULT_FULL_TEXT, fullTextConfigFrom, type FullTextConfig } from '../fulltext/config';
import { DEFAULT_ENABLED, DEFAULT_SOURCES, DEFAULT_TIME_LIMIT_SECONDS, SOURCE_IDS, sourcesConfigFrom, type SettingOrigin, type SourcesConfig } from '../sources/config';
import { SUGGEST_DEFAULTS, suggestConfigFrom, type SuggestConfig } from '../suggest/config';
import { DEFAULT_THRESHOLDS, thresholdsFrom } from '../verify/support';
import { DEFAULT_INPUT_TOKENS, INPUT_TOKENS_RANGE, isTokenCount } from '../models/options';
import type { PipelineSettings } from './pipeline';

export type { FullTextConfig } from '../fulltext/config';
export { settingOrigin, type SettingOrigin, type SourcesConfig } from '../sources/config';
export type { SuggestConfig } from '../suggest/config';

/** A setting's value by its full key (`attest.sources.enabled`); undefined when unset. */
export type SettingsGet = (key: string) => unknown;

/**
 * Every setting with the default package.json's `contributes.configuration` declares; undefined
 * where the manifest has none (an unset threshold is the model's own). A unit test holds the two equal.
 */
export const SETTING_DEFAULTS: Readonly<Record<string, unknown>> = {
  'attest.check.debounceMs': 400,
  'attest.check.maxFileSizeMB': 20,
  'attest.bibliography.extraFiles': [],
  'attest.diagnostics.unusedEntries': true,
  'attest.references.check': true,
  'attest.references.showUnchecked': false,
  'attest.references.timeLimitSeconds': DEFAULT_TIME_LIMIT_SECONDS,
  'attest.sources.enabled': DEFAULT_ENABLED,
  'attest.sources.offline': false,
  'attest.sources.email': '',
  'attest.sources.dblp.dumpFile': '',
  ...Object.fromEntries(
    SOURCE_IDS.flatMap((id) => [
      [`attest.sources.${id}.baseUrl`, DEFAULT_SOURCES[id].baseUrl],
      [`attest.sources.${id}.requestsPerSecond`, DEFAULT_SOURCES[id].requestsPerSecond],
    ]),
  ),
  'attest.support.check': true,
  'attest.support.reportMissingAbstracts': false,
  'attest.support.entailmentThreshold': undefined,
  'attest.support.contradictionThreshold': undefined,
  'attest.support.relevanceThreshold': DEFAULT_THRESHOLDS.relevance,
  'attest.fullText.enabled': DEFAULT_FULL_TEXT.enabled,
  'attest.fullText.pdfFolder': '',
  'attest.fullText.cacheSizeMB': DEFAULT_FULL_TEXT.cacheBytes / (1024 * 1024),
  'attest.fullText.arxivHtmlBaseUrl': '',
  'attest.nli.model': '',
  'attest.nli.preferQuantized': true,
  'attest.nli.threads': 2,
  'attest.retrieval.encoder.model': 'Xenova/all-MiniLM-L6-v2',
  'attest.retrieval.encoder.preferQuantized': true,
  'attest.retrieval.encoder.threads': 2,
  'attest.retrieval.encoder.inputTokens': DEFAULT_INPUT_TOKENS,
  'attest.retrieval.liveSearch': true,
  'attest.retrieval.openAccessOnly': false,
  'attest.retrieval.rerank': true,
  'attest.library.solr.url': '',
  'attest.library.solr.collection': 'papers',
  ...SUGGEST_DEFAULTS,
};

/** A model folder's settings (`attest.nli.*`, `attest.retrieval.encoder.*`). */
export interface ModelSettings {
  /** A folder or Hugging Face id; empty for the one built into Attest. */
  readonly model: string;
  readonly preferQuantized: boolean;
  readonly threads: number;
}

/** The sentence encoder's settings (`attest.retrieval.encoder.*`). */
export interface EncoderSettings extends ModelSettings {
  /** The most tokens of a text the encoder reads (`attest.retrieval.encoder.inputTokens`). */
  readonly inputTokens: number;
}

export interface Settings {
  /** Quiet time after an edit before a manuscript is checked again (`attest.check.debounceMs`). */
  readonly debounceMs: number;
  /** Files larger are not read (`attest.check.maxFileSizeMB`, in bytes here). */
  readonly maxFileBytes: number;
  /** Bibliographies every manuscript uses besides its own, relative ones resolved against the folder given. */
  readonly extraBibliographies: readonly string[];
  /** Report entries no citation uses (`attest.diagnostics.unusedEntries`). */
  readonly reportUnused: boolean;
  /** What the check's stages do. */
  readonly pipeline: PipelineSettings;
  readonly sources: SourcesConfig;
  readonly fullText: FullTextConfig;
  readonly nli: ModelSettings;
  readonly encoder: EncoderSettings;
  readonly retrieval: { readonly liveSearch: boolean; readonly openAccessOnly: boolean; readonly rerank: boolean };
  /** An institution's Solr collection; an empty url for none. */
  readonly solr: { readonly url: string; readonly collection: string };
  readonly suggest: SuggestConfig;
  /** Settings that were not understood, for the user to fix, by the part of Attest that reads them; their defaults are used meanwhile. */
  readonly problems: SettingsProblems;
}

export type SettingsProblems = Readonly<Record<'sources' | 'support' | 'fullText' | 'suggest' | 'other', readonly string[]>>;

export interface SettingsHost {
  /** Where each value was set: a workspace may not raise a service's rate past its documented one. */
  readonly originOf?: (key: string) => SettingOrigin;
  /** The values a person set, without the host's defaults: thresholds left unset are the model's own. Else `get`. */
  readonly userSet?: SettingsGet;
  /** The folder relative paths (the PDF folder, extra bibliographies) are read from; without one, the working folder's for the PDF folder, and extra bibliographies as they are. */
  readonly base?: string;
}

/** Every `attest.*` setting, typed; what was not understood is in `problems`. */
export function readSettings(get: SettingsGet, host: SettingsHost): Settings {
  const problems: string[] = [];
  const read = <T>(key: string, valid: (value: unknown) => value is T, expected: string): T => {
    const value = get(key);
    if (value === undefined || value === null) return SETTING_DEFAULTS[key] as T;
    if (valid(value)) return value;
    problems.push(`${key} must be ${expected}; using the default.`);
    return SETTING_DEFAULTS[key] as T;
  };
  const flag = (key: string): boolean => read(key, isBoolean, 'true or false');
  const positive = (key: string): number => read(key, isPositive, 'a positive number');
  const text = (key: string): string => read(key, isString, 'a string').trim();
  const model = (section: string): ModelSettings => ({
    model: text(`${section}.model`),
    preferQuantized: flag(`${section}.preferQuantized`),
    threads: positive(`${section}.threads`),
  });

  const sources = sourcesConfigFrom(get, host.originOf, host.base);
  const thresholds = thresholdsFrom(host.userSet ?? get);
  const fullText = fullTextConfigFrom(get, host.base ?? process.cwd());
  const suggest = suggestConfigFrom(get);
  const settings: Omit<Settings, 'problems'> = {
    debounceMs: read('attest.check.debounceMs', isNonNegative, 'a number of milliseconds'),
    maxFileBytes: positive('attest.check.maxFileSizeMB') * 1024 * 1024,
    extraBibliographies: read('attest.bibliography.extraFiles', isStringList, 'a list of file paths').map((file) => resolved(host.base, file)),
    reportUnused: flag('attest.diagnostics.unusedEntries'),
    pipeline: {
      checkReferences: flag('attest.references.check'),
      showUnchecked: flag('attest.references.showUnchecked'),
      checkSupport: flag('attest.support.check'),
      reportMissingAbstracts: flag('attest.support.reportMissingAbstracts'),
      thresholds: thresholds.thresholds,
    },
    sources: sources.config,
    fullText: fullText.config,
    nli: model('attest.nli'),
    encoder: {
      ...model('attest.retrieval.encoder'),
      inputTokens: read('attest.retrieval.encoder.inputTokens', isTokenCount, `a whole number of tokens from ${INPUT_TOKENS_RANGE.least} to ${INPUT_TOKENS_RANGE.most}`),
    },
    retrieval: { liveSearch: flag('attest.retrieval.liveSearch'), openAccessOnly: flag('attest.retrieval.openAccessOnly'), rerank: flag('attest.retrieval.rerank') },
    solr: { url: text('attest.library.solr.url'), collection: text('attest.library.solr.collection') || (SETTING_DEFAULTS['attest.library.solr.collection'] as string) },
    suggest,
  };
  return { ...settings, problems: { sources: sources.problems, support: thresholds.problems, fullText: fullText.problems, suggest: suggest.problems, other: problems } };
}

/** A relative path against `base`, as the editor has always read `attest.bibliography.extraFiles`. */
function resolved(base: string | undefined, file: string): string {
  return base && !file.startsWith('/') && !/^[a-zA-Z]:/.test(file) ? `${base}/${file}` : file;
}

function isBoolean(value: unknown): value is boolean {
  return typeof value === 'boolean';
}

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function isNonNegative(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}
