import * as path from 'node:path';
import { analyze } from '../src/core/index/analyzer';
import { LexicalIndex } from '../src/core/index/lexical';
import { OnnxNliModel } from '../src/core/models/nli';
import { BackgroundFrequencies } from '../src/core/verify/background';
import { TermStatistics, tfidfRelevance } from '../src/core/verify/relevance';
import { DEFAULT_THRESHOLDS, judgeSupport, type RelevanceScorer } from '../src/core/verify/support';
import { loadClaims, type Dataset } from './claims';
import { nliQuality } from './nli.bench';
import { ms } from './stats';

import { EVAL_DATA, haveEvalData } from './evalData';

/**
 * Relevance without a model: how well the cited abstract scores against a random uncited one and
 * against the hardest uncited one (the lexical index's top uncited hit for the claim), as ROC AUC;
 * with a model folder in ATTEST_NLI_MODEL, label F1 on SciFact and Citation-Integrity dev and milliseconds per pair.
 */
export async function benchSupport(): Promise<void> {
  if (!haveEvalData('support', 'scifact/claims_dev.jsonl', 'scifact/corpus.jsonl', 'citation-integrity/processed/claims_dev.jsonl', 'citation-integrity/processed/corpus.jsonl'))
    return;
  const datasets = [
    await loadClaims('SciFact dev', 'scifact/claims_dev.jsonl', 'scifact/corpus.jsonl'),
    await loadClaims('Citation-Integrity dev', 'citation-integrity/processed/claims_dev.jsonl', 'citation-integrity/processed/corpus.jsonl'),
  ];
  for (const data of datasets) {
    await relevanceAuc(data, 'corpus idf', undefined);
    await relevanceAuc(data, 'corpus + English idf', BackgroundFrequencies.english());
  }
  await manuscriptFlags();
  const dir = process.env.ATTEST_NLI_MODEL;
  if (!dir) {
    console.log('  NLI: no other model folder (set ATTEST_NLI_MODEL to an ONNX export such as Xenova/nli-deberta-v3-xsmall to compare one with the built-in model)');
    return;
  }
  const model = await OnnxNliModel.load(dir, { preferQuantized: true });
  try {
    for (const data of datasets) await nliQuality(data, model, path.basename(dir));
    await nliSpeed(datasets[0], dir);
  } finally {
    await model.dispose();
  }
}

async function relevanceAuc(data: Dataset, weighting: string, background: BackgroundFrequencies | undefined): Promise<void> {
  const relevance = tfidfRelevance(
    analyze,
    TermStatistics.of(
      [...data.abstracts.values()].map((a) => a.join(' ')),
      analyze,
      background,
    ),
  );
  const index = new LexicalIndex();
  for (const [id, abstract] of data.abstracts) index.add({ id, title: data.titles.get(id) ?? '', abstract: abstract.join(' '), authors: [] });
  const ids = [...data.abstracts.keys()];
  let seed = 42;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const positives: number[] = [];
  const randoms: number[] = [];
  const hardest: number[] = [];
  const started = performance.now();
  for (const claim of data.claims) {
    const score = (doc: string): number => scoreAbstract(relevance, claim.claim, data.abstracts.get(doc) ?? []);
    for (const doc of claim.cited) positives.push(score(doc));
    let other = ids[Math.floor(random() * ids.length)];
    while (claim.cited.includes(other)) other = ids[Math.floor(random() * ids.length)];
    randoms.push(score(other));
    const top = index.search(claim.claim, claim.cited.length + 1).find((hit) => !claim.cited.includes(hit.id));
    if (top) hardest.push(score(top.id));
  }
  const perPair = (performance.now() - started) / (positives.length + randoms.length + hardest.length);
  console.log(
    `  ${data.name.padEnd(24)} ${weighting.padEnd(20)} ${data.claims.length} claims: relevance AUC cited vs random ${auc(positives, randoms).toFixed(3)} (target >= 0.98), ` +
      `vs hardest uncited ${auc(positives, hardest).toFixed(3)}; ${perPair.toFixed(2)} ms per pair`,
  );
  const flagged = async (pairs: [string, string][]): Promise<string> => {
    let count = 0;
    for (const [claim, doc] of pairs) if ((await judgeSupport(claim, data.abstracts.get(doc), { relevance })).label === 'unsupported') count++;
    return `${((100 * count) / Math.max(1, pairs.length)).toFixed(1)}%`;
  };
  const cited = data.claims.flatMap((c) => c.cited.map((doc): [string, string] => [c.claim, doc]));
  const others = data.claims.map((c, i): [string, string] => [c.claim, ids[(i * 7919) % ids.length]]).filter(([, doc], i) => !data.claims[i].cited.includes(doc));
  console.log(`    flagged without a model as sharing none of the key terms: ${await flagged(cited)} of cited abstracts, ${await flagged(others)} of random ones`);
}

/**
 * On the shared manuscripts, as `attest check` judges them without a model: the share of citations
 * whose .bib abstract is flagged as sharing none of the sentence's key terms.
 */
async function manuscriptFlags(): Promise<void> {
  const { checkManuscript, CheckSession } = await import('../src/core/check');
  const { FsWorkspace } = await import('../src/core/fsWorkspace');
  const { checkSupport, relevanceAmong } = await import('../src/core/verify/claims');
  for (const root of ['astro_celerite/paper/ms.tex', 'control_dynonet/doc/paper/ms.tex', 'md_joss_gmr/paper/paper.md']) {
    const result = await checkManuscript(path.join(EVAL_DATA, 'manuscripts', root), new FsWorkspace(), new CheckSession());
    if (!result) continue;
    const supports = await checkSupport(result, { relevance: relevanceAmong(result, analyze), thresholds: DEFAULT_THRESHOLDS });
    const judged = supports.filter((s) => s.judgement.label !== 'unverifiable' || s.judgement.reason !== 'no abstract');
    const flagged = judged.filter((s) => s.judgement.label === 'unsupported');
    console.log(`  ${root.split('/')[0].padEnd(24)} ${judged.length} citations with an abstract: ${flagged.length} flagged as sharing none of the sentence's key terms`);
  }
}

/** As the verifier scores it: the best of the abstract's sentences and the whole abstract. */
function scoreAbstract(relevance: RelevanceScorer, claim: string, sentences: readonly string[]): number {
  if (sentences.length === 0) return 0;
  return Math.max(relevance(claim, sentences).score, relevance(claim, [sentences.join(' ')]).score);
}

/** Probability that a random positive scores above a random negative (ties count half). */
function auc(positives: readonly number[], negatives: readonly number[]): number {
  const sorted = [...negatives].sort((a, b) => a - b);
  let wins = 0;
  for (const p of positives) {
    let below = 0;
    let equal = 0;
    for (const n of sorted) {
      if (n < p) below++;
      else if (n === p) equal++;
      else break;
    }
    wins += below + equal / 2;
  }
  return wins / (positives.length * negatives.length);
}

async function nliSpeed(data: Dataset, dir: string): Promise<void> {
  const pairs = data.claims.slice(0, 200).map((c) => ({ premise: (data.abstracts.get(c.cited[0]) ?? []).join(' '), hypothesis: c.claim }));
  for (const batchSize of [1, 16]) {
    const model = await OnnxNliModel.load(dir, { preferQuantized: true, batchSize, threads: 2 });
    try {
      const started = performance.now();
      await model.classify(pairs);
      const elapsed = performance.now() - started;
      console.log(`  NLI speed, batch ${batchSize}: ${(elapsed / pairs.length).toFixed(1)} ms per pair, ${pairs.length} pairs in ${ms(elapsed)} (target 200 in < 20 s)`);
    } finally {
      await model.dispose();
    }
  }
}
