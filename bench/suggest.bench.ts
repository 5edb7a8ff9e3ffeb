import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { EvidenceFinder, EvidenceQuery, EvidenceResults } from '../src/core/evidence';
import { LexicalIndex } from '../src/core/index/lexical';
import { OnnxNliModel, type NliModel } from '../src/core/models/nli';
import type { Paper } from '../src/core/papers/paper';
import { OpenAiLlm, type ChatMessage, type CompleteOptions, type Llm } from '../src/core/suggest/llm';
import { supportJudge, type SentenceJudge } from '../src/core/suggest/recheck';
import { suggest, type Suggestion } from '../src/core/suggest/suggest';
import { ChatServer, type ChatReply, type ReceivedChat } from '../test/unit/support/chatServer';
import { EVAL_DATA, haveEvalData } from './evalData';
import { median, ms, percentile } from './stats';

const SCIFACT = path.join(EVAL_DATA, 'beir-scifact');
const CLAIMS = 200;

/**
 * Cited suggestions on SciFact claims, with BEIR SciFact's 5,183 abstracts in the lexical index and
 * a local server scripted to answer as a model would, instantly. Measured: what the pipeline adds to
 * the model's own time (retrieval, prompts, parsing, the whitelist and the support checks: the whole
 * request minus the time spent waiting on the model), and the share of fabricated citations, planted
 * in every draft, that are taken out. With ATTEST_NLI_MODEL, the checks run the NLI model.
 */
export async function benchSuggest(): Promise<void> {
  if (!haveEvalData('suggestions', 'beir-scifact/corpus.jsonl', 'beir-scifact/queries.jsonl')) return;
  const papers = await readJsonLines<{ _id: string; title: string; text: string }>('corpus.jsonl');
  const byId = new Map(papers.map((row): [string, Paper] => [row._id, { id: row._id, title: row.title, abstract: row.text, authors: [] }]));
  const index = new LexicalIndex();
  for (const paper of byId.values()) index.add(paper);
  const claims = (await readJsonLines<{ text: string }>('queries.jsonl')).slice(0, CLAIMS).map((q) => q.text);

  const planted: string[][] = [];
  const server = await ChatServer.start((request) => scriptedReply(request, planted));
  const dir = process.env.ATTEST_NLI_MODEL;
  const nli: NliModel | undefined = dir ? await OnnxNliModel.load(dir, { preferQuantized: true }) : undefined;
  try {
    const llm = new Timed(new OpenAiLlm({ baseUrl: server.baseUrl, model: 'scripted', temperature: 0, maxTokens: 800, timeoutMs: 10_000 }));
    const finder = new TimedFinder(index, byId);
    const judge = timedJudge(supportJudge(nli && dir ? { nli: { model: nli, id: path.basename(dir) } } : {}));
    const overhead: number[] = [];
    const model: number[] = [];
    const retrieval: number[] = [];
    const checks: number[] = [];
    let fabricated = 0;
    let removed = 0;
    let reported = 0;
    for (const selection of claims) {
      llm.ms = finder.ms = judge.ms = 0;
      const start = performance.now();
      const result = await suggest({ selection, finder, llm, judge: judge.judge });
      overhead.push(performance.now() - start - llm.ms);
      model.push(llm.ms);
      retrieval.push(finder.ms);
      checks.push(judge.ms);
      const plants = planted[planted.length - 1] ?? [];
      fabricated += plants.length;
      removed += plants.filter((p) => !survives(p, result)).length;
      reported += plants.filter((p) => result.removed.some((r) => r.text.includes(p))).length;
    }
    const row = (label: string, values: readonly number[]): string => `  ${label.padEnd(44)}median ${ms(median(values))}  p95 ${ms(percentile(values, 95))}`;
    console.log(
      `suggest: ${claims.length} SciFact claims, ${byId.size} abstracts indexed, a scripted local model answering at once${nli ? `, NLI ${path.basename(dir ?? '')}` : ', relevance checks only (set ATTEST_NLI_MODEL for NLI)'}`,
    );
    console.log(row('pipeline overhead (all but the model)', overhead));
    console.log(row('  of which retrieval (2 queries)', retrieval));
    console.log(row('  of which support checks', checks));
    console.log(row('model time: client + local HTTP (excluded)', model));
    console.log(`  fabricated citations taken out              ${removed}/${fabricated} (${((100 * removed) / fabricated).toFixed(1)}%), reported ${reported}/${fabricated}`);
  } finally {
    await nli?.dispose();
    await server.close();
  }
}

/**
 * Queries are the claim's first words; a draft restates the first passage of each of the first three
 * sources, citing them, with fabricated citations of every kind planted in turn. `planted` receives
 * what each draft planted, to be looked for in the suggestion.
 */
function scriptedReply(request: ReceivedChat, planted: string[][]): ChatReply {
  const user = request.body.messages[1]?.content ?? '';
  if (!user.startsWith('Sources:')) return { text: JSON.stringify([user.split(/\s+/).slice(0, 6).join(' '), user.split(/\s+/).slice(-6).join(' ')]) };
  const sources = [...user.matchAll(/^\[(\d+)\] .*\n- (.*)$/gm)].map((m) => ({ number: Number(m[1]), passage: m[2].replace(/[.!?]+$/, '') }));
  const n = sources.length;
  const kind = planted.length % 4;
  const plants = [
    [`[${n + 1}]`, `[1, ${n + 3}]`],
    ['(Smith et al., 2020)', `doi:10.9999/invented.${planted.length}`],
    ['Garcia and Chen (2019)', 'https://example.org/invented-study'],
    ['[Smith2020]', '\\cite{fake2020}', 'arXiv:2101.00001'],
  ][kind];
  planted.push(plants);
  const sentences = sources.slice(0, 3).map((s) => `${s.passage} [${s.number}]`);
  if (kind === 0) sentences.push(`This holds broadly ${plants[0]}`, `It was replicated ${plants[1]}`);
  if (kind === 1) sentences.push(`Others agree ${plants[0]} [1]`, `The data are public (${plants[1]})`);
  if (kind === 2) sentences.push(`${plants[0]} reported the same [2]`, `See ${plants[1]} [1]`);
  if (kind === 3) sentences.push(`Prior work agrees ${plants[0]} ${plants[1]}`, `A preprint (${plants[2]}) concurs [1]`);
  return { text: `${sentences.join('. ')}.` };
}

/** A planted citation survives if a kept sentence still holds it, or cites a paper that was not a source. */
function survives(plant: string, result: Suggestion): boolean {
  return result.sentences.some((s) => s.text.includes(plant) || s.citations.some((c) => !result.sources.includes(c)));
}

class Timed implements Llm {
  ms = 0;
  constructor(private readonly llm: Llm) {}
  async complete(messages: readonly ChatMessage[], options?: CompleteOptions): Promise<string> {
    const start = performance.now();
    try {
      return await this.llm.complete(messages, options);
    } finally {
      this.ms += performance.now() - start;
    }
  }
}

class TimedFinder implements EvidenceFinder {
  ms = 0;
  constructor(
    private readonly index: LexicalIndex,
    private readonly papers: ReadonlyMap<string, Paper>,
  ) {}
  async find(query: EvidenceQuery): Promise<EvidenceResults> {
    const start = performance.now();
    const results = this.index.search(query.text, query.limit).flatMap((hit) => {
      const paper = this.papers.get(hit.id);
      return paper ? [{ paper, score: hit.score }] : [];
    });
    this.ms += performance.now() - start;
    return { mode: 'lexical', results, notes: [] };
  }
}

function timedJudge(judge: SentenceJudge): { judge: SentenceJudge; ms: number } {
  const timed = {
    ms: 0,
    judge: async (claim: string, passages: readonly string[], signal?: AbortSignal) => {
      const start = performance.now();
      try {
        return await judge(claim, passages, signal);
      } finally {
        timed.ms += performance.now() - start;
      }
    },
  };
  return timed;
}

async function readJsonLines<T>(file: string): Promise<T[]> {
  const text = await fs.readFile(path.join(SCIFACT, file), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line) as T);
}
