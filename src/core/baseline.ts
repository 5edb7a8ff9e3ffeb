import * as path from 'node:path';
import type { BibEntry } from './bibliography/types';
import type { Finding, FindingCode } from './findings';

/*
 * A baseline: the findings a paper's repository has accepted as they stand, so that CI fails only on
 * new ones. A finding is known by its code, its key, the reference the key names (the entry's title
 * and DOI, so a key given to another work is new) and its file, never by its line: moving text keeps
 * it. A key's finding reported more often than the baseline counted (a fabricated reference cited
 * once more) is new.
 */

export interface BaselineFinding {
  readonly code: FindingCode;
  readonly key: string | null;
  /** Relative to the baseline's folder, with `/`. */
  readonly file: string;
  /** The entry the key names, as `title · doi:…`, lower-cased; null without an entry. */
  readonly reference: string | null;
  /** For a finding about no key, its message is what tells it from another. */
  readonly message?: string;
  readonly count: number;
}

export interface Baseline {
  readonly version: 1;
  readonly findings: readonly BaselineFinding[];
}

/** A finding with the entry its key names, where there is one. */
export interface FindingInContext {
  readonly finding: Finding;
  readonly entry?: BibEntry;
}

/** A baseline holds no `unchecked`: a source that failed says nothing about a reference, and will answer later. */
function isLasting(finding: Finding): boolean {
  return finding.code !== 'unchecked';
}

/** The baseline of a run's findings; `folder` is where the baseline file is. */
export function baselineOf(findings: readonly FindingInContext[], folder: string): Baseline {
  const counted = new Map<string, BaselineFinding>();
  for (const item of findings) {
    if (!isLasting(item.finding)) continue;
    const identity = identityOf(item, folder);
    const id = canonical(identity);
    counted.set(id, { ...identity, count: (counted.get(id)?.count ?? 0) + 1 });
  }
  return { version: 1, findings: [...counted.values()].sort((a, b) => a.file.localeCompare(b.file) || (a.key ?? '').localeCompare(b.key ?? '') || a.code.localeCompare(b.code)) };
}

/** The findings the baseline does not account for, in their order. */
export function findingsNotIn(baseline: Baseline, findings: readonly FindingInContext[], folder: string): Finding[] {
  const left = new Map<string, number>();
  for (const known of baseline.findings) left.set(canonical(known), (left.get(canonical(known)) ?? 0) + known.count);
  const fresh: Finding[] = [];
  for (const item of findings) {
    if (!isLasting(item.finding)) continue;
    const id = canonical(identityOf(item, folder));
    const remaining = left.get(id) ?? 0;
    if (remaining > 0) left.set(id, remaining - 1);
    else fresh.push(item.finding);
  }
  return fresh;
}

type Identity = Omit<BaselineFinding, 'count'>;

function identityOf({ finding, entry }: FindingInContext, folder: string): Identity {
  const key = finding.key ?? null;
  return {
    code: finding.code,
    key,
    file: path.relative(folder, finding.file).split(path.sep).join('/'),
    reference: entry ? referenceOf(entry) : null,
    ...(key === null && { message: finding.message }),
  };
}

/** One string per identity, whatever order or extra fields a baseline file has. */
function canonical({ code, key, file, reference, message }: Identity): string {
  return JSON.stringify([code, key, file, reference, key === null ? (message ?? null) : null]);
}

/** The entry's title and DOI, folded so that case, spacing and punctuation do not make it another. */
function referenceOf(entry: BibEntry): string {
  const title = (entry.title ?? '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return entry.doi ? `${title} · doi:${entry.doi.toLowerCase()}` : title;
}

/** Whether parsed JSON is a baseline this version reads. */
export function isBaseline(value: unknown): value is Baseline {
  if (typeof value !== 'object' || value === null) return false;
  const { version, findings } = value as Record<string, unknown>;
  return (
    version === 1 &&
    Array.isArray(findings) &&
    findings.every((f: unknown) => {
      if (typeof f !== 'object' || f === null) return false;
      const { code, key, file, reference, count } = f as Record<string, unknown>;
      return (
        typeof code === 'string' &&
        (key === null || typeof key === 'string') &&
        typeof file === 'string' &&
        (reference === null || typeof reference === 'string') &&
        Number.isInteger(count) &&
        (count as number) > 0
      );
    })
  );
}
