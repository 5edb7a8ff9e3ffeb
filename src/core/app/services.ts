/** The services a check calls out to: the open sources and their settings, gates, caches and health, and the full texts found for a work. */
export { createFullTextProvider, fullTextConfigFrom, FullTextSession } from '../fulltext/config';
export { type FullTextOptions, fullTextProvider, type PassageAtHand, passagesAtHand } from '../fulltext/provider';
export { type FullTextProvider, type FullTextResult, type FullTextSource, passagePlace, type WorkIds } from '../fulltext/types';
export { LookupCache } from '../sources/cache';
export { SOURCE_NAMES } from '../sources/config';
export { SourceGates } from '../sources/gates';
export type { SourceErrorKind } from '../sources/health';
export { createSources, publicOrigin, SECRET_SOURCE, secretsFromEnvironment, type SourceKey, type SourceSecrets } from '../sources/registry';
export { type PaperSource, SourceError, type SourceRecord } from '../sources/types';
