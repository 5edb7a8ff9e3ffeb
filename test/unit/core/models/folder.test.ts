import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ModelError } from '../../../../src/core/models/errors';
import { readModelFolder } from '../../../../src/core/models/folder';
import { OnnxNliModel } from '../../../../src/core/models/nli';
import { nliConfig, writeModelFolder } from '../../support/onnx/folders';
import { nliGraph } from '../../support/onnx/graphs';
import { makeTempDir } from '../../support/tempDir';

/** Asserts the promise rejects with a ModelError about `file` whose message matches `message`. */
async function rejectsAbout(promise: Promise<unknown>, file: string | undefined, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: Error) => {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    assert.equal(error.file, file);
    assert.match(error.message, message);
    return true;
  });
}

describe('reading a model folder', () => {
  let dir: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir());
  });

  afterEach(() => remove());

  it('finds model.onnx, tokenizer.json and config.json, and reads labels by index', async () => {
    await writeModelFolder(dir, { model: nliGraph(), config: nliConfig({ 2: 'neutral', 0: 'contradiction', 1: 'entailment' }) });
    const folder = await readModelFolder(dir);
    assert.equal(folder.modelFile, path.join(dir, 'model.onnx'));
    assert.deepEqual(folder.config.labels, ['contradiction', 'entailment', 'neutral']);
    assert.equal(folder.config.maxLength, 512);
    assert.equal(folder.config.modelType, 'deberta-v2');
    assert.deepEqual(folder.tokenizerConfig, {});
  });

  it('takes the quantized graph only when asked to prefer it', async () => {
    await writeModelFolder(dir, { model: nliGraph(), modelPath: 'onnx/model.onnx', config: nliConfig() });
    await fs.writeFile(path.join(dir, 'onnx/model_quantized.onnx'), nliGraph());
    assert.equal((await readModelFolder(dir)).modelFile, path.join(dir, 'onnx/model.onnx'));
    assert.equal((await readModelFolder(dir, { preferQuantized: true })).modelFile, path.join(dir, 'onnx/model_quantized.onnx'));
  });

  it('uses the quantized graph when it is the only one, as a download of it leaves the folder', async () => {
    await writeModelFolder(dir, { model: nliGraph(), modelPath: 'onnx/model_quantized.onnx', config: nliConfig() });
    assert.equal((await readModelFolder(dir)).modelFile, path.join(dir, 'onnx/model_quantized.onnx'));
  });

  it('limits inputs to the shorter of max_position_embeddings and the model_max_length of tokenizer_config.json', async () => {
    await writeModelFolder(dir, { model: nliGraph(), config: nliConfig(), files: { 'tokenizer_config.json': JSON.stringify({ model_max_length: 256 }) } });
    assert.equal((await readModelFolder(dir)).config.maxLength, 256);
    // tokenizers writes 1e30 when a model sets no limit.
    await fs.writeFile(path.join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: 1e30 }));
    assert.equal((await readModelFolder(dir)).config.maxLength, 512);
  });

  it('says a folder that does not exist does not exist', async () => {
    const missing = path.join(dir, 'nowhere');
    await rejectsAbout(readModelFolder(missing), undefined, new RegExp(`The model folder ${missing} does not exist`));
  });

  it('names the model files it looked for when there is none', async () => {
    await writeModelFolder(dir, { model: nliGraph(), modelPath: 'weights.bin', config: nliConfig() });
    await rejectsAbout(readModelFolder(dir), path.join(dir, 'model.onnx'), /has no ONNX model \(looked for model\.onnx, onnx\/model\.onnx, onnx\/model_quantized\.onnx\)/);
  });

  it('names a missing tokenizer.json', async () => {
    await writeModelFolder(dir, { model: nliGraph(), config: nliConfig() });
    await fs.rm(path.join(dir, 'tokenizer.json'));
    await rejectsAbout(readModelFolder(dir), path.join(dir, 'tokenizer.json'), /has no tokenizer\.json/);
  });

  it('names a config.json that is cut off, and says to download it again', async () => {
    await writeModelFolder(dir, { model: nliGraph(), config: nliConfig() });
    await fs.writeFile(path.join(dir, 'config.json'), '{"model_type": "deberta-v2", "id2l');
    const file = path.join(dir, 'config.json');
    await rejectsAbout(readModelFolder(dir), file, /config\.json is not valid JSON .*download it again/);
  });

  it('refuses an id2label with a gap', async () => {
    await writeModelFolder(dir, { model: nliGraph(), config: nliConfig({ 0: 'entailment', 2: 'neutral' }) });
    await rejectsAbout(readModelFolder(dir), path.join(dir, 'config.json'), /id2label should name every output index from 0 up/);
  });

  it('says a model.onnx ONNX Runtime cannot read may be incomplete', async () => {
    await writeModelFolder(dir, { model: nliGraph().subarray(0, 40), config: nliConfig() });
    const file = path.join(dir, 'model.onnx');
    await rejectsAbout(OnnxNliModel.load(dir), file, /ONNX Runtime could not load .*model\.onnx .*may be incomplete or not an ONNX model: download it again/);
  });

  describe("attest.json, a model trained for Attest saying how it judges", () => {
    const attestJson = (value: unknown): Promise<string> =>
      writeModelFolder(dir, { model: nliGraph(), config: nliConfig(), files: { 'attest.json': JSON.stringify(value) } });

    it('is read with the folder, and an export without it (any Hugging Face model) has none', async () => {
      await writeModelFolder(dir, { model: nliGraph(), config: nliConfig() });
      assert.equal((await readModelFolder(dir)).judging, undefined);
      await attestJson({ premise: 'abstract', thresholds: { entailment: 0.55, contradiction: 0.8 } });
      assert.deepEqual((await readModelFolder(dir)).judging, { premise: 'abstract', thresholds: { entailment: 0.55, contradiction: 0.8 } });
      const model = await OnnxNliModel.load(dir, { threads: 1 });
      try {
        assert.deepEqual(model.judging, { premise: 'abstract', thresholds: { entailment: 0.55, contradiction: 0.8 } });
      } finally {
        await model.dispose();
      }
    });

    it('reads a neutral threshold, and a null contradiction threshold as a model that never says contradicted', async () => {
      await attestJson({ premise: 'abstract', thresholds: { entailment: 0.4, contradiction: null, neutral: 0.7 } });
      assert.deepEqual((await readModelFolder(dir)).judging, { premise: 'abstract', thresholds: { entailment: 0.4, contradiction: Number.POSITIVE_INFINITY, neutral: 0.7 } });
    });

    it('reads a null neutral threshold, which training writes when none was precise enough, as a model that never says unsupported', async () => {
      await attestJson({ premise: 'abstract', thresholds: { entailment: 0.4, contradiction: null, neutral: null } });
      assert.deepEqual((await readModelFolder(dir)).judging, { premise: 'abstract', thresholds: { entailment: 0.4, contradiction: Number.POSITIVE_INFINITY, neutral: Number.POSITIVE_INFINITY } });
    });

    it("reads the calibration `npm run calibrate` writes, a strong level never reached (null) as one no verdict reaches", async () => {
      const bins = [{ from: 0.26, to: 0.7, verdicts: 120, right: 50 }, { from: 0.7, to: 1, verdicts: 40, right: 36 }];
      const dev = ['scifact/claims_dev.jsonl'];
      await attestJson({ premise: 'abstract', thresholds: { entailment: 0.26, contradiction: null }, calibration: { strongEntailment: 0.7, precision: 0.85, dev, bins } });
      assert.deepEqual((await readModelFolder(dir)).judging?.calibration, { strongEntailment: 0.7, precision: 0.85, dev, bins });
      await attestJson({ premise: 'abstract', thresholds: { entailment: 0.26, contradiction: null }, calibration: { strongEntailment: null, precision: 0.85, dev, bins } });
      assert.equal((await readModelFolder(dir)).judging?.calibration?.strongEntailment, Number.POSITIVE_INFINITY);
    });

    for (const [what, value, message] of [
      [
        'a calibration whose bin says more were right than were said',
        { premise: 'abstract', thresholds: { entailment: 0.3, contradiction: 0.8 }, calibration: { strongEntailment: 0.7, precision: 0.85, dev: [], bins: [{ from: 0.3, to: 1, verdicts: 2, right: 3 }] } },
        /"calibration\.bins" should list bins/,
      ],
      [
        'a calibration whose strong level is text',
        { premise: 'abstract', thresholds: { entailment: 0.3, contradiction: 0.8 }, calibration: { strongEntailment: '0.7', precision: 0.85, dev: [], bins: [] } },
        /"calibration\.strongEntailment" should be a probability or null, not "0\.7"/,
      ],
      ['a neutral threshold out of range', { premise: 'abstract', thresholds: { entailment: 0.5, contradiction: 0.8, neutral: 0 } }, /"thresholds\.neutral" should be a probability above 0 and at most 1, not 0/],
      ['an unknown premise', { premise: 'sentences', thresholds: { entailment: 0.5, contradiction: 0.8 } }, /"premise" should be "abstract", not "sentences"/],
      ['no thresholds', { premise: 'abstract' }, /"thresholds" should be an object with "entailment" and "contradiction"/],
      ['a threshold out of range', { premise: 'abstract', thresholds: { entailment: 0.5, contradiction: 1.5 } }, /"thresholds\.contradiction" should be a probability above 0 and at most 1, not 1\.5/],
      ['a threshold that is text', { premise: 'abstract', thresholds: { entailment: '0.5', contradiction: 0.8 } }, /"thresholds\.entailment" should be a probability .*, not "0\.5"/],
      ['a list', [], /"premise" should be "abstract", not missing|should hold a JSON object/],
    ] as const) {
      it(`refuses ${what}, naming attest.json and the value`, async () => {
        await attestJson(value);
        await rejectsAbout(readModelFolder(dir), path.join(dir, 'attest.json'), message);
      });
    }

    it('refuses an attest.json that is not JSON', async () => {
      await writeModelFolder(dir, { model: nliGraph(), config: nliConfig(), files: { 'attest.json': '{"premise": "abs' } });
      await rejectsAbout(readModelFolder(dir), path.join(dir, 'attest.json'), /attest\.json is not valid JSON/);
    });
  });
});
