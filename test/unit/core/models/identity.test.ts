import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { contentDigest, modelName, sameModel, withContent } from '../../../../src/core/models/identity';
import { nliConfig, writeModelFolder } from '../../support/onnx/folders';
import { nliGraph } from '../../support/onnx/graphs';
import { makeTempDir } from '../../support/tempDir';

describe("a model's content identity", () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ dir, remove } = await makeTempDir()));
  afterEach(() => remove());

  /** Rewrites `file` with `bytes`, keeping its time, as a copy that preserves times does. */
  async function replaceKeepingTime(file: string, bytes: Uint8Array): Promise<void> {
    const { atime, mtime } = await fs.stat(file);
    await fs.writeFile(file, bytes);
    await fs.utimes(file, atime, mtime);
  }

  it('tells apart graphs of the same size and time that differ at either end, and not two reads of one folder', async () => {
    const folder = await writeModelFolder(path.join(dir, 'judge'), { model: nliGraph(), config: nliConfig() });
    const graph = path.join(folder, 'model.onnx');
    const before = await contentDigest(folder);
    assert.equal(await contentDigest(folder), before);
    const bytes = new Uint8Array(await fs.readFile(graph));
    bytes[bytes.length - 1] ^= 1;
    await replaceKeepingTime(graph, bytes);
    assert.notEqual(await contentDigest(folder), before);

    // A graph past two megabytes: the middle is not read, the last megabyte is.
    const large = new Uint8Array(3 << 20);
    await replaceKeepingTime(graph, large);
    const largeDigest = await contentDigest(folder);
    large[large.length - 10] = 7;
    await replaceKeepingTime(graph, large);
    assert.notEqual(await contentDigest(folder), largeDigest);
  });

  it('changes with the tokenizer, the configuration and attest.json', async () => {
    const folder = await writeModelFolder(path.join(dir, 'judge'), { model: nliGraph(), config: nliConfig() });
    const seen = new Set([await contentDigest(folder)]);
    for (const [name, text] of [['tokenizer_config.json', '{"model_max_length": 128}'], ['attest.json', '{"premise": "abstract", "thresholds": {"entailment": 0.5, "contradiction": 0.8}}']]) {
      await fs.writeFile(path.join(folder, name), text);
      seen.add(await contentDigest(folder));
    }
    await replaceKeepingTime(path.join(folder, 'config.json'), new TextEncoder().encode(JSON.stringify(nliConfig({ 0: 'contradiction', 1: 'entailment', 2: 'neutral' }))));
    seen.add(await contentDigest(folder));
    assert.equal(seen.size, 4);
  });

  it('keys results by name and content, and takes a key without content as the name it gives', () => {
    const key = withContent('judge', '0123456789abcdef');
    assert.equal(modelName(key), 'judge');
    assert.equal(modelName('Xenova/bge-small-en-v1.5'), 'Xenova/bge-small-en-v1.5');
    assert.ok(sameModel(key, key));
    assert.ok(sameModel('judge', key), 'a key written before keys had content');
    assert.ok(!sameModel(withContent('judge', 'fedcba9876543210'), key));
    assert.ok(!sameModel('other', key));
  });
});
