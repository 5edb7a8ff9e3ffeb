import assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { chooseNliModel } from '../../../../src/cli/nli';
import { builtInIdentity, builtInNliFolder } from '../../../../src/core/models/builtIn';
import { OnnxNliModel } from '../../../../src/core/models/nli';
import { WorkerNliModel } from '../../../../src/core/models/pool';
import { REPO_ROOT } from '../../support/helpers';
import { nliConfig, writeModelFolder } from '../../support/onnx/folders';
import { nliGraph } from '../../support/onnx/graphs';
import { makeTempDir } from '../../support/tempDir';

describe('the NLI model built into Attest', () => {
  let root: string;
  let remove: () => Promise<void>;
  let builtIn: string;

  beforeEach(async () => {
    ({ dir: root, remove } = await makeTempDir());
    builtIn = path.join(root, 'models', 'attest-nli');
    await writeModelFolder(builtIn, {
      model: nliGraph({ tokenTypes: true }),
      modelPath: 'onnx/model_quantized.onnx',
      config: { ...nliConfig({ 0: 'contradiction', 1: 'entailment', 2: 'neutral' }), model_type: 'bert', _name_or_path: 'attest-nli-test' },
      files: {
        'tokenizer_config.json': JSON.stringify({ model_max_length: 256 }),
        'attest.json': JSON.stringify({ premise: 'abstract', thresholds: { entailment: 0.5, contradiction: 0.8 } }),
        'README.md': '# attest-nli-test\n',
      },
    });
  });

  afterEach(() => remove());

  it('is models/attest-nli in the package, and absent from a package without it', async () => {
    assert.equal(await builtInNliFolder([root]), builtIn);
    await fs.rm(path.join(builtIn, 'onnx'), { recursive: true });
    assert.equal(await builtInNliFolder([root]), undefined);
  });

  it("is found from the compiled tree at the repository's root exactly when the repository has it", async () => {
    const shipped = path.join(REPO_ROOT, 'models', 'attest-nli');
    assert.equal(await builtInNliFolder(), existsSync(path.join(shipped, 'onnx/model_quantized.onnx')) ? shipped : undefined);
  });

  it('judges for the CLI when no model is named, by its name and with its attest.json', async () => {
    const loaded = await chooseNliModel(undefined, {}, async () => builtIn);
    try {
      assert.equal(loaded?.name, 'attest-nli-test (built in)');
      assert.deepEqual(loaded?.model.judging, { premise: 'abstract', thresholds: { entailment: 0.5, contradiction: 0.8 } });
    } finally {
      await loaded?.model.dispose();
    }
  });

  it("runs in the worker as in this thread, with its attest.json and an abstract fitted to its length", async () => {
    const worker = await WorkerNliModel.start(builtIn, { preferQuantized: true, threads: 1 });
    const here = await OnnxNliModel.load(builtIn, { preferQuantized: true, threads: 1 });
    try {
      assert.deepEqual(worker.judging, here.judging);
      const long = Array.from({ length: 40 }, (_, i) => `Sentence ${i} of the abstract says little about the claim at hand.`);
      const pair = { premise: { sentences: [...long, 'Aspirin reduces the risk of stroke.'], priority: [40, ...long.map((_, i) => i)] }, hypothesis: 'Aspirin prevents strokes.' };
      assert.deepEqual(await worker.classify([pair]), await here.classify([pair]));
    } finally {
      await worker.dispose();
      await here.dispose();
    }
  });

  it('gives way to a model the flag or ATTEST_NLI_MODEL names, and to none', async () => {
    const { dir: other, remove: removeOther } = await makeTempDir();
    try {
      await writeModelFolder(other, { model: nliGraph(), config: nliConfig() });
      const named = await chooseNliModel(other, {}, async () => builtIn);
      assert.equal(named?.name, path.basename(other));
      assert.equal(named?.model.judging, undefined);
      await named?.model.dispose();
      assert.equal(await chooseNliModel('none', {}, async () => builtIn), undefined);
      assert.equal(await chooseNliModel(undefined, { ATTEST_NLI_MODEL: 'none' }, async () => builtIn), undefined);
      assert.equal(await chooseNliModel(undefined, {}, async () => undefined), undefined);
    } finally {
      await removeOther();
    }
  });

  it('keys cached judgements apart when the model is replaced by a newly trained one', async () => {
    const first = await builtInIdentity(builtIn);
    // Retrained: the same architecture, so the same size; other weights.
    const graph = path.join(builtIn, 'onnx/model_quantized.onnx');
    const bytes = await fs.readFile(graph);
    bytes[bytes.length - 1] ^= 1;
    await fs.writeFile(graph, bytes);
    const second = await builtInIdentity(builtIn);
    assert.equal(first.name, second.name);
    assert.notEqual(first.id, second.id);
  });
});
