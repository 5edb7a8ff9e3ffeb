import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { BATCH_TOKENS, OnnxEmbedder } from '../../../../src/core/models/embedder';
import { inBatches } from '../../../../src/core/models/options';
import { ModelError } from '../../../../src/core/models/errors';
import { modelLocation } from '../../../../src/core/models/location';
import { TextTokenizer } from '../../../../src/core/models/tokenizer';
import { REPO_ROOT } from '../../support/helpers';
import { assertClose, unit } from '../../support/onnx/expect';
import { MINILM_TOKENIZER, writeModelFolder } from '../../support/onnx/folders';
import { encoderGraph, encoderStates } from '../../support/onnx/graphs';
import { sessionEntriesAsked } from '../../support/onnx/sessions';
import { makeTempDir } from '../../support/tempDir';

// Checked against the real vocabulary in models-tokenizer.test.ts.
const TEXT = 'Aspirin reduces the risk of stroke.';
const TEXT_IDS = [101, 2004, 8197, 6657, 13416, 1996, 3891, 1997, 6909, 1012, 102];

const TEXTS = [TEXT, 'Stroke.', 'Most citations in the preprints we read were accurate, and none was fabricated.', 'Risk.'];

function meanOf(states: number[][]): number[] {
  return states[0].map((_, d) => states.reduce((sum, s) => sum + s[d], 0) / states.length);
}

function encoderConfig(nameOrPath: string): Record<string, unknown> {
  return { model_type: 'bert', _name_or_path: nameOrPath, max_position_embeddings: 512, pad_token_id: 0 };
}

describe('the ONNX sentence encoder', () => {
  const cleanups: Array<() => Promise<void>> = [];
  const encoders: OnnxEmbedder[] = [];

  async function load(nameOrPath: string | undefined, files: Record<string, string> = {}, batchSize?: number, folder = (dir: string) => dir): Promise<OnnxEmbedder> {
    const temp = await makeTempDir();
    cleanups.push(temp.remove);
    const dir = folder(temp.dir);
    const config = nameOrPath === undefined ? { ...encoderConfig(''), _name_or_path: undefined } : encoderConfig(nameOrPath);
    await writeModelFolder(dir, { model: encoderGraph(), config, files });
    const encoder = await OnnxEmbedder.load(dir, { batchSize, threads: 1 });
    encoders.push(encoder);
    return encoder;
  }

  afterEach(async () => {
    for (const encoder of encoders.splice(0)) await encoder.dispose();
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('leaves the weights unpacked when asked, for a session that runs once, with the same vectors', async () => {
    const temp = await makeTempDir();
    cleanups.push(temp.remove);
    await writeModelFolder(temp.dir, { model: encoderGraph(), config: encoderConfig('BAAI/bge-small-en-v1.5') });
    const { result: vectors, asked } = await sessionEntriesAsked(async () => {
      const embedded = [];
      for (const prepack of [undefined, false]) {
        const encoder = await OnnxEmbedder.load(temp.dir, { threads: 1, prepack });
        encoders.push(encoder);
        embedded.push((await encoder.embed([TEXT], 'query'))[0]);
      }
      return embedded;
    });
    assert.deepEqual(
      asked.map((entries) => entries?.disable_prepacking),
      [undefined, '1'],
    );
    assertClose(vectors[1], [...vectors[0]]);
  });

  it('averages the token states of all-MiniLM-L6-v2 and scales the mean to unit length', async () => {
    const encoder = await load('sentence-transformers/all-MiniLM-L6-v2');
    const [vector] = await encoder.embed([TEXT], 'passage');
    assertClose(vector, unit(meanOf(encoderStates(TEXT_IDS))));
  });

  it('takes the [CLS] state of bge-small-en-v1.5, and embeds a claim as it embeds a passage, without the optional instruction', async () => {
    const encoder = await load('BAAI/bge-small-en-v1.5');
    const [passage] = await encoder.embed([TEXT], 'passage');
    const [query] = await encoder.embed([TEXT], 'query');
    assertClose(passage, unit(encoderStates(TEXT_IDS)[0]));
    assertClose(query, [...passage]);
  });

  it('puts the prefixes e5 was trained with before queries and passages', async () => {
    const encoder = await load('intfloat/e5-small-v2');
    const [passage] = await encoder.embed([TEXT], 'passage');
    const [query] = await encoder.embed([TEXT], 'query');
    const tokenizer = new TextTokenizer(JSON.parse(readFileSync(MINILM_TOKENIZER, 'utf8')) as object, {}, 512, 0);
    const ids = (text: string): number[] => [...tokenizer.encode(text).ids];
    assert.deepEqual(ids(`query: ${TEXT}`).slice(-10), TEXT_IDS.slice(1));
    assertClose(query, unit(meanOf(encoderStates(ids(`query: ${TEXT}`)))));
    assertClose(passage, unit(meanOf(encoderStates(ids(`passage: ${TEXT}`)))));
  });

  it('knows the encoder the settings offer by name, from its download folder alone: mean of the states, no prefix', async () => {
    const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
    };
    const offered = manifest.contributes.configuration.properties['attest.retrieval.encoder.model'].default;
    assert.equal(offered, 'Xenova/all-MiniLM-L6-v2', 'the encoder that embeds fastest for a final ranking of 0.80 on SciFact (README)');
    // Where the download lands, with a config.json that does not name the model.
    const encoder = await load(undefined, {}, undefined, (storage) => modelLocation(offered, storage, storage).dir);
    const [query] = await encoder.embed([TEXT], 'query');
    assertClose(query, unit(meanOf(encoderStates(TEXT_IDS))), 'mean pooling: the [CLS] state differs');
  });

  it('follows 1_Pooling/config.json over its defaults', async () => {
    const encoder = await load('someone/unknown-encoder', { '1_Pooling/config.json': JSON.stringify({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }) });
    const [vector] = await encoder.embed([TEXT], 'query');
    assertClose(vector, unit(encoderStates(TEXT_IDS)[0]));
  });

  it('cuts texts to max_seq_length of sentence_bert_config.json', async () => {
    const encoder = await load('sentence-transformers/all-MiniLM-L6-v2', { 'sentence_bert_config.json': JSON.stringify({ max_seq_length: 6 }) });
    const [vector] = await encoder.embed([TEXT], 'passage');
    assertClose(vector, unit(meanOf(encoderStates([101, 2004, 8197, 6657, 13416, 102]))));
  });

  it('reads at most the input length it is given, never more than the model was trained on', async () => {
    const temp = await makeTempDir();
    cleanups.push(temp.remove);
    await writeModelFolder(temp.dir, {
      model: encoderGraph(),
      config: encoderConfig('sentence-transformers/all-MiniLM-L6-v2'),
      files: { 'sentence_bert_config.json': JSON.stringify({ max_seq_length: 6 }) },
    });
    const cut = await OnnxEmbedder.load(temp.dir, { threads: 1, inputTokens: 4 });
    const longer = await OnnxEmbedder.load(temp.dir, { threads: 1, inputTokens: 9 });
    encoders.push(cut, longer);
    assertClose((await cut.embed([TEXT], 'passage'))[0], unit(meanOf(encoderStates([101, 2004, 8197, 102]))));
    assertClose((await longer.embed([TEXT], 'passage'))[0], unit(meanOf(encoderStates([101, 2004, 8197, 6657, 13416, 102]))), 'the folder says 6');
  });

  it('gives unit vectors that do not depend on the batch size or the padding of shorter texts', async () => {
    const one = await (await load('sentence-transformers/all-MiniLM-L6-v2', {}, 1)).embed(TEXTS, 'passage');
    const all = await (await load('sentence-transformers/all-MiniLM-L6-v2', {}, 16)).embed(TEXTS, 'passage');
    assert.equal(all.length, TEXTS.length);
    assert.deepEqual(all, one);
    for (const vector of all) assert.ok(Math.abs(Math.hypot(...vector) - 1) < 1e-6);
    assert.notDeepEqual(all[0], all[1]);
  });

  it('holds at most BATCH_TOKENS tokens a batch, padding included, so long abstracts do not take memory by the gigabyte', () => {
    const lengths = [...Array<number>(20).fill(12), ...Array<number>(6).fill(200), 300, 512, 700];
    const order = lengths.map((_, at) => at);
    const batches = inBatches(order, 16, { length: (at) => lengths[at], most: BATCH_TOKENS });
    assert.deepEqual(batches.flat(), order, 'every text once, in the order given');
    assert.deepEqual(batches.map((batch) => batch.length), [16, 4, 2, 2, 2, 1, 1, 1]);
    for (const batch of batches) {
      const tokens = batch.length * Math.max(...batch.map((at) => lengths[at]));
      assert.ok(batch.length === 1 || tokens <= BATCH_TOKENS, `a batch of ${batch.length} holds ${tokens} tokens`);
    }
  });

  it('refuses a pooling it does not do, naming the file', async () => {
    await assert.rejects(load('someone/unknown-encoder', { '1_Pooling/config.json': JSON.stringify({ pooling_mode_max_tokens: true }) }), (error: Error) => {
      assert.ok(error instanceof ModelError);
      assert.match(error.message, /1_Pooling\/config\.json asks for a pooling Attest does not do/);
      return true;
    });
  });
});
