import { authorName } from '../bibliography/describe';
import type { BibEntry } from '../bibliography/types';
import { sortFindings, type CheckResult } from '../check';
import type { Evidence, Finding } from '../findings';
import { SOURCE_NAMES } from '../sources/config';
import { SourceError, type PaperSource, type SourceRecord } from '../sources/types';
import { abstractOf, type Abstract } from './abstracts';
import { resolveEntry, type ExistenceVerdict } from './existence';

export interface ReferenceCheckOptions {
  readonly signal?: AbortSignal;
  /** Called after each entry, for a progress bar. */
  readonly onProgress?: (done: number, total: number) => void;
  /** Entries looked up at once; each source's own rate limit still applies. */
  readonly concurrency?: number;
  /** Verdicts already reached, so an edit to one entry does not look the others up again. */
  readonly cache?: VerdictCache;
}

/**
 * Verdicts by what an entry says, not by its key: editing an entry's fields looks it up again.
 * Unchecked verdicts are not kept, so a source that was down is asked again next time.
 */
export class VerdictCache {
  private readonly lookups = new Map<string, Omit<Lookup, 'entry'>>();

  get(entry: BibEntry): Lookup | undefined {
    const known = this.lookups.get(fingerprint(entry));
    return known && { ...known, entry };
  }

  set(lookup: Lookup): void {
    if (lookup.verdict.status !== 'unchecked') this.lookups.set(fingerprint(lookup.entry), { verdict: lookup.verdict, abstract: lookup.abstract });
  }

  clear(): void {
    this.lookups.clear();
  }
}

function fingerprint(entry: BibEntry): string {
  const { type, title, authors, year, venue, doi, arxivId } = entry;
  return JSON.stringify([type, title, authors, year, venue, doi, arxivId]);
}

/** What was learnt about one entry: the verdict and, for a work that was found, its abstract. */
export interface Lookup {
  readonly entry: BibEntry;
  readonly verdict: ExistenceVerdict;
  readonly abstract?: Abstract;
}

/** One lookup per distinct key: the first definition, as BibTeX uses it. */
export type Verdicts = ReadonlyMap<string, Lookup>;

/** Looks every entry up in the sources, and fetches the abstracts of those found. Throws `SourceError('cancelled')` when the signal aborts. */
export async function verifyEntries(entries: readonly BibEntry[], sources: readonly PaperSource[], options: ReferenceCheckOptions = {}): Promise<Verdicts> {
  const unique = new Map<string, BibEntry>();
  for (const entry of entries) if (!unique.has(entry.key)) unique.set(entry.key, entry);
  const queue = [...unique.values()];
  await prefetch(queue, sources, options.signal);
  const verdicts = new Map<string, Lookup>();
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const lookup = options.cache?.get(entry) ?? (await lookUp(entry, sources, options.signal));
      options.cache?.set(lookup);
      verdicts.set(entry.key, lookup);
      options.onProgress?.(++done, unique.size);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  if (options.signal?.aborted) throw new SourceError('cancelled', 'The reference check was cancelled.');
  // Keep the bibliography's order, whatever order the workers finished in.
  return new Map([...unique.keys()].filter((k) => verdicts.has(k)).map((k) => [k, verdicts.get(k)!]));
}

/** Lets sources that can answer many identifiers at once do so before entries are looked up one by one. */
async function prefetch(entries: readonly BibEntry[], sources: readonly PaperSource[], signal: AbortSignal | undefined): Promise<void> {
  const dois = entries.flatMap((e) => (e.doi ? [e.doi] : []));
  const arxivIds = entries.flatMap((e) => (e.arxivId ? [e.arxivId] : []));
  if (dois.length + arxivIds.length < 2) return;
  await Promise.all(
    sources.map(async (source) => {
      try {
        await source.prefetch?.({ dois, arxivIds }, { signal });
      } catch (error) {
        // The lookups one by one that follow ask again, and report what fails then.
        if (!(error instanceof SourceError) || error.kind === 'cancelled') throw error;
      }
    }),
  );
}

async function lookUp(entry: BibEntry, sources: readonly PaperSource[], signal: AbortSignal | undefined): Promise<Lookup> {
  const verdict = await resolveEntry(entry, sources, signal);
  if (verdict.status !== 'found' && verdict.status !== 'metadata-mismatch') return { entry, verdict };
  return { entry, verdict, abstract: await abstractOf(entry, verdict.record, sources, signal) };
}

/** The entries of a check worth looking up: those the manuscript cites (all of them under `\nocite{*}`). */
export function citedEntries(result: CheckResult): BibEntry[] {
  const entries = result.bibliographies.flatMap((b) => b.entries);
  if (result.manuscript.citesAll) return entries;
  const cited = new Set(result.citations.map((c) => c.key));
  return entries.filter((e) => cited.has(e.key));
}

/**
 * Findings for the verdicts: on the entry in its .bib, and for a reference that was not found, on each
 * citation of it too, where the writer is looking.
 */
export function referenceFindings(verdicts: Verdicts, citations: CheckResult['citations'], showUnchecked: boolean): Finding[] {
  const findings: Finding[] = [];
  for (const { entry, verdict } of verdicts.values()) {
    const finding = findingFor(entry, verdict, showUnchecked);
    if (!finding) continue;
    findings.push(finding);
    if (verdict.status !== 'not-found') continue;
    for (const citation of citations) {
      if (citation.key === entry.key) findings.push({ ...finding, file: citation.file, range: citation.range });
    }
  }
  return findings;
}

function findingFor(entry: BibEntry, verdict: ExistenceVerdict, showUnchecked: boolean): Finding | undefined {
  const at = { file: entry.file, range: entry.keyRange, key: entry.key };
  switch (verdict.status) {
    case 'found':
      return undefined;
    case 'not-found': {
      const names = verdict.asked.map((id) => SOURCE_NAMES[id]).join(', ');
      const doi = verdict.doiNamesOther ? ` Its DOI belongs to a different work: "${verdict.doiNamesOther.title}".` : '';
      return {
        ...at,
        code: 'not-found',
        severity: 'error',
        message: `No record of '${entry.key}' in ${names}; possibly fabricated.${doi}`,
        evidence: { asked: verdict.asked.map((id) => SOURCE_NAMES[id]), ...(verdict.doiNamesOther ? recordEvidence(verdict.doiNamesOther, 'doi') : {}) },
      };
    }
    case 'metadata-mismatch': {
      const name = SOURCE_NAMES[verdict.record.source];
      const fields = verdict.differences.map((d) => `${d.field} "${d.expected ?? '(none)'}" here, "${d.found ?? '(none)'}" in ${name}`).join('; ');
      return {
        ...at,
        code: 'metadata-mismatch',
        severity: 'warning',
        message: `'${entry.key}' matches a record in ${name} whose metadata differs: ${fields}.`,
        evidence: {
          ...recordEvidence(verdict.record, verdict.via),
          differences: verdict.differences.map((d) => ({ field: d.field, expected: d.expected ?? '', found: d.found ?? '' })),
        },
      };
    }
    case 'unchecked':
      return showUnchecked ? { ...at, code: 'unchecked', severity: 'hint', message: `'${entry.key}' could not be checked: ${verdict.reason}` } : undefined;
  }
}

function recordEvidence(record: SourceRecord, via: string): Evidence {
  return {
    source: SOURCE_NAMES[record.source],
    via,
    record: {
      id: record.id,
      url: record.url,
      title: record.title,
      authors: record.authors.map(authorName).filter((a) => a.length > 0),
      year: record.year,
      venue: record.venue,
      doi: record.doi,
      arxivId: record.arxivId,
    },
  };
}

/** The check's result with the reference findings added in their places. */
export function withReferenceFindings(result: CheckResult, verdicts: Verdicts, showUnchecked: boolean): CheckResult {
  return { ...result, verdicts, findings: sortFindings([...result.findings, ...referenceFindings(verdicts, result.citations, showUnchecked)]) };
}
