/** Format version 1, read whole: papers files and one lexical snapshot as JSON lines. */
import * as path from 'node:path';
import { isObject } from '../../json';
import type { Paper } from '../../papers/paper';
import { openRegularFile } from '../../text/readFile';
import { LexicalIndex, type LexicalIndexData } from '../lexical';
import { DamagedStore } from './damage';
import { readPapers } from './files';
import type { EarlierManifest, Segment } from './manifest';

/**
 * A library of format version 1, whole: the papers of the segments its lexical snapshot covers,
 * the snapshot, then the papers of later segments indexed on top. Throws when they disagree.
 */
export async function readEarlier(dir: string, manifest: EarlierManifest): Promise<{ papers: Paper[]; lexical: LexicalIndex }> {
  const byId = new Map<string, Paper>();
  const segment = async (s: Segment): Promise<Paper[]> => {
    const { papers } = await readPapers(path.join(dir, s.file), 'strict');
    if (papers.length !== s.count) throw new DamagedStore(`${s.file} holds ${papers.length} papers, not ${s.count}`);
    return papers;
  };
  const covered = manifest.papers.slice(0, manifest.lexical.segments);
  for (const s of covered) for (const paper of await segment(s)) byId.set(paper.id, paper);
  const lexical = LexicalIndex.fromJSON(await readLexical(path.join(dir, manifest.lexical.file)));
  if (lexical.size !== byId.size || [...byId.keys()].some((id) => !lexical.has(id))) {
    throw new DamagedStore(`${manifest.lexical.file} does not index the papers of ${covered.map((s) => s.file).join(', ')}`);
  }
  for (const s of manifest.papers.slice(manifest.lexical.segments)) {
    for (const paper of await segment(s)) {
      byId.set(paper.id, paper);
      lexical.add(paper);
    }
  }
  return { papers: [...byId.values()], lexical };
}

async function readLexical(file: string): Promise<LexicalIndexData> {
  let ids: string[] | undefined;
  const fields: { lengths: number[]; postings: Record<string, number[]> }[] = [];
  const { handle } = await openRegularFile(file);
  try {
    for await (const line of handle.readLines()) {
      if (line === '') continue;
      const json: unknown = JSON.parse(line);
      if (Array.isArray(json) && typeof json[0] === 'string' && Array.isArray(json[1]) && fields.length > 0) {
        fields[fields.length - 1].postings[json[0]] = json[1] as number[];
      } else if (isObject(json) && Array.isArray(json.lengths) && ids !== undefined) {
        fields.push({ lengths: json.lengths as number[], postings: {} });
      } else if (isObject(json) && Array.isArray(json.ids) && ids === undefined) {
        ids = json.ids as string[];
      } else throw new DamagedStore(`${path.basename(file)} is not a lexical index`);
    }
  } finally {
    await handle.close();
  }
  if (ids === undefined || fields.some((f) => f.lengths.length !== ids?.length)) throw new DamagedStore(`${path.basename(file)} is incomplete`);
  return { ids, fields };
}
