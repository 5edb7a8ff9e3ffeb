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
    // Citation-Integrity marks where citations stood; they are not part of the claim.
    const claim = row.claim
      .replace(/\[?<\|[a-z_]+\|>\]?/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    claims.push({ id: row.id, claim, cited: row.cited_doc_ids.map(String).filter((d) => abstracts.has(d)), labels });
  }
  return { name, claims: claims.filter((c) => c.cited.length > 0), abstracts, titles };
}
