/**
 * A paper as a document of Attest's Solr collection (`solr/configset/conf/schema.xml`), and back.
 *
 * The words are Attest's terms (`analyzer.ts`), space-separated: the collection's BM25 fields only split
 * on spaces, so Solr ranks the terms Attest's own library ranks, title and title-plus-abstract as two
 * fields. What comes back from Solr is outside text: each field is checked for its type, and a document
 * without an id or a title is no paper.
 */
import { createHash } from 'node:crypto';
import { asRecord } from '../../bibliography/citing';
import { listAuthors } from '../../bibliography/describe';
import { citationKeyFor } from '../../bibliography/generate';
import type { Author } from '../../bibliography/types';
import type { Paper, PaperOrigin, PaperStanding } from '../../papers/paper';
import { SOURCE_IDS } from '../../sources/config';
import { analyze } from '../analyzer';
import { passageText } from '../passages';
import type { SolrDocument } from './client';

/** The stored fields a paper is read back from. */
export const PAPER_FIELDS = 'id,title,abstract,authors,year,venue,doi,arxiv_id,open_access_url,origin,standing';
/** The id of the document that names the collection's encoder. */
export const META_ID = 'attest:collection';
/** The version of Attest's analysis the terms were made with: terms of another are not comparable. */
export const ANALYZER = 'attest-1';

export function paperDocument(paper: Paper, vector?: Float32Array): SolrDocument {
  const title = analyze(paper.title);
  return {
    id: paper.id,
    kind: 'paper',
    title: paper.title,
    ...(paper.abstract !== undefined && { abstract: paper.abstract }),
    authors: paper.authors.map((author) => JSON.stringify(author)),
    ...(paper.year !== undefined && { year: paper.year }),
    ...(paper.venue !== undefined && { venue: paper.venue }),
    ...(paper.doi !== undefined && { doi: paper.doi }),
    ...(paper.arxivId !== undefined && { arxiv_id: paper.arxivId }),
    ...(paper.openAccessUrl !== undefined && { open_access_url: paper.openAccessUrl }),
    ...(paper.source !== undefined && { origin: JSON.stringify(paper.source) }),
    ...(paper.standing !== undefined && { standing: paper.standing }),
    text_hash: textHash(paper),
    title_terms: title.join(' '),
    text_terms: [...title, ...analyze(paper.abstract ?? '')].join(' '),
    ...(vector !== undefined && { vector: solrVector(vector) }),
    ...citationFields(paper),
  };
}

/** What citation completion matches a paper by, as the local library's key index does (`libraryKeys.ts`): its key, title, first authors, year and venue. */
function citationFields(paper: Paper): SolrDocument {
  return { cite_words: [citationKey(paper), paper.title, listAuthors(paper.authors, 3), paper.year ?? '', paper.venue ?? ''].join(' ') };
}

/** The key a paper is offered under, made here from its fields rather than read from Solr. */
export function citationKey(paper: Paper): string {
  return citationKeyFor(asRecord(paper), new Set());
}

/**
 * A vector's components as Solr's JSON reader takes them for numbers: a 32-bit float printed as a
 * double has up to 18 digits, which that reader keeps as a string and the vector field then refuses.
 * Nine significant digits give every 32-bit float back exactly.
 */
export function solrVector(vector: Float32Array): number[] {
  return Array.from(vector, (component) => Number(component.toPrecision(9)));
}

/** What a paper's vector and terms are made of, hashed: the same hash, nothing to index again. */
export function textHash(paper: Paper): string {
  return createHash('sha256').update(passageText(paper)).digest('hex').slice(0, 32);
}

/** The paper a stored document holds; undefined for a document that is not one. */
export function paperOf(doc: SolrDocument): Paper | undefined {
  const { id, title } = doc;
  if (typeof id !== 'string' || typeof title !== 'string' || id === '' || title.trim() === '') return undefined;
  const origin = jsonField(doc.origin, isOrigin);
  const standing = oneOf(doc.standing, ['retracted', 'expression-of-concern', 'withdrawn'] as const);
  return {
    id,
    title,
    authors: (Array.isArray(doc.authors) ? doc.authors : []).flatMap((text) => jsonField(text, isAuthor) ?? []),
    ...optionalString('abstract', doc.abstract),
    ...(Number.isInteger(doc.year) && { year: doc.year as number }),
    ...optionalString('venue', doc.venue),
    ...optionalString('doi', doc.doi),
    ...optionalString('arxivId', doc.arxiv_id),
    ...optionalString('openAccessUrl', doc.open_access_url),
    ...(origin !== undefined && { source: origin }),
    ...(standing !== undefined && { standing: standing as PaperStanding }),
  };
}

function optionalString<K extends string>(key: K, value: unknown): { [key in K]?: string } {
  return (typeof value === 'string' && value !== '' ? { [key]: value } : {}) as { [key in K]?: string };
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T | undefined {
  return allowed.find((one) => one === value);
}

function jsonField<T>(text: unknown, is: (value: unknown) => value is T): T | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return is(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isAuthor(value: unknown): value is Author {
  if (typeof value !== 'object' || value === null) return false;
  const { family, given, literal } = value as Record<string, unknown>;
  const optional = (part: unknown): boolean => part === undefined || typeof part === 'string';
  return optional(family) && optional(given) && optional(literal) && (family !== undefined || literal !== undefined || given !== undefined);
}

function isOrigin(value: unknown): value is PaperOrigin {
  if (typeof value !== 'object' || value === null) return false;
  const { id, recordId, url } = value as Record<string, unknown>;
  return (SOURCE_IDS as readonly unknown[]).includes(id) && typeof recordId === 'string' && (url === undefined || typeof url === 'string');
}
