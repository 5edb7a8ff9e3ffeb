import assert from 'node:assert/strict';
import * as path from 'node:path';
import { chooseNliModel } from '../../../../src/cli/nli';
import type { NliModel, NliPair } from '../../../../src/core/models/nli';
import { nliConfig, writeModelFolder } from '../../support/onnx/folders';
import { nliGraph } from '../../support/onnx/graphs';
import { makeTempDir } from '../../support/tempDir';

const PAIR: NliPair = { premise: 'Aspirin reduces the risk of stroke.', hypothesis: 'Aspirin prevents strokes.' };

describe('an NLI model made on first use', () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ dir, remove } = await makeTempDir()));
  afterEach(() => remove());

  it('makes its session at the first pair, once, however many judge, and releases it once', async () => {
    const folder = await writeModelFolder(path.join(dir, 'judge'), { model: nliGraph(), config: nliConfig() });
    let opened = 0;
    let disposed = 0;
    const chosen = await chooseNliModel(folder, {}, async () => undefined, async (): Promise<NliModel> => {
      opened++;
      return { classify: async (pairs) => pairs.map(() => ({ entailment: 0.9, contradiction: 0.05, neutral: 0.05 })), dispose: async () => void disposed++ };
    });
    assert.ok(chosen);
    assert.deepEqual(await chosen.model.classify([]), []);
    assert.equal(opened, 0, 'nothing to judge makes no session');
    const [first, second] = await Promise.all([chosen.model.classify([PAIR]), chosen.model.classify([PAIR, PAIR])]);
    assert.equal(first.length + second.length, 3);
    assert.equal(opened, 1);
    await chosen.model.dispose();
    assert.equal(disposed, 1);
  });

  it('is chosen without a session, so a folder ONNX Runtime cannot read fails only when a pair is judged', async () => {
    const folder = await writeModelFolder(path.join(dir, 'broken'), { model: new TextEncoder().encode('not an ONNX graph'), config: nliConfig() });
    const chosen = await chooseNliModel(folder, {}, async () => undefined);
    assert.ok(chosen);
    assert.match(chosen.id, /^broken#content:[0-9a-f]{16}$/);
    assert.equal(chosen.name, 'broken');
    await assert.rejects(chosen.model.classify([PAIR]), /ONNX Runtime could not load/);
    await chosen.model.dispose();
  });
});
