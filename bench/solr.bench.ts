/**
 * The Solr backend against the local library on BEIR SciFact's test claims: Find Evidence's final
 * ranking (hybrid, then the built-in reranker) from each, its nDCG@10, and the time a search takes
 * through Solr. Needs a running SolrCloud (`npm run solr:start`, or ATTEST_SOLR_URL) and the cached
 * embeddings of bge-small-en-v1.5-int8 (`node out/bench/encoders/embedScifact.js bge-small-en-v1.5-int8`);
 * skipped, saying so, without either. The collection is kept between runs, as `bench_scifact`.
 */
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PaperLibrary, type Encoder } from '../src/core/index/library';
import { SolrClient, type SolrTarget } from '../src/core/index/solr/client';
import { addToCollection, collectionInfo, initCollection } from '../src/core/index/solr/collection';
import { SolrLibrary } from '../src/core/index/solr/library';
import { builtInRerankerFolder } from '../src/core/models/builtIn';
import { OnnxReranker, type Reranker } from '../src/core/models/reranker';
import { cachedEmbeddings } from './encoders/embeddings';
import { encoderCache } from './encoders/registry';
import { scifactTexts } from './encoders/scifact';
import { haveEvalData } from './evalData';
import { ndcgAt } from './metrics';
import { readQrels } from './retrieval.bench';
import { ms, percentile, time } from './stats';

const ENCODER = 'bge-small-en-v1.5-int8';
const COLLECTION = 'bench_scifact';

export async function benchSolr(): Promise<void> {
  const inputs = await solrBenchInputs('the Solr backend', 'beir-scifact/qrels/test.tsv');
  if (inputs === undefined) return;
  const { url, scifact, passages, queries } = inputs;
  // The vectors the encoder made, looked up by text: both backends get the same ones, and the bench measures retrieval, not the encoder.
  const vectors = new Map<string, Float32Array>();
  scifact.passages.forEach((text, at) => vectors.set(text, passages[at]));
  scifact.queries.forEach((text, at) => vectors.set(text, queries[at]));
  const encoder: Encoder = {
    model: ENCODER,
    embedder: {
      embed: async (texts) =>
        texts.map((text) => {
          const vector = vectors.get(text);
          if (vector === undefined) throw new Error(`no cached vector for ${text.slice(0, 40)}`);
          return vector;
        }),
      dispose: async () => undefined,
    },
  };

  const target: SolrTarget = { url, collection: COLLECTION };
  const solr = new SolrClient(target);
  const { ms: indexMs, value: sent } = await time(async () => {
    await initCollection(solr, {
      encoder: { model: ENCODER, dimension: passages[0].length },
      shards: 2,
      replicas: 2,
      configDir: path.resolve(__dirname, '../../solr/configset/conf'),
    });
    const info = await collectionInfo(solr);
    return info && (await addToCollection(solr, info, encoder, scifact.papers)).sent;
  });
  if (sent === undefined) throw new Error('the bench collection has no meta document');
  console.log(
    `  indexing ${scifact.papers.length} papers in a 2-node SolrCloud, 2 shards × 2 replicas: ${sent > 0 ? `${((sent / indexMs) * 1000).toFixed(0)} papers/s (vectors given)` : 'kept from an earlier run'}`,
  );

  const builtIn = await builtInRerankerFolder();
  const reranker = builtIn === undefined ? undefined : remembered(await OnnxReranker.load(builtIn, { threads: 2 }));
  const { library, remove } = await localLibrary(encoder, scifact.papers, reranker);
  try {
    const fromSolr = await SolrLibrary.open(target, { encoder, reranker: reranker && (async () => reranker) });
    const judgements = await readQrels('test');
    let local = 0;
    let remote = 0;
    const times: number[] = [];
    for (const [id, judged] of judgements) {
      const text = scifact.claims.get(id) ?? '';
      local += ndcgAt(
        (await library.find({ text, limit: 10 })).results.map((r) => r.paper.id),
        judged,
        10,
      );
      const { ms: searchMs, value } = await time(() => fromSolr.find({ text, limit: 10 }));
      times.push(searchMs);
      remote += ndcgAt(
        value.results.map((r) => r.paper.id),
        judged,
        10,
      );
    }
    const ranking = reranker ? 'hybrid + reranker' : 'hybrid (no reranker here)';
    console.log(`  ${ranking}, ${judgements.size} test claims: nDCG@10 local library ${(local / judgements.size).toFixed(3)}, Solr ${(remote / judgements.size).toFixed(3)}`);
    console.log(`  a search through Solr (query vector given, reranker scores shared with the local run): p50 ${ms(percentile(times, 50))}  p95 ${ms(percentile(times, 95))}`);
  } finally {
    await remove();
    await reranker?.dispose();
  }
}

/** What both Solr benches need: a running cluster, BEIR SciFact, and its cached vectors; undefined, saying why, without one. */
export async function solrBenchInputs(
  part: string,
  ...files: string[]
): Promise<{ url: string; scifact: Awaited<ReturnType<typeof scifactTexts>>; passages: Float32Array[]; queries: Float32Array[] } | undefined> {
  if (!haveEvalData(part, 'beir-scifact/corpus.jsonl', 'beir-scifact/queries.jsonl', ...files)) return undefined;
  const url = clusterUrl();
  if (url === undefined) {
    console.log(`  ${part}: skipped, no SolrCloud running (npm run solr:start, or ATTEST_SOLR_URL)`);
    return undefined;
  }
  const scifact = await scifactTexts();
  const dir = path.join(encoderCache(), ENCODER);
  const passages = await cachedEmbeddings(dir, scifact.passages, 'passage', encoderCache(), { onlyIfCached: true });
  const queries = passages && (await cachedEmbeddings(dir, scifact.queries, 'query', encoderCache(), { onlyIfCached: true }));
  if (passages === undefined || queries === undefined) {
    console.log(`  ${part}: skipped, SciFact not embedded with ${ENCODER} yet (node out/bench/encoders/embedScifact.js ${ENCODER})`);
    return undefined;
  }
  return { url, scifact, passages, queries };
}

/** The first node of the cluster `npm run solr:start` runs, or ATTEST_SOLR_URL. */
export function clusterUrl(): string | undefined {
  if (process.env.ATTEST_SOLR_URL) return process.env.ATTEST_SOLR_URL;
  try {
    const state = JSON.parse(readFileSync(path.resolve(__dirname, '../../build/solr/state.json'), 'utf8')) as { urls?: unknown };
    return Array.isArray(state.urls) && typeof state.urls[0] === 'string' ? state.urls[0] : undefined;
  } catch {
    return undefined;
  }
}

async function localLibrary(
  encoder: Encoder,
  papers: Parameters<PaperLibrary['add']>[0],
  reranker: Reranker | undefined,
): Promise<{ library: PaperLibrary; remove: () => Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-bench-solr-'));
  const remove = (): Promise<void> => fs.rm(dir, { recursive: true, force: true });
  const { library } = await PaperLibrary.open(dir, { encoder, reranker: reranker && (async () => reranker) });
  await library.add(papers);
  return { library, remove };
}

/** `reranker`, scoring each (claim, passage) once: the two backends mostly rerank the same papers. */
function remembered(reranker: Reranker): Reranker {
  const scores = new Map<string, number>();
  return {
    depth: reranker.depth,
    weight: reranker.weight,
    async score(claim, passages, signal) {
      const fresh = [...new Set(passages.filter((passage) => !scores.has(`${claim}\n${passage}`)))];
      if (fresh.length > 0) (await reranker.score(claim, fresh, signal)).forEach((score, at) => scores.set(`${claim}\n${fresh[at]}`, score));
      return passages.map((passage) => scores.get(`${claim}\n${passage}`) as number);
    },
    dispose: () => reranker.dispose(),
  };
}
