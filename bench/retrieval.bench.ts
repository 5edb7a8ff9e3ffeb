import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DenseIndex } from '../src/core/index/dense';
import { rankPapers, type Indexes } from '../src/core/index/hybrid';
import { abstractSentences } from '../src/core/index/passages';
import { LexicalIndex } from '../src/core/index/lexical';
import { rerank } from '../src/core/index/rerank';
import { PaperStore } from '../src/core/index/store/store';
import { builtInRerankerFolder } from '../src/core/models/builtIn';
import { OnnxEmbedder } from '../src/core/models/embedder';
import { OnnxReranker } from '../src/core/models/reranker';
import type { Paper } from '../src/core/papers/paper';
import { cachedEmbeddings } from './encoders/embeddings';
import { encoderCache, isLaidOut, REGISTRY_ENCODERS } from './encoders/registry';
import { SCIFACT, scifactTexts, type Scifact } from './encoders/scifact';
import { haveEvalData } from './evalData';
import { FUSION_VARIANTS, type FusionVariant } from './fusion';
import { ndcgAt, recallAt } from './metrics';
import { ms, PeakMemory, percentile, seededRandom, time } from './stats';
const LARGE_CORPUS = 100_000;
/** bge-small-en-v1.5 and all-MiniLM-L6-v2 both give 384 dimensions. */
const DEFAULT_DIMENSION = 384;

type Judgements = Map<string, Map<string, number>>;
type Split = 'test' | 'train';

/**
 * Find Evidence's retrieval on BEIR SciFact: lexical quality on the test claims (the settings were
 * tuned on the training claims, printed for comparison), dense and hybrid quality when
 * ATTEST_EMBED_MODEL names a sentence encoder, then the cost of searching and of keeping the library
 * on disk at SciFact's size and at 100,000 papers.
 */
export async function benchRetrieval(): Promise<void> {
  if (!haveEvalData('retrieval', 'beir-scifact/corpus.jsonl', 'beir-scifact/queries.jsonl', 'beir-scifact/qrels/test.tsv', 'beir-scifact/qrels/train.tsv')) return;
  const memory = new PeakMemory();
  const { scifact, index, buildMs, dimension } = await benchRetrievalQuality();
  const { papers, claims: queries } = scifact;
  const claims = [...queries.values()];
  reportCost(papers.length, buildMs, index, claims, papers);
  await reportDenseAndStore(papers, dimension);
  const large = grow(papers, LARGE_CORPUS);
  const grown = build(large);
  reportCost(large.length, grown.ms, grown.index, claims, large);
  await reportDenseAndStore(large, dimension);
  console.log(`  peak memory (RSS)               ${memory.stop()}`);
}

/** The quality part alone (`node -e "require('./out/bench/retrieval.bench').benchRetrievalQuality()"`), without the costs at 100,000 papers. */
export async function benchRetrievalQuality(): Promise<{ scifact: Scifact; index: LexicalIndex; buildMs: number; dimension: number }> {
  const scifact = await scifactTexts();
  const { papers, claims: queries } = scifact;
  console.log(`retrieval: BEIR SciFact (${papers.length} abstracts, ${queries.size} claims)`);
  const { index, ms: buildMs } = build(papers);
  const judgements = { test: await readQrels('test'), train: await readQrels('train') };
  for (const split of ['test', 'train'] as const) {
    const quality = await evaluateRanker(judgements[split], (id) => index.search(queries.get(id) ?? '', 100));
    const note = split === 'test' ? 'BM25 (Anserini) 0.679' : 'the split the settings were tuned on';
    const label = `  lexical, ${split} (${judgements[split].size} claims)`.padEnd(34);
    console.log(`${label}nDCG@10 ${quality.ndcg.toFixed(3)}  recall@100 ${quality.recall.toFixed(3)}   ${note}`);
  }
  const dimension = (await benchEncoders(index, scifact, judgements)) ?? DEFAULT_DIMENSION;
  return { scifact, index, buildMs, dimension };
}

/**
 * Each encoder models:fetch lays out (and ATTEST_EMBED_MODEL's, when it is another): its encoding
 * throughput on a fixed sample, then, from its embeddings of SciFact (cached, see
 * encoders/embeddings.ts), dense and hybrid quality, the fusion variants tuned on the training claims,
 * and the latency of a query. Returns the dimension of the last encoder measured.
 */
async function benchEncoders(lexical: LexicalIndex, scifact: Scifact, judgements: Record<Split, Judgements>): Promise<number | undefined> {
  const cache = encoderCache();
  const dirs = new Map<string, string>();
  for (const encoder of REGISTRY_ENCODERS) {
    if (await isLaidOut(encoder, cache)) dirs.set(encoder.name, path.join(cache, encoder.name));
    else console.log(`  ${encoder.name}: skipped, not fetched into ${cache} (npm run models:fetch)`);
  }
  const extra = process.env.ATTEST_EMBED_MODEL?.trim();
  if (extra && ![...dirs.values()].includes(path.resolve(extra))) dirs.set(path.basename(path.resolve(extra)), path.resolve(extra));
  let dimension: number | undefined;
  for (const [name, dir] of dirs) dimension = (await benchEncoder(name, dir, cache, lexical, scifact, judgements)) ?? dimension;
  return dimension;
}

const THROUGHPUT_SAMPLE = 48;
const LATENCY_CLAIMS = 50;

async function benchEncoder(name: string, dir: string, cache: string, lexical: LexicalIndex, scifact: Scifact, judgements: Record<Split, Judgements>): Promise<number | undefined> {
  const encoder = await OnnxEmbedder.load(dir, { threads: 2 });
  try {
    // Every hundredth abstract: the sample's lengths are spread as the collection's are.
    const sample = scifact.passages.filter((_, at) => at % 100 === 0).slice(0, THROUGHPUT_SAMPLE);
    const { ms: sampleMs } = await time(() => encoder.embed(sample, 'passage'));
    const rate = (sample.length / sampleMs) * 1000;
    console.log(`  ${name}: encodes ${rate.toFixed(1)} passages/s (title + abstract, 2 threads)`);
    const embedded = await cachedEmbeddingsIfPresent(dir, scifact, cache);
    if (embedded === undefined) {
      const minutes = Math.ceil(scifact.passages.length / rate / 60);
      console.log(`    quality: not embedded yet; node out/bench/encoders/embedScifact.js ${name} (about ${minutes} min at that rate)`);
      return undefined;
    }
    const dense = new DenseIndex(embedded.passages[0].length);
    scifact.papers.forEach((paper, at) => dense.add(paper.id, embedded.passages[at]));
    const queryVector = new Map([...scifact.claims.keys()].map((id, at) => [id, embedded.queries[at]]));
    const indexes = { lexical, dense };
    for (const mode of ['dense', 'hybrid'] as const) {
      for (const split of ['test', 'train'] as const) {
        const quality = await evaluateRanker(judgements[split], (id) => rankPapers(indexes, { text: scifact.claims.get(id) ?? '', vector: queryVector.get(id) }, mode, 100));
        console.log(
          `${`    ${mode}, ${split}`.padEnd(34)}nDCG@10 ${quality.ndcg.toFixed(3)}  recall@100 ${quality.recall.toFixed(3)}${mode === 'hybrid' ? '   as shipped (hybrid.ts)' : ''}`,
        );
      }
    }
    await reportFusionVariants(indexes, scifact.claims, queryVector, judgements);
    // The reranker learnt to reorder the default encoder's hybrid ranking.
    if (name === 'bge-small-en-v1.5-int8') await reportReranker(indexes, scifact, queryVector, judgements);

    const latency: number[] = [];
    for (const id of [...judgements.test.keys()].slice(0, LATENCY_CLAIMS)) {
      const claim = scifact.claims.get(id) ?? '';
      const { ms: queryMs } = await time(async () => {
        const [vector] = await encoder.embed([claim], 'query');
        await rankPapers(indexes, { text: claim, vector }, 'hybrid', 100);
      });
      latency.push(queryMs);
    }
    console.log(`${'    hybrid query (embed + search)'.padEnd(34)}p50 ${ms(percentile(latency, 50))}  p95 ${ms(percentile(latency, 95))}   ${LATENCY_CLAIMS} test claims`);
    return dense.dimension;
  } finally {
    await encoder.dispose();
  }
}

/** The encoder's vectors of every abstract and claim when the cache has them (passages first: they take long). */
async function cachedEmbeddingsIfPresent(dir: string, scifact: Scifact, cache: string): Promise<{ passages: Float32Array[]; queries: Float32Array[] } | undefined> {
  const passages = await cachedEmbeddings(dir, scifact.passages, 'passage', cache, { onlyIfCached: true });
  if (passages === undefined) return undefined;
  const queries = await cachedEmbeddings(dir, scifact.queries, 'query', cache);
  return queries && { passages, queries };
}

/** Every fusion variant on the training claims, the best of each kind then on the test claims. */
async function reportFusionVariants(
  indexes: Required<Indexes>,
  claims: ReadonlyMap<string, string>,
  vectors: ReadonlyMap<string, Float32Array | undefined>,
  judgements: Record<Split, Judgements>,
): Promise<void> {
  const run = (variant: FusionVariant, judged: Judgements): Promise<Quality> =>
    evaluateRanker(judged, async (id) => {
      const vector = vectors.get(id);
      if (vector === undefined) return [];
      return variant.fuse(indexes.lexical.search(claims.get(id) ?? '', variant.depth), await indexes.dense.search(vector, variant.depth)).slice(0, 100);
    });
  const trained: { variant: FusionVariant; train: Quality }[] = [];
  for (const variant of FUSION_VARIANTS) trained.push({ variant, train: await run(variant, judgements.train) });
  console.log('    fusion variants, nDCG@10 on the training claims (recall@100):');
  for (const { variant, train } of trained) console.log(`      ${variant.name.padEnd(48)}${train.ndcg.toFixed(3)} (${train.recall.toFixed(3)})`);
  const best = trained.reduce((a, b) => (b.train.ndcg > a.train.ndcg ? b : a));
  const test = await run(best.variant, judgements.test);
  console.log(`${'    best on train, on test'.padEnd(34)}nDCG@10 ${test.ndcg.toFixed(3)}  recall@100 ${test.recall.toFixed(3)}   ${best.variant.name}`);
}

/**
 * The hybrid ranking reordered by the built-in reranker, or by the one ATTEST_RERANK_MODEL names
 * (training/attest_training/rerank.py), on the test claims, and the time it takes to reorder one
 * claim's papers.
 */
async function reportReranker(
  indexes: Required<Indexes>,
  scifact: Scifact,
  vectors: ReadonlyMap<string, Float32Array | undefined>,
  judgements: Record<Split, Judgements>,
): Promise<void> {
  const dir = process.env.ATTEST_RERANK_MODEL?.trim() ? path.resolve(process.env.ATTEST_RERANK_MODEL.trim()) : await builtInRerankerFolder();
  if (dir === undefined) {
    console.log('    reranker: skipped (no models/attest-rerank here and ATTEST_RERANK_MODEL unset)');
    return;
  }
  const reranker = await OnnxReranker.load(dir, { threads: 2 });
  const papers = new Map(scifact.papers.map((paper) => [paper.id, paper]));
  const times: number[] = [];
  try {
    // The test claims only: its training claims taught it, and scoring them all takes minutes.
    const quality = await evaluateRanker(judgements.test, async (id) => {
      const claim = scifact.claims.get(id) ?? '';
      const ranked = (await rankPapers(indexes, { text: claim, vector: vectors.get(id) }, 'hybrid', 100)).map((r) => ({ ...r, paper: papers.get(r.id) as Paper }));
      const { value, ms: rerankMs } = await time(() => rerank(reranker, claim, ranked));
      times.push(rerankMs);
      return value.map((r) => ({ id: r.paper.id }));
    });
    console.log(`${'    hybrid + reranker, test'.padEnd(34)}nDCG@10 ${quality.ndcg.toFixed(3)}  recall@100 ${quality.recall.toFixed(3)}`);
    console.log(
      `${`    reranking ${reranker.depth} papers`.padEnd(34)}p50 ${ms(percentile(times, 50))}  p95 ${ms(percentile(times, 95))}   ${path.basename(dir)}, weight ${reranker.weight}`,
    );
  } finally {
    await reranker.dispose();
  }
}

interface Quality {
  readonly ndcg: number;
  readonly recall: number;
}

type Ranking = readonly { readonly id: string }[];

async function evaluateRanker(judgements: Judgements, rank: (query: string) => Ranking | Promise<Ranking>): Promise<Quality> {
  let ndcg = 0;
  let recall = 0;
  for (const [query, judged] of judgements) {
    const ranking = (await rank(query)).map((hit) => hit.id);
    ndcg += ndcgAt(ranking, judged, 10);
    recall += recallAt(ranking, judged, 100);
  }
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
  const heap = process.memoryUsage().heapUsed;
  const search: number[] = [];
  for (let i = 0; i < 100; i++) {
    const query = vector();
    const start = performance.now();
    await dense.search(query, 100);
    search.push(performance.now() - start);
  }
  console.log(
    `${`    dense search, ${dimension}-d, top 100`.padEnd(34)}p50 ${ms(percentile(search, 50))}  p95 ${ms(percentile(search, 95))}   brute force, ONNX Runtime on 2 threads`,
  );
  console.log(`${'    heap, lexical + dense index'.padEnd(34)}${(heap / 1024 / 1024).toFixed(0)} MB used (the papers, both indexes and their vectors)`);

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
export function grow(papers: readonly Paper[], size: number): Paper[] {
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

/** BEIR's qrels: a header, then `query-id  corpus-id  score` per line. */
export async function readQrels(split: Split): Promise<Judgements> {
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
