import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { EVAL_DATA } from './evalData';

export interface Claim {
  readonly id: number;
  readonly claim: string;
  readonly cited: readonly string[];
  /** Gold label per cited document: SUPPORT, CONTRADICT/REFUTE, or none (not enough information). */
  readonly labels: ReadonlyMap<string, string>;
}

export interface Dataset {
  readonly name: string;
  readonly claims: readonly Claim[];
  readonly abstracts: ReadonlyMap<string, readonly string[]>;
  readonly titles: ReadonlyMap<string, string>;
}

/**
 * A dataset's claim as the sentence a writer's manuscript gives Attest, read as training reads it
 * (`clean_claim` in training/attest_training/pairs.py): Citation-Integrity's markers where citations
 * stood (`<|cit|>`, `<|multi_cit|>`, `<|other_cit|>`) go, as the extension removes citation commands,
 * and so does a bracket left holding only numbers and separators ("[<|multi_cit|>,7]").
 */
export function cleanClaim(text: string): string {
  return text
    .replace(/<\|[a-z_]+\|>/g, '')
    .replace(/\s*[[(][\s\d,;–-]*[\])]/g, '')
    .replace(/\s+([.,;:])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A claims file and its corpus in SciFact's layout (Citation-Integrity's processed/ has it too). */
export async function loadClaims(name: string, claimsFile: string, corpusFile: string): Promise<Dataset> {
  const abstracts = new Map<string, readonly string[]>();
  const titles = new Map<string, string>();
  for (const line of (await fs.readFile(path.join(EVAL_DATA, corpusFile), 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    const doc = JSON.parse(line) as { doc_id: number; title: string; abstract: string[] };
    abstracts.set(String(doc.doc_id), doc.abstract);
    titles.set(String(doc.doc_id), doc.title);
  }
  const claims: Claim[] = [];
  for (const line of (await fs.readFile(path.join(EVAL_DATA, claimsFile), 'utf8')).split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line) as { id: number; claim: string; cited_doc_ids: number[]; evidence: Record<string, { label: string }[]> };
    const labels = new Map(Object.entries(row.evidence).map(([doc, sets]) => [doc, sets[0]?.label ?? '']));
    claims.push({ id: row.id, claim: cleanClaim(row.claim), cited: row.cited_doc_ids.map(String).filter((d) => abstracts.has(d)), labels });
  }
  return { name, claims: claims.filter((c) => c.cited.length > 0), abstracts, titles };
}
