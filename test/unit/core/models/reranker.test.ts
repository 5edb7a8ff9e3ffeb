import assert from 'node:assert/strict';
import * as path from 'node:path';
import { PaperLibrary } from '../../../../src/core/index/library';
import { rerank } from '../../../../src/core/index/rerank';
import { builtInRerankerFolder } from '../../../../src/core/models/builtIn';
import { ModelError } from '../../../../src/core/models/errors';
import type { Embedder } from '../../../../src/core/models/embedder';
import { OnnxReranker, RerankerOnFirstUse, type Reranker } from '../../../../src/core/models/reranker';
import type { Paper } from '../../../../src/core/papers/paper';
import { writeModelFolder } from '../../support/onnx/folders';
import { nliGraph, nliLogits } from '../../support/onnx/graphs';
import { REPO_ROOT } from '../../support/helpers';
import { corpus } from '../../support/paperSources';
import { makeTempDir } from '../../support/tempDir';

// The pair of models-nli.test.ts (claim first, as the reranker reads it), whose ids are checked in models-tokenizer.test.ts.
const CLAIM = 'Aspirin reduces the risk of stroke.';
const PASSAGE = 'Café owners hallucinated citations.';
const PAIR_IDS = [101, 2004, 8197, 6657, 13416, 1996, 3891, 1997, 6909, 1012, 102, 7668, 5608, 2534, 14194, 15833, 22921, 1012, 102];
const PAIR_TYPES = [...new Array<number>(11).fill(0), ...new Array<number>(8).fill(1)];

const CONFIG = { model_type: 'bert', _name_or_path: 'attest-rerank-minilm-l6', max_position_embeddings: 512, pad_token_id: 0, id2label: { 0: 'LABEL_0' } };

function paper(id: string): Paper {
  return { id, title: `Paper ${id}`, abstract: `The abstract of ${id}.`, authors: [] };
}

/** Scores each passage by the number at its end: "Paper c" of a 3 scores 3. */
function fixedReranker(depth: number, weight: number, scores: Record<string, number>): Reranker & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    depth,
    weight,
    asked,
    score: async (_claim, passages) => {
      asked.push([...passages]);
      return passages.map((p) => scores[p.split(' ')[1]] ?? 0);
    },
    dispose: async () => undefined,
  };
}

describe('the reranker', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function folder(files: Record<string, string>): Promise<string> {
    const temp = await makeTempDir();
    cleanups.push(temp.remove);
    return writeModelFolder(path.join(temp.dir, 'reranker'), { model: nliGraph({ labels: 1, tokenTypes: true }), config: CONFIG, files });
  }

  it('scores each paper with its graph, the claim first and the passage second', async () => {
    const reranker = await OnnxReranker.load(await folder({ 'rerank.json': '{"depth": 50, "weight": 0.2}' }), { threads: 1 });
    cleanups.push(() => reranker.dispose());
    assert.deepEqual([reranker.depth, reranker.weight], [50, 0.2]);
    const [score, again] = await reranker.score(CLAIM, [PASSAGE, PASSAGE]);
    assert.ok(Math.abs(score - nliLogits(PAIR_IDS, PAIR_TYPES, 1)[0]) < 1e-4, `${score}`);
    assert.equal(again, score);
    const aborted = new AbortController();
    aborted.abort(new Error('stopped'));
    await assert.rejects(reranker.score(CLAIM, [PASSAGE], aborted.signal), /stopped/);
  });

  it('refuses a folder that does not say how deep it reorders and how much it counts', async () => {
    for (const [files, message] of [
      [{}, /rerank\.json: "depth" should be a whole number from 2 to 1000, not missing/],
      [{ 'rerank.json': '{"depth": 50, "weight": 1.5}' }, /"weight" should be a number from 0 to 1, not 1\.5/],
      [{ 'rerank.json': '[50]' }, /rerank\.json/],
    ] as const) {
      await assert.rejects(OnnxReranker.load(await folder(files), { threads: 1 }), (error: unknown) => error instanceof ModelError && message.test(error.message));
    }
  });

  it('reorders only the head of a ranking, by the mix of its scores and the ranking’s', async () => {
    const ranked = ['a', 'b', 'c', 'd'].map((id, at) => ({ paper: paper(id), score: 4 - at }));
    const alone = fixedReranker(3, 1, { a: 0, b: 1, c: 5 });
    const reordered = await rerank(alone, 'claim', ranked);
    assert.deepEqual(reordered.map((r) => r.paper.id), ['c', 'b', 'a', 'd']);
    assert.deepEqual(alone.asked, [['Paper a The abstract of a.', 'Paper b The abstract of b.', 'Paper c The abstract of c.']]);
    assert.equal(reordered[3].score, 1, 'a paper past the head keeps its score');
    assert.ok(reordered[0].score > reordered[1].score && reordered[1].score > reordered[2].score);

    assert.deepEqual((await rerank(fixedReranker(3, 0, { c: 5 }), 'claim', ranked)).map((r) => r.paper.id), ['a', 'b', 'c', 'd'], 'weight 0 keeps the ranking');
    // Standardised, the reranker puts c at 1.41 and a at −0.71, the ranking a at 1.22 and c at −1.22:
    // half and half a stays first, at 0.6 c moves up.
    assert.deepEqual((await rerank(fixedReranker(3, 0.5, { a: 0, b: 0, c: 5 }), 'claim', ranked)).map((r) => r.paper.id), ['a', 'c', 'b', 'd']);
    assert.deepEqual((await rerank(fixedReranker(3, 0.6, { a: 0, b: 0, c: 5 }), 'claim', ranked)).map((r) => r.paper.id), ['c', 'a', 'b', 'd']);
    assert.deepEqual(await rerank(fixedReranker(3, 1, {}), 'claim', ranked.slice(0, 1)), ranked.slice(0, 1));
  });

  it('is loaded at its first use, once, a load that failed is tried again, and once released it gives none', async () => {
    const temp = await makeTempDir();
    cleanups.push(temp.remove);
    const dir = path.join(temp.dir, 'reranker');
    const lazy = new RerankerOnFirstUse(dir, 1);
    await assert.rejects(lazy.get(), ModelError);
    await writeModelFolder(dir, { model: nliGraph({ labels: 1, tokenTypes: true }), config: CONFIG, files: { 'rerank.json': '{"depth": 5, "weight": 0.5}' } });
    const loaded = await lazy.get();
    assert.equal(loaded?.depth, 5);
    assert.equal(await lazy.get(), loaded, 'loaded once');
    assert.equal((await loaded?.score(CLAIM, [PASSAGE]))?.length, 1);
    await lazy.dispose();
    await assert.rejects(async () => loaded?.score(CLAIM, [PASSAGE]), 'its session is released');
    assert.equal(await lazy.get(), undefined, 'released, it loads nothing again');
  });

  it('ships with Attest: the built-in reranker puts the abstract that bears on a claim above those that do not', async () => {
    const dir = await builtInRerankerFolder([REPO_ROOT]);
    assert.ok(dir, 'models/attest-rerank is in the repository');
    const reranker = await OnnxReranker.load(dir, { threads: 1 });
    try {
      assert.deepEqual([reranker.depth, reranker.weight], [20, 0.4]);
      const [onTopic, ...others] = await reranker.score('Low-dose aspirin lowers the risk of a first stroke in older adults.', [
        'Aspirin for the primary prevention of stroke in the elderly. In a trial of 19,114 adults aged 70 or more, daily low-dose aspirin reduced the incidence of ischemic stroke.',
        'Retreat of alpine glaciers since 1850. Warm summers drive the retreat of glaciers in the Alps.',
        'Caffeine and sleep. Coffee taken in the evening delays sleep onset in healthy adults.',
      ]);
      for (const other of others) assert.ok(onTopic > other, `${onTopic} > ${other}`);
    } finally {
      await reranker.dispose();
    }
  });

  describe('in a search of the library', () => {
    async function library(reranker?: () => Promise<Reranker>): Promise<PaperLibrary> {
      const temp = await makeTempDir();
      cleanups.push(temp.remove);
      const opened = (await PaperLibrary.open(temp.dir, { reranker })).library;
      await opened.add(await corpus());
      return opened;
    }
    const CLAIM_TEXT = 'aspirin stroke risk';

    it('reorders the papers the words found, asking for as many as it reorders', async () => {
      const byWords = await (await library()).find({ text: CLAIM_TEXT, limit: 10 });
      assert.ok(byWords.results.length >= 2);
      const last = byWords.results[byWords.results.length - 1].paper;
      const reranker = fixedReranker(10, 1, { [last.title.split(' ')[1]]: 9 });
      const reranked = await (await library(async () => reranker)).find({ text: CLAIM_TEXT, limit: 1 });
      assert.equal(reranker.asked[0].length, byWords.results.length, 'the head is as deep as the reranker reorders, not the limit');
      assert.deepEqual(reranked.results.map((r) => r.paper.id), [last.id]);
      assert.deepEqual(reranked.notes, byWords.notes);
    });

    it('loads while the claim is embedded, not before', async () => {
      let claimAsked!: () => void;
      const embedding = new Promise<void>((resolve) => (claimAsked = resolve));
      const embedder: Embedder = {
        embed: async (texts, kind) => {
          if (kind === 'query') claimAsked();
          return texts.map((text) => Float32Array.from([text.length % 7, text.includes('aspirin') ? 1 : 0, 1]));
        },
        dispose: async () => undefined,
      };
      const temp = await makeTempDir();
      cleanups.push(temp.remove);
      const reranker = fixedReranker(5, 0.5, {});
      // The load finishes only once the claim's embedding was asked for: awaited first, the search would never end.
      const { library: searching } = await PaperLibrary.open(temp.dir, { encoder: { model: 'toy', embedder }, reranker: async () => (await embedding, reranker) });
      await searching.add(await corpus());
      const found = await searching.find({ text: CLAIM_TEXT, limit: 3 });
      assert.equal(found.mode, 'hybrid');
      assert.equal(reranker.asked.length, 1);
    });

    it('keeps the search’s own order, and says why, when the reranker cannot be loaded or fails', async () => {
      const byWords = await (await library()).find({ text: CLAIM_TEXT, limit: 3 });
      const unloadable = await (await library(() => Promise.reject(new ModelError('The model folder /x does not exist.')))).find({ text: CLAIM_TEXT, limit: 3 });
      assert.deepEqual(unloadable.results, byWords.results);
      assert.ok(unloadable.notes.some((n) => /own order: the reranker could not be loaded \(The model folder \/x does not exist\.\)/.test(n)), unloadable.notes.join('\n'));
      const failing: Reranker = { ...fixedReranker(5, 1, {}), score: () => Promise.reject(new Error('session released')) };
      const failed = await (await library(async () => failing)).find({ text: CLAIM_TEXT, limit: 3 });
      assert.deepEqual(failed.results.map((r) => r.paper.id), byWords.results.map((r) => r.paper.id));
      assert.ok(failed.notes.some((n) => /own order: the reranker failed \(session released\)/.test(n)), failed.notes.join('\n'));
    });

    it('stops with the signal’s reason when the search is cancelled while it reorders', async () => {
      const controller = new AbortController();
      const stopping: Reranker = { ...fixedReranker(5, 1, {}), score: async () => { controller.abort(new Error('cancelled by the user')); throw new Error('aborted'); } };
      await assert.rejects((await library(async () => stopping)).find({ text: CLAIM_TEXT, limit: 3, signal: controller.signal }), /cancelled by the user/);
    });
  });
});
