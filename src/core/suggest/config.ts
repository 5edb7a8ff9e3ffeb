/**
 * The settings of cited suggestions, read by the same code from the editor's settings and from the
 * CLI's `--config` file (the same keys): the model's endpoint and limits, and how much of a draft is kept.
 */
import { DEFAULT_DRAFT_LIMITS, type DraftLimits } from './limits';
import type { LlmSettings } from './llm';

export interface SuggestConfig {
  /** Everything but the key, which is a secret kept elsewhere (the editor's secret storage, ATTEST_LLM_API_KEY). */
  readonly llm: Omit<LlmSettings, 'apiKey' | 'maxRetries'>;
  readonly limits: DraftLimits;
  /** Settings that were not understood, for the user to fix; their defaults are used meanwhile. */
  readonly problems: readonly string[];
}

/** The defaults of package.json's contributes.configuration. */
export const SUGGEST_DEFAULTS = {
  'attest.llm.baseUrl': 'https://api.openai.com/v1',
  'attest.llm.model': '',
  'attest.llm.temperature': 0.2,
  'attest.llm.maxTokens': 1000,
  'attest.llm.timeoutSeconds': 120,
  'attest.suggest.maxSentences': DEFAULT_DRAFT_LIMITS.maxSentences,
  'attest.suggest.maxCharacters': DEFAULT_DRAFT_LIMITS.maxCharacters,
} as const;

export function suggestConfigFrom(get: (key: string) => unknown): SuggestConfig {
  const problems: string[] = [];
  const text = (key: keyof typeof SUGGEST_DEFAULTS & `attest.llm.${'baseUrl' | 'model'}`): string => {
    const value = get(key);
    if (value === undefined || value === null) return SUGGEST_DEFAULTS[key];
    if (typeof value === 'string') return value.trim();
    problems.push(`${key} must be a string`);
    return SUGGEST_DEFAULTS[key];
  };
  const number = (key: Exclude<keyof typeof SUGGEST_DEFAULTS, 'attest.llm.baseUrl' | 'attest.llm.model'>, min: number, max: number, whole: boolean): number => {
    const value = get(key);
    if (value === undefined || value === null) return SUGGEST_DEFAULTS[key];
    if (typeof value === 'number' && value >= min && value <= max && (!whole || Number.isInteger(value))) return value;
    problems.push(`${key} must be a ${whole ? 'whole ' : ''}number from ${min} to ${max}; using ${SUGGEST_DEFAULTS[key]}`);
    return SUGGEST_DEFAULTS[key];
  };
  return {
    llm: {
      baseUrl: text('attest.llm.baseUrl'),
      model: text('attest.llm.model'),
      temperature: number('attest.llm.temperature', 0, 2, false),
      maxTokens: number('attest.llm.maxTokens', 16, 1_000_000, true),
      timeoutMs: number('attest.llm.timeoutSeconds', 0.001, 3600, false) * 1000,
    },
    limits: {
      maxSentences: number('attest.suggest.maxSentences', 1, 20, true),
      maxCharacters: number('attest.suggest.maxCharacters', 50, 10_000, true),
    },
    problems,
  };
}
