import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'csv-parse/sync';
import { abstractSentences } from '../src/core/verify/claims';
import type { Claim, Dataset } from './claims';
import { EVAL_DATA, haveEvalData } from './evalData';

/**
 * Claim sets of the kinds issue 34 accepts on but that no Attest model trains or chooses on: real
 * health claims (HealthVer, Sarrouti et al. 2021) and COVID claims (COVID-Fact, Saakyan et al. 2021),
 * their dev splits only. The team's evaluation data does not hold them; copied from their repositories
 * into ATTEST_EVAL_DATA (`healthver/healthver_dev.csv` from github.com/sarrouti/HealthVer's `data/`,
 * `covidfact/RTE-covidfact/dev.tsv` from github.com/asaakyan/covidfact), they are judged as
 * `attest verify --pairs` judges a pair: the evidence as given, split into sentences.
 */
export async function unseenSets(): Promise<Dataset[]> {
  const sets: Dataset[] = [];
  if (haveEvalData('HealthVer dev (github.com/sarrouti/HealthVer)', HEALTHVER_DEV)) sets.push(readHealthVer(await fs.readFile(path.join(EVAL_DATA, HEALTHVER_DEV), 'utf8')));
  if (haveEvalData('COVID-Fact dev (github.com/asaakyan/covidfact)', COVID_FACT_DEV)) sets.push(readCovidFact(await fs.readFile(path.join(EVAL_DATA, COVID_FACT_DEV), 'utf8')));
  return sets;
}

const HEALTHVER_DEV = 'healthver/healthver_dev.csv';
const COVID_FACT_DEV = 'covidfact/RTE-covidfact/dev.tsv';

/** HealthVer's labels as the bench's gold labels name them (`goldLabel`): Neutral is not enough information. */
const HEALTHVER_LABELS: ReadonlyMap<string, string> = new Map([
  ['Supports', 'SUPPORT'],
  ['Refutes', 'REFUTE'],
  ['Neutral', 'NOTENOUGHINFO'],
]);
/** COVID-Fact has two labels: a claim its evidence entails, and a counter-claim made from it by changing a word or two. */
const COVID_FACT_LABELS: ReadonlyMap<string, string> = new Map([
  ['entailment', 'SUPPORT'],
  ['not_entailment', 'REFUTE'],
]);

/** HealthVer's CSV (id, evidence, claim, label, …): evidence quoted, with commas and line breaks in it. */
export function readHealthVer(text: string): Dataset {
  const rows = parse(text, { bom: true, columns: true, skip_empty_lines: true }) as Partial<Record<string, string>>[];
  return pairsDataset(
    'HealthVer dev (real health claims, never trained on)',
    rows.map((r) => ({ id: r.id, claim: r.claim, evidence: r.evidence, label: r.label, gold: HEALTHVER_LABELS.get(r.label ?? '') })),
  );
}

/** COVID-Fact's RTE file (index, sentence1 = the evidence, Sentence2 = the claim, entailment = the label). */
export function readCovidFact(text: string): Dataset {
  // The file is tab-separated without quoting: a quote inside a claim is text.
  const rows = parse(text, { bom: true, columns: true, delimiter: '\t', quote: false, skip_empty_lines: true }) as Partial<Record<string, string>>[];
  return pairsDataset(
    'COVID-Fact dev (COVID claims, never trained on)',
    rows.map((r) => ({ id: r.index, claim: r.Sentence2, evidence: r.sentence1, label: r.entailment, gold: COVID_FACT_LABELS.get(r.entailment ?? '') })),
  );
}

/** Pairs of a claim and its evidence, each pair its own "abstract"; a row without a claim, evidence or a label the set has is an error that names it, not a guess. */
function pairsDataset(name: string, rows: readonly { id?: string; claim?: string; evidence?: string; label?: string; gold?: string }[]): Dataset {
  const abstracts = new Map<string, readonly string[]>();
  const claims: Claim[] = rows.map((row, index) => {
    const where = `${name}: row ${index + 1} (id ${row.id ?? 'none'})`;
    if (row.claim === undefined || row.evidence === undefined) throw new Error(`${where} has no claim or no evidence`);
    if (row.gold === undefined) throw new Error(`${where} has the label ${JSON.stringify(row.label ?? null)}, which the set does not have`);
    const doc = `${index}`;
    abstracts.set(doc, abstractSentences(row.evidence));
    return { id: index, claim: row.claim.trim(), cited: [doc], labels: new Map([[doc, row.gold]]) };
  });
  return { name, claims, abstracts, titles: new Map() };
}
