/**
 * The embedding budget (issue 38): what each encoder, input length, batching and thread count costs
 * in `attest index add` (abstracts a second) and gains in Find Evidence's final ranking (hybrid +
 * Attest's reranker, nDCG@10 on BEIR SciFact's test claims, the whole corpus embedded).
 *
 *   node out/bench/embeddingBudget.bench.js throughput [--every N] [WAY…]    the costs, on a sample of abstracts (every way, or
 *                                                                ENCODER@TOKENS[/sorted|/1|/workers]: sorted batches, one thread,
 *                                                                two one-thread workers side by side)
 *   node out/bench/embeddingBudget.bench.js quality [VARIANT…]   the rankings (of each variant, or those named
 *                                                                as ENCODER@TOKENS), embedding what the cache lacks
 *
 * `npm run bench` prints both, the rankings only for the variants whose vectors are cached (embedding
 * SciFact takes 3–20 minutes a variant on two cores). A variant is an encoder fetched by
 * `npm run models:fetch` cut to its first N tokens: a copy of its folder whose
 * sentence_bert_config.json says max_seq_length N, the way sentence-transformers sets it.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DenseIndex } from '../src/core/index/dense';
import { rankPapers } from '../src/core/index/hybrid';
import { LexicalIndex } from '../src/core/index/lexical';
import { rerank } from '../src/core/index/rerank';
import { builtInRerankerFolder } from '../src/core/models/builtIn';
import { OnnxEmbedder } from '../src/core/models/embedder';
import { LanesEmbedder } from '../src/core/models/pool';
import { readEncoderConfig } from '../src/core/models/encoderConfig';
import { readModelFolder } from '../src/core/models/folder';
import { contentDigest } from '../src/core/models/identity';
import { inBatches } from '../src/core/models/options';
import { OnnxReranker, type Reranker } from '../src/core/models/reranker';
import { OnnxSession } from '../src/core/models/session';
import { TextTokenizer } from '../src/core/models/tokenizer';
import type { Paper } from '../src/core/papers/paper';
import { cachedEmbeddings } from './encoders/embeddings';
import { encoderCache, isLaidOut, REGISTRY_ENCODERS } from './encoders/registry';
import { scifactTexts, type Scifact } from './encoders/scifact';
import { haveEvalData } from './evalData';
import { ndcgAt, recallAt } from './metrics';
import { readQrels } from './retrieval.bench';

/** The int8 graphs: an fp32 graph embeds two to three times slower on these cores for the same vectors' quality. */
const ENCODERS = ['bge-small-en-v1.5-int8', 'e5-small-v2-int8', 'all-MiniLM-L6-v2-int8'] as const;
const LENGTHS = [512, 256, 128] as const;
/** Every tenth abstract of SciFact (519): lengths spread as the corpus's are, and a few minutes for all variants on a loaded machine. */
const SAMPLE_EVERY = 10;
/** Sorted batches: up to this many texts, and this many tokens with the padding. */
const SORTED_BATCH = { size: 16, tokens: 4096 } as const;

export interface Variant {
  readonly encoder: string;
  /** Tokens of the title and abstract the encoder reads, special tokens included. */
  readonly tokens: number;
}

export const variantName = ({ encoder, tokens }: Variant): string => `${encoder}@${tokens}`;

function parseVariant(text: string): Variant {
  const [encoder, tokens] = text.split('@');
  if (!encoder || !Number(tokens)) throw new Error(`a variant is ENCODER@TOKENS (e.g. all-MiniLM-L6-v2-int8@256), not ${text}`);
  return { encoder, tokens: Number(tokens) };
}

/** Each fetched int8 encoder at each length up to its own limit (all-MiniLM-L6-v2 was trained on 256 tokens). */
async function variants(cache: string): Promise<Variant[]> {
  const found: Variant[] = [];
  for (const encoder of ENCODERS) {
    const registry = REGISTRY_ENCODERS.find((e) => e.name === encoder);
    if (registry === undefined || !(await isLaidOut(registry, cache))) {
      console.log(`  ${encoder}: skipped, not fetched into ${cache} (npm run models:fetch)`);
      continue;
    }
    const own = await nativeLength(path.join(cache, encoder));
    for (const tokens of LENGTHS) if (tokens <= own) found.push({ encoder, tokens });
  }
  return found;
}

async function nativeLength(dir: string): Promise<number> {
  const folder = await readModelFolder(dir);
  return Math.min((await readEncoderConfig(folder)).maxLength ?? folder.config.maxLength, folder.config.maxLength);
}

/**
 * The folder that embeds `variant`: the encoder's own at its own length (so the vectors the retrieval
 * bench cached are reused), else a copy of its small files beside a link to its graph.
 */
async function variantDir(variant: Variant, cache: string): Promise<string> {
  const own = path.join(cache, variant.encoder);
  if (variant.tokens >= (await nativeLength(own))) return own;
  const dir = path.join(cache, 'variants', `${variant.encoder}-${variant.tokens}`);
  if (await fs.stat(path.join(dir, 'sentence_bert_config.json')).catch(() => undefined)) return dir;
  await fs.mkdir(path.join(dir, 'onnx'), { recursive: true });
  for (const name of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'source.json']) await fs.copyFile(path.join(own, name), path.join(dir, name));
  const graph = path.join(dir, 'onnx', 'model_quantized.onnx');
  await fs.rm(graph, { force: true });
  await fs.link(path.join(own, 'onnx', 'model_quantized.onnx'), graph).catch(() => fs.copyFile(path.join(own, 'onnx', 'model_quantized.onnx'), graph));
  await fs.writeFile(path.join(dir, 'sentence_bert_config.json'), `${JSON.stringify({ max_seq_length: variant.tokens })}\n`);
  return dir;
}

const loadAverage = (): string => os.loadavg()[0].toFixed(1);

interface Throughput {
  /** Abstracts a second, by the wall clock. */
  readonly rate: number;
  /** Abstracts a second of this process's CPU time (user + system). */
  readonly perCpuSecond: number;
  readonly load: string;
}

/**
 * Abstracts a second as `index add` embeds them (title + abstract, tokenized, inferred, pooled),
 * after a warm-up; the session's making is left out (once per import). One at a time is what the
 * int8 graphs do today (embedder.ts); sorted batches run the same texts shortest first, batched.
 */
async function measureThroughput(dir: string, sample: readonly string[], threads: number, batching: Batching): Promise<Throughput> {
  const run = batching === 'one at a time' ? await oneAtATime(dir, threads) : batching === 'two workers' ? await twoWorkers(dir) : await sortedBatches(dir, threads);
  try {
    await run.embed(sample.slice(0, 8));
    const cpu = process.cpuUsage();
    const start = performance.now();
    await run.embed(sample);
    const wall = performance.now() - start;
    const used = process.cpuUsage(cpu);
    return { rate: (sample.length / wall) * 1000, perCpuSecond: sample.length / ((used.user + used.system) / 1e6), load: loadAverage() };
  } finally {
    await run.dispose();
  }
}

interface Run {
  embed(texts: readonly string[]): Promise<unknown>;
  dispose(): Promise<void>;
}

async function oneAtATime(dir: string, threads: number): Promise<Run> {
  const embedder = await OnnxEmbedder.load(dir, { threads });
  return { embed: (texts) => embedder.embed(texts, 'passage'), dispose: () => embedder.dispose() };
}

/** Two one-thread workers side by side (pool.ts's LanesEmbedder), as `index add` embeds. */
async function twoWorkers(dir: string): Promise<Run> {
  const lanes = await LanesEmbedder.start(dir, 2);
  return { embed: (texts) => lanes.embed(texts, 'passage'), dispose: () => lanes.dispose() };
}

/**
 * The embedder's work with the int8 graph batched: tokenized, sorted by length, run in batches padded
 * to their longest. The pooling, a few microseconds a text, is left out.
 */
async function sortedBatches(dir: string, threads: number): Promise<Run> {
  const folder = await readModelFolder(dir);
  const config = await readEncoderConfig(folder);
  const tokenizer = TextTokenizer.fromFolder(folder, config.maxLength);
  const session = await OnnxSession.open(folder.modelFile, { threads });
  const output = session.outputName('last_hidden_state');
  return {
    embed: async (texts) => {
      const encodings = texts.map((text) => tokenizer.encode(config.passagePrefix + text));
      const order = encodings.map((_, at) => at).sort((a, b) => encodings[a].ids.length - encodings[b].ids.length);
      for (const batch of inBatches(order, SORTED_BATCH.size, { length: (at) => encodings[at].ids.length, most: SORTED_BATCH.tokens })) {
        await session.run(tokenizer.batch(batch.map((at) => encodings[at])), output);
      }
    },
    dispose: () => session.release(),
  };
}

type Batching = 'one at a time' | 'sorted batches' | 'two workers';

/** A variant measured one way: `ENCODER@TOKENS`, `…/sorted` for sorted batches, `…/1` for one thread, `…/workers` for two one-thread workers side by side. */
interface Measured {
  readonly variant: Variant;
  readonly batching: Batching;
  readonly threads: number;
}

function parseMeasured(text: string): Measured {
  const [variant, how] = text.split('/');
  const batching: Batching = how === 'sorted' ? 'sorted batches' : how === 'workers' ? 'two workers' : 'one at a time';
  return { variant: parseVariant(variant), batching, threads: how === '1' ? 1 : 2 };
}

/** Every variant one at a time on 2 threads, then for each encoder at its shortest length one thread, and sorted batches. */
async function everyWay(cache: string): Promise<Measured[]> {
  const all = await variants(cache);
  const ways: Measured[] = all.map((variant) => ({ variant, batching: 'one at a time', threads: 2 }));
  for (const encoder of ENCODERS) {
    const shortest = all.filter((v) => v.encoder === encoder).at(-1);
    if (shortest === undefined) continue;
    ways.push(
      { variant: shortest, batching: 'one at a time', threads: 1 },
      { variant: shortest, batching: 'sorted batches', threads: 2 },
      { variant: shortest, batching: 'two workers', threads: 2 },
    );
  }
  return ways;
}

/** The costs, of the ways given (by default every way). */
export async function benchEmbeddingThroughput(only?: readonly Measured[], scifact?: Scifact, every = SAMPLE_EVERY): Promise<void> {
  if (!haveEvalData('embedding budget', 'beir-scifact/corpus.jsonl')) return;
  const cache = encoderCache();
  const { passages } = scifact ?? (await scifactTexts());
  const sample = passages.filter((_, at) => at % every === 0);
  console.log(`embedding budget: abstracts a second as index add embeds them, ${sample.length} of BEIR SciFact's (every ${every}th), this machine's ${os.cpus().length} cores`);
  console.log(`  ${'variant'.padEnd(30)}${'batching'.padEnd(16)}threads  wall /s   per CPU-s  load`);
  for (const { variant, batching, threads } of only ?? (await everyWay(cache))) {
    const t = await measureThroughput(await variantDir(variant, cache), sample, threads, batching);
    console.log(
      `  ${variantName(variant).padEnd(30)}${batching.padEnd(16)}${String(threads).padEnd(9)}${t.rate.toFixed(1).padStart(6)}   ${t.perCpuSecond.toFixed(1).padStart(8)}  ${t.load}`,
    );
  }
}

type Judgements = Map<string, Map<string, number>>;

/** The corpus is embedded for its vectors, not timed: one thread wastes nothing waiting for the other on a loaded machine. */
const EMBEDDING_THREADS = 1;

/**
 * Find Evidence's final ranking with each variant's vectors: the hybrid ranking's first 100, the
 * reranker's depth of them reordered. Without `embed`, only the variants whose vectors are cached.
 * The reranker's scores depend on the claim and the paper, not on the encoder: they are kept on disk
 * and scored once for all variants.
 */
export async function benchEmbeddingQuality(embed: boolean, only?: readonly Variant[], given?: Scifact): Promise<void> {
  if (!haveEvalData('embedding budget, rankings', 'beir-scifact/corpus.jsonl', 'beir-scifact/queries.jsonl', 'beir-scifact/qrels/test.tsv')) return;
  const cache = encoderCache();
  const rerankerDir = await builtInRerankerFolder();
  if (rerankerDir === undefined) {
    console.log('  embedding budget, rankings: skipped (no models/attest-rerank here)');
    return;
  }
  const scifact = given ?? (await scifactTexts());
  const judged = await readQrels('test');
  const lexical = new LexicalIndex();
  for (const paper of scifact.papers) lexical.add(paper);
  const reranker = await RememberedScores.open(rerankerDir, cache);
  console.log(`embedding budget: Find Evidence's ranking on BEIR SciFact test (${judged.size} claims, ${scifact.papers.length} abstracts), nDCG@10`);
  console.log(`  ${'variant'.padEnd(30)}hybrid   + reranker  recall@100`);
  try {
    for (const variant of only ?? (await variants(cache))) {
      const dir = await variantDir(variant, cache);
      const vectors = await embeddingsOf(dir, scifact, cache, embed);
      if (vectors === undefined) {
        console.log(`  ${variantName(variant).padEnd(30)}not embedded yet: node out/bench/embeddingBudget.bench.js quality ${variantName(variant)}`);
        continue;
      }
      const quality = await finalRanking(scifact, judged, lexical, vectors, reranker);
      console.log(`  ${variantName(variant).padEnd(30)}${quality.hybrid.toFixed(3)}    ${quality.reranked.toFixed(3)}      ${quality.recall.toFixed(3)}`);
    }
  } finally {
    await reranker.dispose();
  }
}

async function embeddingsOf(dir: string, scifact: Scifact, cache: string, embed: boolean): Promise<{ passages: Float32Array[]; queries: Float32Array[] } | undefined> {
  const onProgress = ({ done, total, rate }: { done: number; total: number; rate: number }): void => {
    if (done % 1024 < 128 || done === total) console.log(`    ${path.basename(dir)}: ${done}/${total}, ${rate.toFixed(1)}/s, load ${loadAverage()}`);
  };
  const passages = await cachedEmbeddings(dir, scifact.passages, 'passage', cache, { onlyIfCached: !embed, onProgress, threads: EMBEDDING_THREADS });
  if (passages === undefined) return undefined;
  const queries = await cachedEmbeddings(dir, scifact.queries, 'query', cache, { onProgress, threads: EMBEDDING_THREADS });
  return queries && { passages, queries };
}

async function finalRanking(
  scifact: Scifact,
  judgements: Judgements,
  lexical: LexicalIndex,
  vectors: { passages: Float32Array[]; queries: Float32Array[] },
  reranker: Reranker,
): Promise<{ hybrid: number; reranked: number; recall: number }> {
  const dense = new DenseIndex(vectors.passages[0].length);
  scifact.papers.forEach((paper, at) => dense.add(paper.id, vectors.passages[at]));
  const claimIds = [...scifact.claims.keys()];
  const papers = new Map(scifact.papers.map((paper) => [paper.id, paper]));
  let hybrid = 0;
  let reranked = 0;
  let recall = 0;
  for (const [id, judged] of judgements) {
    const claim = scifact.claims.get(id) ?? '';
    const ranked = (await rankPapers({ lexical, dense }, { text: claim, vector: vectors.queries[claimIds.indexOf(id)] }, 'hybrid', 100)).map((r) => ({
      ...r,
      paper: papers.get(r.id) as Paper,
    }));
    const order = ranked.map((r) => r.id);
    hybrid += ndcgAt(order, judged, 10);
    recall += recallAt(order, judged, 100);
    reranked += ndcgAt(
      (await rerank(reranker, claim, ranked)).map((r) => r.paper.id),
      judged,
      10,
    );
  }
  return { hybrid: hybrid / judgements.size, reranked: reranked / judgements.size, recall: recall / judgements.size };
}

/** The built-in reranker, its scores of (claim, passage) pairs kept in a file keyed by its content. */
class RememberedScores implements Reranker {
  private added = 0;

  private constructor(
    private readonly reranker: OnnxReranker,
    private readonly scores: Map<string, number>,
    private readonly file: string,
  ) {}

  static async open(dir: string, cache: string): Promise<RememberedScores> {
    const file = path.join(cache, 'embeddings', `rerank-scores-${await contentDigest(dir, { preferQuantized: true })}.json`);
    const kept = await fs
      .readFile(file, 'utf8')
      .then((text) => JSON.parse(text) as [string, number][])
      .catch(() => []);
    return new RememberedScores(await OnnxReranker.load(dir, { threads: 1 }), new Map(kept), file);
  }

  get depth(): number {
    return this.reranker.depth;
  }

  get weight(): number {
    return this.reranker.weight;
  }

  async score(claim: string, passages: readonly string[]): Promise<number[]> {
    const key = (passage: string): string => `${claim}\u0000${passage}`;
    const missing = passages.filter((passage) => !this.scores.has(key(passage)));
    if (missing.length > 0) {
      (await this.reranker.score(claim, missing)).forEach((score, at) => this.scores.set(key(missing[at]), score));
      this.added += missing.length;
      if (this.added >= 500) await this.save();
    }
    return passages.map((passage) => this.scores.get(key(passage)) as number);
  }

  async dispose(): Promise<void> {
    await this.save();
    await this.reranker.dispose();
  }

  private async save(): Promise<void> {
    if (this.added === 0) return;
    this.added = 0;
    await fs.mkdir(path.dirname(this.file), { recursive: true });
    await fs.writeFile(`${this.file}.partial`, JSON.stringify([...this.scores]));
    await fs.rename(`${this.file}.partial`, this.file);
  }
}

/** `npm run bench`'s part: the costs, then the rankings of the variants already embedded. */
export async function benchEmbeddingBudget(): Promise<void> {
  const scifact = haveEvalData('embedding budget', 'beir-scifact/corpus.jsonl', 'beir-scifact/queries.jsonl') ? await scifactTexts() : undefined;
  if (scifact === undefined) return;
  await benchEmbeddingThroughput(undefined, scifact);
  await benchEmbeddingQuality(false, undefined, scifact);
}

if (require.main === module) {
  const [part, ...rest] = process.argv.slice(2);
  // `--every N`: a smaller sample, for a machine too busy to embed 519 abstracts a way in reasonable time.
  const every = rest[0] === '--every' ? Number(rest[1]) : SAMPLE_EVERY;
  const named = rest[0] === '--every' ? rest.slice(2) : rest;
  const done =
    part === 'throughput'
      ? benchEmbeddingThroughput(named.length > 0 ? named.map(parseMeasured) : undefined, undefined, every)
      : part === 'quality'
        ? benchEmbeddingQuality(true, named.length > 0 ? named.map(parseVariant) : undefined)
        : benchEmbeddingBudget();
  done.catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
