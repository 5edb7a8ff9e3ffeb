/** The manifest: which files make up the library now, read and checked before anything it names is opened. */
import * as path from 'node:path';
import { isObject } from '../../json';
import type { SegmentFiles } from '../segment';
import { errorMessage, isDamage, isMissingFile } from './damage';
import { papersFilesIn, readRegular } from './files';

/**
 * Bumped when the files change shape; a store of the earlier version is read and saved again in this
 * one, one of a version before that rebuilt from its papers, one of a newer version left alone.
 */
export const STORE_VERSION = 2;
export const EARLIER_VERSION = 1;
export const FORMAT = 'attest-paper-store';
export const MANIFEST = 'manifest.json';
/** A manifest names a few dozen files: anything near this is not one. */
const MANIFEST_BYTES = 1024 * 1024;

/** The encoder whose vectors the store holds: vectors of different encoders are not comparable. */
export interface EncoderId {
  /** The model's name, e.g. `bge-small-en-v1.5`. */
  readonly model: string;
  readonly dimension: number;
}

export interface Segment {
  readonly file: string;
  readonly count: number;
}

export interface VectorSegment extends Segment {
  readonly ids: string;
}

export interface Manifest {
  readonly format: typeof FORMAT;
  readonly version: typeof STORE_VERSION;
  readonly generation: number;
  /** Later segments replace papers of earlier ones with the same id. */
  readonly segments: readonly SegmentFiles[];
  readonly vectors?: EncoderId & { readonly segments: readonly VectorSegment[] };
}

/** Format version 1: papers files, and one lexical snapshot over the first `lexical.segments` of them. */
export interface EarlierManifest {
  readonly format: typeof FORMAT;
  readonly version: typeof EARLIER_VERSION;
  readonly generation: number;
  readonly papers: readonly Segment[];
  readonly lexical: { readonly file: string; readonly segments: number };
  readonly vectors?: EncoderId & { readonly segments: readonly VectorSegment[] };
}

export type ManifestRead =
  | { readonly kind: 'none' }
  | { readonly kind: 'unreadable'; readonly error: unknown }
  | { readonly kind: 'invalid'; readonly reason: string }
  | { readonly kind: 'newer'; readonly version: number }
  | { readonly kind: 'earlier'; readonly manifest: EarlierManifest }
  | { readonly kind: 'valid'; readonly manifest: Manifest };

export async function readManifest(dir: string): Promise<ManifestRead> {
  let text: string;
  try {
    text = await readRegular(path.join(dir, MANIFEST), MANIFEST_BYTES);
  } catch (error) {
    if (!isMissingFile(error)) return isDamage(error) ? { kind: 'invalid', reason: errorMessage(error) } : { kind: 'unreadable', error };
    return (await papersFilesIn(dir)).length > 0 ? { kind: 'invalid', reason: `${MANIFEST} is missing` } : { kind: 'none' };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: `${MANIFEST} is not JSON` };
  }
  if (!isObject(json) || json.format !== FORMAT) return { kind: 'invalid', reason: `${MANIFEST} is not an Attest paper library's` };
  if (typeof json.version === 'number' && json.version > STORE_VERSION) return { kind: 'newer', version: json.version };
  if (json.version === EARLIER_VERSION) return isEarlierManifest(json) ? { kind: 'earlier', manifest: json } : { kind: 'invalid', reason: `${MANIFEST} is incomplete` };
  if (json.version !== STORE_VERSION)
    return { kind: 'invalid', reason: `it is format version ${String(json.version)}; this Attest reads versions ${EARLIER_VERSION} and ${STORE_VERSION}` };
  return isManifest(json) ? { kind: 'valid', manifest: json } : { kind: 'invalid', reason: `${MANIFEST} is incomplete` };
}

export function isManifest(json: Record<string, unknown>): json is Record<string, unknown> & Manifest {
  const { generation, segments, vectors } = json;
  const isFiles = (s: unknown): boolean => isObject(s) && typeof s.papers === 'string' && typeof s.lexical === 'string' && isCount(s.count);
  return isCount(generation) && Array.isArray(segments) && segments.every(isFiles) && isVectors(vectors);
}

export function isEarlierManifest(json: Record<string, unknown>): json is Record<string, unknown> & EarlierManifest {
  const { generation, papers, lexical, vectors } = json;
  if (!isCount(generation) || !Array.isArray(papers) || !papers.every(isSegment) || !isObject(lexical)) return false;
  return typeof lexical.file === 'string' && isCount(lexical.segments) && lexical.segments <= papers.length && isVectors(vectors);
}

export function isVectors(vectors: unknown): boolean {
  if (vectors === undefined) return true;
  return (
    isObject(vectors) &&
    typeof vectors.model === 'string' &&
    isCount(vectors.dimension) &&
    vectors.dimension > 0 &&
    Array.isArray(vectors.segments) &&
    vectors.segments.every((s) => isSegment(s) && isObject(s) && typeof s.ids === 'string')
  );
}

export function isSegment(value: unknown): value is Segment {
  return isObject(value) && typeof value.file === 'string' && isCount(value.count);
}

export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

export function filesOf(manifest: Manifest): string[] {
  return [...manifest.segments.flatMap((s) => [s.papers, s.lexical]), ...vectorFilesOf(manifest)];
}

export function earlierFilesOf(manifest: EarlierManifest): string[] {
  return [...manifest.papers.map((s) => s.file), manifest.lexical.file, ...vectorFilesOf(manifest)];
}

export function vectorFilesOf(manifest: Manifest | EarlierManifest): string[] {
  return manifest.vectors?.segments.flatMap((s) => [s.file, s.ids]) ?? [];
}

export function papersFilesOf(manifest: Manifest | EarlierManifest): string[] {
  return manifest.version === STORE_VERSION ? manifest.segments.map((s) => s.papers) : manifest.papers.map((s) => s.file);
}
