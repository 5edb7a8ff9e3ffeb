/**
 * The Solr backend at an institution's scale: a collection grown to 100,000, 300,000 and 1,000,000
 * generated papers, and at each size the time a search takes, in the process that has the collection
 * open (p50/p95 over BEIR SciFact's test claims, by words, by meaning, both, and both then reranked:
 * where the time goes), and as the writer meets it, a whole `attest search --solr` (a fresh process:
 * start-up, the encoder loaded, the claim embedded, the search).
 *
 * The papers are recombinedPapers.ts's (a SciFact title and seven sentences of its abstracts); each
 * one's vector is its title's abstract's bge-small-en-v1.5 vector moved at random (cosine about 0.9 to
 * it) and normalised, so the vectors cluster as real abstracts' do, around the topics of the queries,
 * without embedding a million texts. The collection is 2 shards × 1 replica (a million papers indexed
 * twice would double what is measured: the indexing, not the search), and is kept between runs as
 * `bench_library`, grown by `attest index add`'s own path (addToCollection): delete it to measure the
 * indexing again. Needs a running SolrCloud and the cached SciFact embeddings, like solr.bench.ts;
 * ATTEST_SOLR_SCALE_MAX stops at another size (a shared machine indexes a million papers in an hour
 * or more).
 */
import { execFileSync } from 'node:child_process';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Encoder } from '../src/core/index/library';
import { passageText } from '../src/core/index/passages';
import { SolrClient } from '../src/core/index/solr/client';
import { addToCollection, collectionInfo, initCollection } from '../src/core/index/solr/collection';
import { SolrLibrary } from '../src/core/index/solr/library';
import { builtInRerankerFolder } from '../src/core/models/builtIn';
import { OnnxReranker } from '../src/core/models/reranker';
import type { SearchMode } from '../src/core/evidence';
import type { Paper } from '../src/core/papers/paper';
import { encoderCache, isLaidOut, REGISTRY_ENCODERS, REGISTRY_INPUT_TOKENS } from './encoders/registry';
import { EVAL_DATA } from './evalData';
import { recombinedPapers } from './recombinedPapers';
import { solrBenchInputs } from './solr.bench';
import { ms, percentile } from './stats';

const ENCODER = 'bge-small-en-v1.5-int8';
const COLLECTION = 'bench_library';
const SIZES = [100_000, 300_000, 1_000_000];
/** Papers generated, vectors made and handed to addToCollection at a time. */
const CHUNK = 5_000;
/** The spread of each coordinate of the random move: cosine about 0.9 between a paper and its title's abstract. */
const SPREAD = 0.025;
const COLD_RUNS = 5;
/** BEIR SciFact test claims searched at each size, and reranked (the reranker's time does not grow with the collection). */
const CLAIMS = 100;
const RERANKED = 30;
const CLI = path.join(__dirname, '..', '..', 'bin', 'attest.js');

export async function benchSolrScale(): Promise<void> {
  const inputs = await solrBenchInputs('the Solr backend at scale');
  if (inputs === undefined) return;
  const { url, scifact, passages, queries } = inputs;
  const titleVector = new Map<string, Float32Array>();
  scifact.papers.forEach((paper, at) => titleVector.has(paper.title) || titleVector.set(paper.title, passages[at]));
  const paper = recombinedPapers(path.join(EVAL_DATA, 'beir-scifact/corpus.jsonl'));
  const queryVector = new Map<string, Float32Array>();
  scifact.queries.forEach((text, at) => queryVector.set(text, queries[at]));

  const solr = new SolrClient({ url, collection: COLLECTION, timeoutMs: 120_000 });
  await initCollection(solr, {
    encoder: { model: ENCODER, dimension: passages[0].length },
    shards: 2,
    replicas: 1,
    configDir: path.resolve(__dirname, '../../solr/configset/conf'),
  });
  const info = await collectionInfo(solr);
  if (info === undefined) throw new Error('the bench collection has no meta document');
  const largest = Number(process.env.ATTEST_SOLR_SCALE_MAX ?? SIZES[SIZES.length - 1]);
  const reranker = await OnnxReranker.load((await builtInRerankerFolder()) as string, { threads: 2 });
  const claims = [...scifact.claims.values()].slice(0, CLAIMS);
  try {
    const kept = (await solr.select({ q: 'kind:paper', rows: '0' })).numFound;
    const sizes = [...SIZES.filter((size) => size < largest), largest];
    // A kept collection does not shrink: the sizes it has outgrown are not measured again.
    const outgrown = sizes.filter((size) => size < kept);
    if (outgrown.length > 0)
      console.log(`  ${COLLECTION} holds ${kept.toLocaleString('en')} papers already: not measured at ${outgrown.map((size) => size.toLocaleString('en')).join(', ')}`);
    for (const size of sizes.filter((size) => size >= kept)) {
      const held = (await solr.select({ q: 'kind:paper', rows: '0' })).numFound;
      if (held < size) await grow(solr, info, held, size, paper, titleVector);
      console.log(`  ${size.toLocaleString('en')} papers (2 shards × 1 replica; load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores):`);
      for (const mode of ['lexical', 'dense', 'hybrid'] as SearchMode[]) {
        await timeSearches(`${mode}`, await SolrLibrary.open({ url, collection: COLLECTION }, { encoder: givenVectors(queryVector), mode }), claims);
      }
      const reranked = await SolrLibrary.open({ url, collection: COLLECTION }, { encoder: givenVectors(queryVector), reranker: async () => reranker });
      await timeSearches('hybrid + reranker', reranked, claims.slice(0, RERANKED));
      await coldCli(url, claims[0]);
    }
  } finally {
    await reranker.dispose();
  }
}

/** Adds generated papers `from`…`to` through `attest index add`'s path, printing its rate. */
async function grow(
  solr: SolrClient,
  info: NonNullable<Awaited<ReturnType<typeof collectionInfo>>>,
  from: number,
  to: number,
  paper: (i: number) => Paper,
  titleVector: ReadonlyMap<string, Float32Array>,
): Promise<void> {
  const started = performance.now();
  for (let start = from; start < to; start += CHUNK) {
    const papers = Array.from({ length: Math.min(CHUNK, to - start) }, (_, at) => paper(start + at));
    const vectors = new Map(papers.map((each, at) => [passageText(each), moved(titleVector.get(each.title) as Float32Array, start + at)]));
    await addToCollection(solr, info, givenVectors(vectors), papers);
    if ((start - from) % 50_000 === 0) process.stdout.write(`    indexed ${(start + papers.length).toLocaleString('en')}\r`);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `  grew ${from.toLocaleString('en')} → ${to.toLocaleString('en')} papers: ${((to - from) / seconds).toFixed(0)} papers/s (vectors given), ${(seconds / 60).toFixed(1)} min`,
  );
}

/** The time of each search of `claims`, p50 and p95. */
async function timeSearches(label: string, library: SolrLibrary, claims: readonly string[]): Promise<void> {
  const times: number[] = [];
  for (const text of claims) {
    const started = performance.now();
    await library.find({ text, limit: 10 });
    times.push(performance.now() - started);
  }
  console.log(`    ${label.padEnd(18)} p50 ${ms(percentile(times, 50))}  p95 ${ms(percentile(times, 95))}  (${claims.length} claims, query vector given)`);
}

/** A whole `attest search --solr` with the real encoder, as a writer runs it: the median of a few fresh processes. */
async function coldCli(url: string, claim: string): Promise<void> {
  const encoder = REGISTRY_ENCODERS.find((each) => each.name === ENCODER);
  if (encoder === undefined || !(await isLaidOut(encoder, encoderCache()))) {
    console.log(`    attest search --solr: skipped, ${ENCODER} not fetched (npm run models:fetch)`);
    return;
  }
  const times: number[] = [];
  for (let run = 0; run < COLD_RUNS; run++) {
    const started = performance.now();
    execFileSync(
      process.execPath,
      // The collection holds vectors of whole abstracts (the cached SciFact embeddings, at bge's own length), which the
      // CLI's default cut input would refuse as another encoder's.
      [
        CLI,
        'search',
        '--solr',
        url,
        '--collection',
        COLLECTION,
        '--embed-model',
        path.join(encoderCache(), encoder.name),
        '--embed-tokens',
        String(REGISTRY_INPUT_TOKENS),
        '--rerank',
        '--query',
        claim,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    times.push(performance.now() - started);
  }
  console.log(`    attest search --solr --rerank, a fresh process: median ${ms(percentile(times, 50))} of ${COLD_RUNS} (start-up, encoder, reranker, search)`);
}

/** An encoder whose vectors are given by text: the bench measures the collection, not the encoder. */
function givenVectors(vectors: ReadonlyMap<string, Float32Array>): Encoder {
  return {
    model: ENCODER,
    embedder: {
      embed: async (texts) =>
        texts.map((text) => {
          const vector = vectors.get(text);
          if (vector === undefined) throw new Error(`no vector for ${text.slice(0, 40)}`);
          return vector;
        }),
      dispose: async () => undefined,
    },
  };
}

/** `base` moved by a random step seeded with `seed`, normalised. */
function moved(base: Float32Array, seed: number): Float32Array {
  let state = seed + 1;
  const uniform = (): number => {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    return state / 4_294_967_296;
  };
  const out = new Float32Array(base.length);
  let norm = 0;
  for (let at = 0; at < base.length; at++) {
    // The sum of three uniforms, centred: close enough to a normal step for a direction.
    out[at] = base[at] + SPREAD * 2 * (uniform() + uniform() + uniform() - 1.5);
    norm += out[at] * out[at];
  }
  norm = Math.sqrt(norm);
  for (let at = 0; at < base.length; at++) out[at] /= norm;
  return out;
}
