import assert from 'node:assert/strict';
import { ModelError } from '../../../../src/core/models/errors';
import type { NliPair, NliScores } from '../../../../src/core/models/nli';
import { OnnxNliModel } from '../../../../src/core/models/nli';
import { assertClose, softmax } from '../../support/onnx/expect';
import { nliConfig, writeModelFolder } from '../../support/onnx/folders';
import { nliGraph, nliLogits } from '../../support/onnx/graphs';
import { sessionEntriesAsked } from '../../support/onnx/sessions';
import { makeTempDir } from '../../support/tempDir';

// The pair of models-tokenizer.test.ts, whose ids are checked there against the real vocabulary.
const PAIR: NliPair = { premise: 'Aspirin reduces the risk of stroke.', hypothesis: 'Café owners hallucinated citations.' };
const PAIR_IDS = [101, 2004, 8197, 6657, 13416, 1996, 3891, 1997, 6909, 1012, 102, 7668, 5608, 2534, 14194, 15833, 22921, 1012, 102];
const PAIR_TYPES = [...new Array<number>(11).fill(0), ...new Array<number>(8).fill(1)];

const PAIRS: NliPair[] = [
  PAIR,
  { premise: 'Stroke.', hypothesis: 'Risk.' },
  { premise: 'We measured the citations of 300 preprints and found most of them accurate.', hypothesis: 'Most citations are fabricated.' },
  { premise: 'The trial was stopped early.', hypothesis: 'Aspirin prevents strokes in adults over sixty.' },
  { premise: 'No effect was observed.', hypothesis: 'An effect was observed.' },
];

function scoresOf(s: NliScores): number[] {
  return [s.entailment, s.neutral, s.contradiction];
}

describe('the ONNX NLI model', () => {
  const cleanups: Array<() => Promise<void>> = [];
  const models: OnnxNliModel[] = [];

  async function folder(spec: Parameters<typeof writeModelFolder>[1]): Promise<string> {
    const temp = await makeTempDir();
    cleanups.push(temp.remove);
    return writeModelFolder(temp.dir, spec);
  }

  async function load(dir: string, batchSize?: number): Promise<OnnxNliModel> {
    const model = await OnnxNliModel.load(dir, { batchSize, threads: 1 });
    models.push(model);
    return model;
  }

  afterEach(async () => {
    for (const model of models.splice(0)) await model.dispose();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('gives the softmax of the logits, each verdict read from the column config.json names for it', async () => {
    // id2label is 0 ENTAILMENT, 1 neutral, 2 Contradiction: not the usual order, and not in lower case.
    const model = await load(await folder({ model: nliGraph(), config: nliConfig() }));
    const [scores] = await model.classify([PAIR]);
    assertClose(scoresOf(scores), softmax(nliLogits(PAIR_IDS, undefined)));
    assert.ok(Math.abs(scores.entailment + scores.neutral + scores.contradiction - 1) < 1e-6);
  });

  it('has ONNX Runtime multiply int8 weights exactly on every x86 CPU, so a verdict does not depend on the machine', async () => {
    const dir = await folder({ model: nliGraph(), config: nliConfig() });
    const { result: scores, asked } = await sessionEntriesAsked(async () => (await load(dir)).classify([PAIR]));
    assertClose(scoresOf(scores[0]), softmax(nliLogits(PAIR_IDS, undefined)));
    assert.ok(asked.length > 0);
    for (const entries of asked) assert.equal(entries?.x64quantprecision, '1');
  });

  it('maps another order of labels to the same verdicts', async () => {
    const reordered = await load(
      await folder({ model: nliGraph(), config: nliConfig({ 0: 'contradiction', 1: 'entailment', 2: 'neutral' }) }),
    );
    const [scores] = await reordered.classify([PAIR]);
    const [c0, c1, c2] = softmax(nliLogits(PAIR_IDS, undefined));
    assertClose([scores.contradiction, scores.entailment, scores.neutral], [c0, c1, c2]);
  });

  it('feeds segment ids to a model that declares token_type_ids, and none to one that does not', async () => {
    const bert = await load(await folder({ model: nliGraph({ tokenTypes: true }), config: nliConfig() }));
    const [scores] = await bert.classify([PAIR]);
    assertClose(scoresOf(scores), softmax(nliLogits(PAIR_IDS, PAIR_TYPES)));
  });

  it('gives the same scores whatever the batch size, and keeps the order of the pairs', async () => {
    const dir = await folder({ model: nliGraph({ tokenTypes: true }), config: nliConfig() });
    const one = await (await load(dir, 1)).classify(PAIRS);
    const two = await (await load(dir, 2)).classify(PAIRS);
    const all = await (await load(dir, 16)).classify(PAIRS);
    assert.equal(one.length, PAIRS.length);
    assert.deepEqual(two, one);
    assert.deepEqual(all, one);
    assert.notDeepEqual(one[1], one[2]);
  });

  it('truncates a pair longer than the model takes instead of failing', async () => {
    const model = await load(await folder({ model: nliGraph(), config: { ...nliConfig(), max_position_embeddings: 12 } }));
    const [scores] = await model.classify([PAIR]);
    // The 12 tokens of the tokenizer's cut: [CLS] 5 premise tokens [SEP] 4 hypothesis tokens [SEP].
    const cut = [101, 2004, 8197, 6657, 13416, 1996, 102, 7668, 5608, 2534, 14194, 102];
    assertClose(scoresOf(scores), softmax(nliLogits(cut, undefined)));
  });

  it('answers an empty list with an empty list', async () => {
    const model = await load(await folder({ model: nliGraph(), config: nliConfig() }));
    assert.deepEqual(await model.classify([]), []);
  });

  it('runs nothing once cancelled', async () => {
    const model = await load(await folder({ model: nliGraph(), config: nliConfig() }), 1);
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(model.classify(PAIRS, controller.signal), { name: 'AbortError' });
  });

  it('refuses a config.json whose labels are not entailment, contradiction and neutral, naming them', async () => {
    const dir = await folder({ model: nliGraph(), config: nliConfig({ 0: 'LABEL_0', 1: 'LABEL_1', 2: 'LABEL_2' }) });
    await assert.rejects(OnnxNliModel.load(dir), (error: Error) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, /config\.json should label the outputs entailment, contradiction and neutral; it names LABEL_0, LABEL_1, LABEL_2/);
      return true;
    });
  });

  it('reports a graph whose logits do not match the labels of config.json', async () => {
    const model = await load(await folder({ model: nliGraph({ labels: 2 }), config: nliConfig() }));
    await assert.rejects(model.classify([PAIR]), /gives logits of shape \[1, 2\], but config\.json names 3 labels/);
  });
});
