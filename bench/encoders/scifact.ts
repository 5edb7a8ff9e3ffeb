import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { passageText } from '../../src/core/index/passages';
import type { Paper } from '../../src/core/papers/paper';
import { EVAL_DATA } from '../evalData';

export const SCIFACT = path.join(EVAL_DATA, 'beir-scifact');

export interface Scifact {
  readonly papers: Paper[];
  /** Every claim of every split, by id. */
  readonly claims: Map<string, string>;
  /** What the library embeds of each paper, in order. */
  readonly passages: string[];
  /** The claims' texts, in the order of `claims`. */
  readonly queries: string[];
}

/** BEIR SciFact's abstracts and claims, read as the library reads papers. */
export async function scifactTexts(): Promise<Scifact> {
  const papers = (await readJsonLines<{ _id: string; title: string; text: string }>('corpus.jsonl')).map((row): Paper => ({
    id: row._id,
    title: row.title,
    abstract: row.text,
    authors: [],
  }));
  const claims = new Map((await readJsonLines<{ _id: string; text: string }>('queries.jsonl')).map((q) => [q._id, q.text]));
  return { papers, claims, passages: papers.map(passageText), queries: [...claims.values()] };
}

export async function readJsonLines<T>(file: string): Promise<T[]> {
  const text = await fs.readFile(path.join(SCIFACT, file), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}
