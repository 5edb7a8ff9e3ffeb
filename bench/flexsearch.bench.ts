/**
 * Attest's lexical search (BM25, `src/core/index/bm25.ts`) against flexsearch, a widely used
 * JavaScript full-text index, on the same papers and claims: BEIR SciFact's 5,183 abstracts and the
 * same grown to 100,000 (the retrieval bench's `grow`); the 300 test claims. Query latency is each
 * claim's search for its top 10, CPU time in this process; quality is nDCG@10 against the test qrels.
 *
 * flexsearch matches documents that hold every word of a query unless asked to `suggest` the ones that
 * hold some: a claim of twenty words matches almost nothing otherwise, so it is asked to. Its ranking
 * is by where the words occur (its `resolution`), not by how rare they are; it is given the same text
 * per paper as Attest indexes (title and abstract) and its Latin encoder that folds case and accents.
 */
import { Charset, Index } from 'flexsearch';
import { LexicalIndex } from '../src/core/index/lexical';
import type { Paper } from '../src/core/papers/paper';
import { scifactTexts } from './encoders/scifact';
import { haveEvalData } from './evalData';
import { ndcgAt } from './metrics';
import { grow, readQrels } from './retrieval.bench';
import { median, percentile } from './stats';

const LARGE = 100_000;
const TOP = 10;

interface Searcher {
  readonly name: string;
  search(claim: string): readonly string[];
}

function attest(papers: readonly Paper[]): Searcher {
  const index = new LexicalIndex();
  for (const paper of papers) index.add(paper);
  return { name: 'Attest BM25', search: (claim) => index.search(claim, TOP).map((hit) => hit.id) };
}

function flexsearch(papers: readonly Paper[]): Searcher {
  const index = new Index({ tokenize: 'strict', encoder: Charset.LatinBalance });
  // flexsearch keys documents by number; the paper is found again by its place.
  papers.forEach((paper, at) => index.add(at, `${paper.title} ${paper.abstract ?? ''}`));
  return { name: 'flexsearch', search: (claim) => (index.search(claim, { limit: TOP, suggest: true }) as number[]).map((at) => papers[at].id) };
}

/** Build time, query latency (CPU ms: median and p95) and nDCG@10 of each searcher over `papers`. */
async function compare(papers: readonly Paper[], claims: ReadonlyMap<string, string>, judged: Map<string, Map<string, number>>): Promise<void> {
  console.log(`  at ${papers.length.toLocaleString('en')} papers, ${judged.size} test claims, top ${TOP}`);
  for (const make of [attest, flexsearch]) {
    const cpu = process.cpuUsage();
    const searcher = make(papers);
    const built = process.cpuUsage(cpu);
    const latency: number[] = [];
    let ndcg = 0;
    for (const [id, grades] of judged) {
      const claim = claims.get(id) ?? '';
      const before = process.cpuUsage();
      const ranking = searcher.search(claim);
      const used = process.cpuUsage(before);
      latency.push((used.user + used.system) / 1000);
      ndcg += ndcgAt(ranking, grades, 10);
    }
    const buildSeconds = (built.user + built.system) / 1e6;
    console.log(
      `    ${searcher.name.padEnd(14)}query p50 ${median(latency).toFixed(2)} ms  p95 ${percentile(latency, 95).toFixed(2)} ms   nDCG@10 ${(ndcg / judged.size).toFixed(3)}   build ${buildSeconds.toFixed(1)} s CPU`,
    );
  }
}

export async function benchLexicalVsFlexsearch(): Promise<void> {
  if (!haveEvalData('lexical search against flexsearch', 'beir-scifact/corpus.jsonl', 'beir-scifact/queries.jsonl', 'beir-scifact/qrels/test.tsv')) return;
  const { papers, claims } = await scifactTexts();
  const judged = await readQrels('test');
  console.log('lexical search against flexsearch: BEIR SciFact, CPU time per query in this process');
  await compare(papers, claims, judged);
  await compare(grow(papers, LARGE), claims, judged);
}

if (require.main === module) {
  benchLexicalVsFlexsearch().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
