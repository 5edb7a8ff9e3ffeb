import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DenseIndex } from '../src/core/index/dense';
import { rankPapers, type Indexes } from '../src/core/index/hybrid';
import { abstractSentences } from '../src/core/index/passages';
import { LexicalIndex } from '../src/core/index/lexical';
import { PaperStore } from '../src/core/index/store';
import type { SearchMode } from '../src/core/evidence';
import { OnnxEmbedder } from '../src/core/models/embedder';
import type { Paper } from '../src/core/papers/paper';
import { EVAL_DATA, haveEvalData } from './evalData';
import { ndcgAt, recallAt } from './metrics';
import { ms, PeakMemory, percentile } from './stats';

const SCIFACT = path.join(EVAL_DATA, 'beir-scifact');
const LARGE_CORPUS = 100_000;
/** bge-small-en-v1.5 and all-MiniLM-L6-v2 both give 384 dimensions. */
const DEFAULT_DIMENSION = 384;

type Judgements = Map<string, Map<string, number>>;

/**
 * Find Evidence's retrieval on BEIR SciFact: lexical quality on the test claims (the settings were
 * tuned on the training claims, printed for comparison), dense and hybrid quality when
 * ATTEST_EMBED_MODEL names a sentence encoder, then the cost of searching and of keeping the library
 * on disk at SciFact's size and at 100,000 papers.
 */
export async function benchRetrieval(): Promise<void> {
  if (!haveEvalData('retrieval', 'beir-scifact/corpus.jsonl', 'beir-scifact/queries.jsonl', 'beir-scifact/qrels/test.tsv', 'beir-scifact/qrels/train.tsv')) return;
  const memory = new PeakMemory();
  const papers = (await readJsonLines<{ _id: string; title: string; text: string }>('corpus.jsonl')).map(
    (row): Paper => ({ id: row._id, title: row.title, abstract: row.text, authors: [] }),
  );
  const queries = new Map((await readJsonLines<{ _id: string; text: string }>('queries.jsonl')).map((q) => [q._id, q.text]));

  console.log(`retrieval: BEIR SciFact (${papers.length} abstracts, ${queries.size} claims)`);
  const { index, ms: buildMs } = build(papers);
  for (const split of ['test', 'train'] as const) {
    const judgements = await readQrels(split);
    const quality = evaluate(index, queries, judgements);
    const note = split === 'test' ? 'BM25 (Anserini) 0.679' : 'the split the settings were tuned on';
    const label = `  lexical, ${split} (${judgements.size} claims)`.padEnd(34);
    console.log(`${label}nDCG@10 ${quality.ndcg.toFixed(3)}  recall@100 ${quality.recall.toFixed(3)}   ${note}`);
  }
  const modelDir = process.env.ATTEST_EMBED_MODEL?.trim();
  let dimension = DEFAULT_DIMENSION;
  if (!modelDir) console.log('  dense/hybrid: no encoder (set ATTEST_EMBED_MODEL)');
  else dimension = await benchEncoder(modelDir, index, papers, queries, await readQrels('test'));

  const claims = [...queries.values()];
  reportCost(papers.length, buildMs, index, claims, papers);
  await reportDenseAndStore(papers, dimension);
  const large = grow(papers, LARGE_CORPUS);
  const grown = build(large);
  reportCost(large.length, grown.ms, grown.index, claims, large);
  await reportDenseAndStore(large, dimension);
  console.log(`  peak memory (RSS)               ${memory.stop()}`);
}

/** Dense and hybrid quality on the test claims, and the encoder's cost; returns its dimension. */
async function benchEncoder(dir: string, lexical: LexicalIndex, papers: readonly Paper[], queries: ReadonlyMap<string, string>, judgements: Judgements): Promise<number> {
  const encoder = await OnnxEmbedder.load(path.resolve(dir));
  try {
    let start = performance.now();
    // As the library embeds papers (library.ts): title and abstract.
    const vectors = await encoder.embed(papers.map((p) => `${p.title} ${p.abstract ?? ''}`.trim()), 'passage');
    const embedMs = performance.now() - start;
    const dense = new DenseIndex(vectors[0].length);
    papers.forEach((paper, at) => dense.add(paper.id, vectors[at]));
    const claims = [...judgements.keys()].map((id) => queries.get(id) ?? '');
    const queryVectors = await encoder.embed(claims, 'query');
    const indexes = { lexical, dense };
    console.log(`  encoder ${path.basename(dir)} (${dense.dimension} dimensions): embeds ${Math.round((papers.length / embedMs) * 1000)} papers/s`);
    for (const mode of ['dense', 'hybrid'] as const) {
      const quality = evaluateMode(indexes, mode, claims, queryVectors, judgements);
      console.log(`${`  ${mode}, test (${judgements.size} claims)`.padEnd(34)}nDCG@10 ${quality.ndcg.toFixed(3)}  recall@100 ${quality.recall.toFixed(3)}`);
    }
    const latency: number[] = [];
    for (const claim of claims) {
      start = performance.now();
      const [vector] = await encoder.embed([claim], 'query');
      rankPapers(indexes, { text: claim, vector }, 'hybrid', 100);
      latency.push(performance.now() - start);
    }
    console.log(`  hybrid query (embed + search)   p50 ${ms(percentile(latency, 50))}  p95 ${ms(percentile(latency, 95))}`);
    return dense.dimension;
  } finally {
    await encoder.dispose();
  }
}

function evaluateMode(indexes: Indexes, mode: SearchMode, claims: readonly string[], vectors: readonly Float32Array[], judgements: Judgements): { ndcg: number; recall: number } {
  let ndcg = 0;
  let recall = 0;
  [...judgements.values()].forEach((judged, at) => {
    const ranking = rankPapers(indexes, { text: claims[at], vector: vectors[at] }, mode, 100).map((hit) => hit.id);
    ndcg += ndcgAt(ranking, judged, 10);
    recall += recallAt(ranking, judged, 100);
  });
  return { ndcg: ndcg / judgements.size, recall: recall / judgements.size };
}

/**
 * Brute-force dense search, and saving and loading the library with a vector for every paper. The
 * vectors are random: neither cost depends on what they mean, and no encoder embeds 100,000 papers
 * in a benchmark's time.
 */
async function reportDenseAndStore(papers: readonly Paper[], dimension: number): Promise<void> {
  const random = seededRandom(7);
  const vector = (): Float32Array => Float32Array.from({ length: dimension }, () => random() - 0.5);
  const vectors = papers.map(vector);
  const dense = new DenseIndex(dimension);
  papers.forEach((paper, at) => dense.add(paper.id, vectors[at]));
  const search: number[] = [];
  for (let i = 0; i < 100; i++) {
    const query = vector();
    const start = performance.now();
    dense.search(query, 100);
    search.push(performance.now() - start);
  }
  console.log(`${`    dense search, ${dimension}-d, top 100`.padEnd(34)}p50 ${ms(percentile(search, 50))}  p95 ${ms(percentile(search, 95))}   one core, brute force`);

  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-bench-store-'));
  try {
    const { store } = await PaperStore.open(dir);
    let start = performance.now();
    const saving = store.add(papers, { model: 'random', ids: papers.map((p) => p.id), vectors });
    const indexMs = performance.now() - start;
    start = performance.now();
    await saving;
    const saveMs = performance.now() - start;
    const size = (await Promise.all((await fs.readdir(dir)).map((f) => fs.stat(path.join(dir, f))))).reduce((sum, s) => sum + s.size, 0);
    start = performance.now();
    const extra = papers.slice(0, 10).map((p) => ({ ...p, id: `${p.id}-again` }));
    await store.add(extra, { model: 'random', ids: extra.map((p) => p.id), vectors: extra.map(vector) });
    const addMs = performance.now() - start;
    start = performance.now();
    const { store: loaded, messages } = await PaperStore.open(dir);
    const loadMs = performance.now() - start;
    if (messages.length > 0 || loaded.size !== papers.length + extra.length) throw new Error(`the store did not load whole: ${messages.join(' ')}`);
    const seconds = (value: number): string => `${(value / 1000).toFixed(1)} s`;
    console.log(`${`    store, with ${dimension}-d vectors`.padEnd(34)}index ${seconds(indexMs)}, save ${seconds(saveMs)}, ${(size / 1024 / 1024).toFixed(0)} MB on disk`);
    console.log(`${'    store, add 10 papers / reopen'.padEnd(34)}add ${ms(addMs)}, load ${seconds(loadMs)}`);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function build(papers: readonly Paper[]): { index: LexicalIndex; ms: number } {
  const start = performance.now();
  const index = new LexicalIndex();
  for (const paper of papers) index.add(paper);
  return { index, ms: performance.now() - start };
}

function evaluate(index: LexicalIndex, queries: ReadonlyMap<string, string>, judgements: Judgements): { ndcg: number; recall: number } {
  let ndcg = 0;
  let recall = 0;
  for (const [query, judged] of judgements) {
    const ranking = index.search(queries.get(query) ?? '', 100).map((hit) => hit.id);
    ndcg += ndcgAt(ranking, judged, 10);
    recall += recallAt(ranking, judged, 100);
  }
  return { ndcg: ndcg / judgements.size, recall: recall / judgements.size };
}

/** Search alone, and search plus the best sentence of each of the first ten results as Find Evidence shows them. */
function reportCost(size: number, buildMs: number, index: LexicalIndex, claims: readonly string[], papers: readonly Paper[]): void {
  const abstracts = new Map(papers.map((p) => [p.id, p.abstract ?? '']));
  const search: number[] = [];
  const withSentences: number[] = [];
  for (const claim of claims) {
    let start = performance.now();
    index.search(claim, 100);
    search.push(performance.now() - start);
    start = performance.now();
    for (const hit of index.search(claim, 10)) index.bestSentence(claim, abstracts.get(hit.id) ?? '');
    withSentences.push(performance.now() - start);
  }
  const latency = (times: readonly number[]): string => `p50 ${ms(percentile(times, 50))}  p95 ${ms(percentile(times, 95))}`;
  console.log(`  at ${size.toLocaleString('en')} papers, ${claims.length} claims`);
  console.log(`    build                         ${(buildMs / 1000).toFixed(1)} s, ${Math.round((size / buildMs) * 1000)} papers/s`);
  console.log(`    search, top 100               ${latency(search)}   target p95 < 100 ms`);
  console.log(`    top 10 with best sentences    ${latency(withSentences)}`);
}

/**
 * A larger collection of the same kind: new papers whose abstracts recombine sentences of the real
 * ones (and whose titles are real titles), so term statistics stay those of biomedical abstracts.
 * Seeded, so every run searches the same collection.
 */
function grow(papers: readonly Paper[], size: number): Paper[] {
  const sentences = papers.flatMap(({ abstract = '' }) => abstractSentences(abstract).map(({ start, end }) => abstract.slice(start, end)));
  const random = seededRandom(20_240_601);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const grown = [...papers];
  while (grown.length < size) {
    const length = 4 + Math.floor(random() * 8);
    const abstract = Array.from({ length }, () => pick(sentences)).join(' ');
    grown.push({ id: `synthetic-${grown.length}`, title: pick(papers).title, abstract, authors: [] });
  }
  return grown;
}

/** mulberry32: a tiny generator whose sequence depends only on the seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function readJsonLines<T>(file: string): Promise<T[]> {
  const text = await fs.readFile(path.join(SCIFACT, file), 'utf8');
  return text.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as T);
}

/** BEIR's qrels: a header, then `query-id  corpus-id  score` per line. */
async function readQrels(split: 'train' | 'test'): Promise<Judgements> {
  const text = await fs.readFile(path.join(SCIFACT, 'qrels', `${split}.tsv`), 'utf8');
  const judgements: Judgements = new Map();
  for (const line of text.split('\n').slice(1)) {
    const [query, doc, grade] = line.trim().split('\t');
    if (!query || !doc) continue;
    const judged = judgements.get(query) ?? new Map<string, number>();
    judged.set(doc, Number(grade));
    judgements.set(query, judged);
  }
  return judgements;
}
