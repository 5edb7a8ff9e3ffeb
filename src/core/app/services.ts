/**
 * The services a check calls out to, built from what the host keeps (its credentials and folders) and
 * what it reads (the settings): the open sources with their gates and lookup cache, and the full texts of
 * cited works. The CLI and the extension build them here, each from its own host, so that both wire them
 * the same way. Below, what the adapters use of the sources and full texts, re-exported.
 */
import { createFullTextProvider, type FullTextConfig } from '../fulltext/config';
import type { FullTextProvider } from '../fulltext/types';
import { LookupCache } from '../sources/cache';
import type { SourcesConfig } from '../sources/config';
import { SourceGates } from '../sources/gates';
import { createSources, SECRET_SOURCE, type SourceKey, type SourceSecrets } from '../sources/registry';
import type { PaperSource } from '../sources/types';

/** How a host keeps credentials: the value kept for a source's key or token, for the origin it may be sent to. */
export type SecretReader = (name: keyof SourceSecrets, origin: string) => Promise<string | undefined>;

/** The origin a credential is kept for and sent to: that of its source's configured base URL, so a base URL pointed elsewhere never receives a key kept for another. */
export function keyOrigin(config: SourcesConfig, name: keyof SourceSecrets): string {
  return new URL(config.sources[SECRET_SOURCE[name]].baseUrl).origin;
}

const SECRET_NAMES: readonly (keyof SourceSecrets)[] = ['openalexApiKey', 'semanticscholarApiKey', 'coreApiKey', 'crossrefPlusToken'];

/** The credentials `names` as the host keeps them, each read for the origin its source is configured at; an empty value is none. */
export async function readSecrets(config: SourcesConfig, read: SecretReader, names: readonly (keyof SourceSecrets)[] = SECRET_NAMES): Promise<SourceSecrets> {
  const secrets: Partial<Record<keyof SourceSecrets, SourceKey>> = {};
  for (const name of names) {
    const origin = keyOrigin(config, name);
    const value = await read(name, origin);
    if (value) secrets[name] = { value, origin };
  }
  return secrets;
}

/** Where a host keeps the services' state between runs. */
export interface ServiceFolders {
  /** The lookup cache's folder. */
  readonly lookups: string;
  /** The full-text store's folder. */
  readonly fullTexts: string;
  /** Where local sources keep their indexes (DBLP's dump's, in `dblp/`). */
  readonly indexes?: string;
}

/** What a host gives for the services of a run. */
export interface ServicesHost {
  readonly secrets: SourceSecrets;
  readonly folders: ServiceFolders;
  /** Told what of the PDF folder could not be searched, once. */
  readonly warn?: (message: string) => void;
}

/** The services of one run. */
export interface Services {
  /** The enabled sources, in the configured order. */
  readonly sources: PaperSource[];
  /** Lookups and judgements kept between runs. */
  readonly cache: LookupCache;
  /** The cited works' full texts; undefined when `attest.fullText.enabled` is false. */
  readonly fullText?: FullTextProvider;
}

/** The sources and the full texts of a run, sharing one gate per service: lookups and full texts share each service's allowance. */
export function createServices(settings: { readonly sources: SourcesConfig; readonly fullText: FullTextConfig }, host: ServicesHost): Services {
  const cache = new LookupCache(host.folders.lookups);
  const gates = new SourceGates();
  return {
    sources: createSources(settings.sources, host.secrets, cache, gates, host.folders.indexes),
    cache,
    fullText: createFullTextProvider(settings.fullText, settings.sources, host.secrets, host.folders.fullTexts, gates, host.warn),
  };
}

export { fullTextConfigFrom, FullTextSession } from '../fulltext/config';
export { type FullTextOptions, fullTextProvider, type PassageAtHand, passagesAtHand } from '../fulltext/provider';
export { type FullTextProvider, type FullTextResult, type FullTextSource, passagePlace, type WorkIds } from '../fulltext/types';
export { LookupCache } from '../sources/cache';
export { SOURCE_NAMES } from '../sources/config';
export { SourceGates } from '../sources/gates';
export type { SourceErrorKind } from '../sources/health';
export { createSources, publicOrigin, SECRET_SOURCE, secretsFromEnvironment, type SourceSecrets } from '../sources/registry';
export { type PaperSource, type PrepareProgress, SourceError, type SourceRecord } from '../sources/types';
