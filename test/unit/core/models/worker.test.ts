import assert from 'node:assert/strict';
import * as path from 'node:path';
import { OnnxEmbedder } from '../../../../src/core/models/embedder';
import { ModelError } from '../../../../src/core/models/errors';
import { OnnxNliModel } from '../../../../src/core/models/nli';
import { LanesEmbedder, WorkerEmbedder, WorkerNliModel } from '../../../../src/core/models/pool';
import { nliConfig, writeModelFolder } from '../../support/onnx/folders';
import { encoderGraph, nliGraph } from '../../support/onnx/graphs';
import { makeTempDir } from '../../support/tempDir';

const PAIRS: { premise: string; hypothesis: string }[] = Array.from({ length: 12 }, (_, i) => ({
  premise: `In ${2000 + i} the trial enrolled ${i * 37} patients and found no effect of aspirin on stroke.`,
  hypothesis: i % 2 ? 'Aspirin prevents strokes.' : 'The trial found no effect.',
}));

describe('models in a worker thread', () => {
  let nliDir: string;
  let encoderDir: string;
  const cleanups: Array<() => Promise<void>> = [];
  const disposables: Array<{ dispose(): Promise<void> }> = [];

  before(async () => {
    const nli = await makeTempDir();
    const encoder = await makeTempDir();
    cleanups.push(nli.remove, encoder.remove);
    nliDir = await writeModelFolder(nli.dir, { model: nliGraph({ tokenTypes: true }), config: nliConfig() });
    encoderDir = await writeModelFolder(encoder.dir, {
      model: encoderGraph(),
      config: { model_type: 'bert', _name_or_path: 'intfloat/e5-small-v2', max_position_embeddings: 512 },
    });
  });

  afterEach(async () => {
    for (const d of disposables.splice(0)) await d.dispose();
  });

  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  function keep<T extends { dispose(): Promise<void> }>(model: T): T {
    disposables.push(model);
    return model;
  }

  it('classifies pairs as the model does in this thread', async () => {
    const here = keep(await OnnxNliModel.load(nliDir, { threads: 1 }));
    const worker = keep(await WorkerNliModel.start(nliDir, { threads: 1, batchSize: 5 }));
    assert.deepEqual(await worker.classify(PAIRS), await here.classify(PAIRS));
  });

  it('embeds texts as the encoder does in this thread, queries with their prefix', async () => {
    const texts = PAIRS.map((p) => p.premise);
    const here = keep(await OnnxEmbedder.load(encoderDir, { threads: 1 }));
    const worker = keep(await WorkerEmbedder.start(encoderDir, { threads: 1, batchSize: 4 }));
    assert.deepEqual(await worker.embed(texts, 'passage'), await here.embed(texts, 'passage'));
    const queries = await worker.embed(texts.slice(0, 2), 'query');
    assert.deepEqual(queries, await here.embed(texts.slice(0, 2), 'query'));
    assert.notDeepEqual(queries, await here.embed(texts.slice(0, 2), 'passage'), "e5's query prefix changes the vectors");
  });

  it("embeds in several workers side by side, each vector in its text's place, as in this thread", async () => {
    const texts = PAIRS.map((p) => p.premise);
    const here = keep(await OnnxEmbedder.load(encoderDir, { threads: 1 }));
    const lanes = keep(await LanesEmbedder.start(encoderDir, 3, { batchSize: 2 }));
    assert.deepEqual(await lanes.embed(texts, 'passage'), await here.embed(texts, 'passage'));
    assert.deepEqual(await lanes.embed(texts.slice(5, 6), 'query'), await here.embed(texts.slice(5, 6), 'query'), 'one text, one lane');
    assert.deepEqual(await lanes.embed([], 'passage'), []);
  });

  it('starts no lanes from a folder it cannot load, and says why as in this thread', async () => {
    const empty = await makeTempDir();
    cleanups.push(empty.remove);
    await assert.rejects(LanesEmbedder.start(empty.dir, 2), ModelError);
  });

  it('answers calls made at the same time each with its own results', async () => {
    const here = keep(await OnnxNliModel.load(nliDir, { threads: 1 }));
    const worker = keep(await WorkerNliModel.start(nliDir, { threads: 1, batchSize: 2 }));
    const [long, short, empty] = await Promise.all([worker.classify(PAIRS), worker.classify(PAIRS.slice(3, 4)), worker.classify([])]);
    assert.deepEqual(long, await here.classify(PAIRS));
    assert.deepEqual(short, await here.classify(PAIRS.slice(3, 4)));
    assert.deepEqual(empty, []);
  });

  it('drops a cancelled call, and answers the next call with its own results', async () => {
    const here = keep(await OnnxNliModel.load(nliDir, { threads: 1 }));
    const worker = keep(await WorkerNliModel.start(nliDir, { threads: 1, batchSize: 1 }));
    const controller = new AbortController();
    const cancelled = worker.classify(PAIRS, controller.signal);
    controller.abort();
    await assert.rejects(cancelled, { name: 'AbortError' });
    assert.deepEqual(await worker.classify(PAIRS.slice(5, 7)), await here.classify(PAIRS.slice(5, 7)));
    await assert.rejects(worker.classify(PAIRS, controller.signal), { name: 'AbortError' });
  });

  it('reports a folder it cannot load as the same ModelError as in this thread', async () => {
    const missing = path.join(nliDir, 'nowhere');
    await assert.rejects(WorkerNliModel.start(missing), (error: Error) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, new RegExp(`The model folder ${missing} does not exist`));
      return true;
    });
  });

  it('reports an error of the model during a call, and goes on answering', async () => {
    const temp = await makeTempDir();
    cleanups.push(temp.remove);
    const dir = await writeModelFolder(temp.dir, { model: nliGraph({ labels: 2 }), config: nliConfig() });
    const worker = keep(await WorkerNliModel.start(dir, { threads: 1 }));
    await assert.rejects(worker.classify(PAIRS), (error: Error) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, /gives logits of shape \[\d+, 2\], but config\.json names 3 labels/);
      return true;
    });
    await assert.rejects(worker.classify(PAIRS.slice(0, 1)), ModelError);
  });

  it('rejects calls still pending when it is shut down, and any call after', async () => {
    const worker = await WorkerNliModel.start(nliDir, { threads: 1, batchSize: 1 });
    const pending = assert.rejects(worker.classify(PAIRS), /The NLI model was shut down/);
    await worker.dispose();
    await pending;
    await assert.rejects(worker.classify(PAIRS), /The NLI model was shut down/);
  });
});
