import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LexicalIndex } from '../src/core/index/lexical';
import { cachedEmbeddings } from './encoders/embeddings';
import { encoderCache, isLaidOut, REGISTRY_ENCODERS } from './encoders/registry';
import { EVAL_DATA, haveEvalData } from './evalData';

interface Claim {
  readonly claim: string;
  readonly evidence: Readonly<Record<string, readonly { readonly sentences: readonly number[] }[]>>;
}

interface Case {
  readonly claim: string;
  readonly sentences: readonly string[];
  /** Indices of the abstract's rationale sentences for the claim. */
  readonly rationale: ReadonlySet<number>;
}

/**
 * The sentence Find Evidence shows under a result (library.ts: the lexical index's bestSentence)
 * against the one the default encoder would choose (the sentence nearest the claim's vector), on
 * SciFact's rationale sentences: for each claim and each abstract with evidence for it, is the chosen
 * sentence one of the annotated rationale sentences? Abstracts are SciFact's own sentence lists.
 */
export async function benchEvidenceSentence(): Promise<void> {
  if (!haveEvalData('evidence sentences', 'scifact/corpus.jsonl', 'scifact/claims_dev.jsonl')) return;
  const corpus = new Map((await readLines<{ doc_id: number; title: string; abstract: string[] }>('corpus.jsonl')).map((d) => [String(d.doc_id), d]));
  const lexical = new LexicalIndex();
  for (const [id, doc] of corpus) lexical.add({ id, title: doc.title, abstract: doc.abstract.join(' '), authors: [] });
  const encoder = REGISTRY_ENCODERS[0];
  const cache = encoderCache();
  // The development claims only: nothing is tuned here, and embedding train's 4,000 sentences too would double the cost.
  for (const split of ['dev'] as const) {
    const cases = (await readLines<Claim>(`claims_${split}.jsonl`)).flatMap((claim) =>
      Object.entries(claim.evidence).map(([doc, sets]): Case => ({
        claim: claim.claim,
        sentences: corpus.get(doc)?.abstract ?? [],
        rationale: new Set(sets.flatMap((set) => set.sentences)),
      })),
    );
    const lexicalHits = cases.filter((c) => c.rationale.has(lexicalChoice(lexical, c))).length;
    let line = `  ${split} (${cases.length} claim-abstract pairs): lexical ${share(lexicalHits, cases.length)}`;
    if (await isLaidOut(encoder, cache)) {
      const dir = path.join(cache, encoder.name);
      const sentences = cases.flatMap((c) => c.sentences);
      const sentenceVectors = (await cachedEmbeddings(dir, sentences, 'passage', cache)) ?? [];
      const claimVectors =
        (await cachedEmbeddings(
          dir,
          cases.map((c) => c.claim),
          'query',
          cache,
        )) ?? [];
      let offset = 0;
      let denseHits = 0;
      let onlyLexical = 0;
      let onlyDense = 0;
      cases.forEach((c, at) => {
        const scores = c.sentences.map((_, s) => dot(claimVectors[at], sentenceVectors[offset + s]));
        offset += c.sentences.length;
        const dense = c.rationale.has(scores.indexOf(Math.max(...scores)));
        const lexicalRight = c.rationale.has(lexicalChoice(lexical, c));
        if (dense) denseHits++;
        if (dense && !lexicalRight) onlyDense++;
        if (lexicalRight && !dense) onlyLexical++;
      });
      line += `, ${encoder.name} ${share(denseHits, cases.length)} (right where the other is wrong: lexical ${onlyLexical}, encoder ${onlyDense})`;
    } else {
      line += `; ${encoder.name} not fetched (npm run models:fetch)`;
    }
    console.log(line);
  }
}

/** The SciFact sentence holding the start of the lexical index's best sentence, or -1 when it finds none. */
function lexicalChoice(lexical: LexicalIndex, c: Case): number {
  const abstract = c.sentences.join(' ');
  const best = lexical.bestSentence(c.claim, abstract);
  if (best === undefined) return -1;
  let end = 0;
  return c.sentences.findIndex((sentence) => (end += sentence.length + 1) > best.start);
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let d = 0; d < a.length; d++) sum += a[d] * b[d];
  return sum;
}

function share(hits: number, total: number): string {
  return `${((100 * hits) / Math.max(total, 1)).toFixed(1)}% rationale`;
}

async function readLines<T>(file: string): Promise<T[]> {
  const text = await fs.readFile(path.join(EVAL_DATA, 'scifact', file), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}
