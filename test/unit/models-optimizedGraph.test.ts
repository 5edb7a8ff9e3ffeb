import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as ort from 'onnxruntime-node';
import { OnnxEmbedder } from '../../src/core/models/embedder';
import { optimizedCopyOf, optimizedPaths, writeOptimizedCopy } from '../../src/core/models/optimizedGraph';
import { FIXTURES } from './helpers';
import { assertClose } from './support/onnx/expect';
import { writeModelFolder } from './support/onnx/folders';
import { encoderGraph } from './support/onnx/graphs';
import { makeTempDir } from './support/tempDir';

const TEXTS = ['Aspirin reduces the risk of stroke.', 'Most citations in the preprints we read were accurate, and none was fabricated.'];
const REAL_VALUED_INT8 = path.join(FIXTURES, 'encoders', 'float-encoder-int8.onnx');

/** A folder's names, the copy's weights named without their random part. */
async function listing(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).map((name) => name.replace(/\.optimized\.[0-9a-f]{8}\.data$/, '.optimized.WEIGHTS.data')).sort();
}

const WITH_COPY = ['model_quantized.onnx', 'model_quantized.optimized.WEIGHTS.data', 'model_quantized.optimized.json', 'model_quantized.optimized.onnx'];

describe('the optimised copy of an ONNX graph', () => {
  let temp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => (temp = await makeTempDir()));
  afterEach(() => temp.remove());

  async function vectors(dir: string): Promise<number[][]> {
    const encoder = await OnnxEmbedder.load(dir, { threads: 1, preferQuantized: true });
    try {
      return (await encoder.embed(TEXTS, 'passage')).map((vector) => [...vector]);
    } finally {
      await encoder.dispose();
    }
  }

  async function folder(model: Uint8Array, modelPath: string): Promise<{ dir: string; graph: string }> {
    const dir = await writeModelFolder(path.join(temp.dir, 'encoder'), {
      model,
      modelPath,
      config: { model_type: 'bert', _name_or_path: 'BAAI/bge-small-en-v1.5', max_position_embeddings: 512, pad_token_id: 0 },
    });
    return { dir, graph: path.join(dir, modelPath) };
  }

  it('is made beside an int8 graph, recording what it was made from, and gives the same vectors', async () => {
    const { dir, graph } = await folder(await fs.readFile(REAL_VALUED_INT8), 'onnx/model_quantized.onnx');
    const before = await vectors(dir);
    const copy = await writeOptimizedCopy(graph);

    assert.equal(copy, path.join(dir, 'onnx', 'model_quantized.optimized.onnx'));
    const record = JSON.parse(await fs.readFile(optimizedPaths(graph).record, 'utf8')) as Record<string, unknown>;
    assert.equal(record.onnxruntime, ort.env.versions.node ?? ort.env.versions.common);
    assert.equal(record.platform, `${process.platform}-${process.arch}`);
    assert.equal(record.size, (await fs.stat(graph)).size);
    const after = await vectors(dir);
    after.forEach((vector, at) => assertClose(vector, before[at], `text ${at}`));
    assert.deepEqual(await listing(path.join(dir, 'onnx')), WITH_COPY);
    assert.equal(record.weightsSize, (await fs.stat(path.join(dir, 'onnx', record.weights as string))).size, 'the weights are in a file of their own');
    assert.ok((record.weightsSize as number) > 0 && (await fs.stat(copy)).size < (await fs.stat(graph)).size, 'the copy holds the graph without its weights');

    await writeOptimizedCopy(graph);
    const again = JSON.parse(await fs.readFile(optimizedPaths(graph).record, 'utf8')) as Record<string, unknown>;
    assert.notEqual(again.weights, record.weights, 'each writing names its weights afresh');
    assert.deepEqual(await listing(path.join(dir, 'onnx')), WITH_COPY, 'the earlier weights are removed');
    (await vectors(dir)).forEach((vector, at) => assertClose(vector, before[at], `text ${at}, copy made again`));

    await fs.appendFile(path.join(dir, 'onnx', again.weights as string), 'more');
    const changed = await vectors(dir);
    changed.forEach((vector, at) => assertClose(vector, before[at], `text ${at}, weights of another size`));
    assert.equal(await optimizedCopyOf(graph), undefined, 'weights of another size than recorded leave the graph to load');
  });

  it('is written when a model Attest downloaded is loaded, and never in a folder loaded without asking for it', async () => {
    const { dir } = await folder(await fs.readFile(REAL_VALUED_INT8), 'onnx/model_quantized.onnx');
    const before = await vectors(dir);
    assert.deepEqual(await listing(path.join(dir, 'onnx')), ['model_quantized.onnx'], 'a user folder is only read');

    const encoder = await OnnxEmbedder.load(dir, { threads: 1, preferQuantized: true, optimize: true });
    const [first] = await encoder.embed(TEXTS.slice(0, 1), 'passage');
    await encoder.dispose();
    assert.deepEqual(await listing(path.join(dir, 'onnx')), WITH_COPY);
    assertClose(first, before[0]);
  });

  it('leaves the graph to load when the copy cannot be written, and clears partial copies a stopped process left', async () => {
    const { dir, graph } = await folder(encoderGraph(), 'model.onnx');
    const own = await vectors(dir);
    const { copy } = optimizedPaths(graph);
    await fs.mkdir(copy);
    const encoder = await OnnxEmbedder.load(dir, { threads: 1, optimize: true });
    const [first] = await encoder.embed(TEXTS.slice(0, 1), 'passage');
    await encoder.dispose();
    assertClose(first, own[0]);
    await fs.rmdir(copy);

    const left = `${copy}.0badc0de.tmp`;
    const writing = `${copy}.feedface.tmp`;
    const leftWeights = path.join(dir, 'model.optimized.0badc0de.data');
    await fs.writeFile(left, 'half a graph');
    await fs.writeFile(writing, 'another process is writing this');
    await fs.writeFile(leftWeights, 'the weights of a copy never finished');
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await fs.utimes(left, anHourAgo, anHourAgo);
    await fs.utimes(leftWeights, anHourAgo, anHourAgo);
    await writeOptimizedCopy(graph);
    assert.deepEqual((await fs.readdir(dir)).filter((name) => name.endsWith('.tmp')), [path.basename(writing)]);
    assert.ok(!(await fs.readdir(dir)).includes(path.basename(leftWeights)));
  });

  it('is loaded in place of its graph only while the graph is the one it was made from, and a broken copy is passed over', async () => {
    const { dir, graph } = await folder(encoderGraph(), 'model.onnx');
    const own = await vectors(dir);
    await writeOptimizedCopy(graph);
    const { copy } = optimizedPaths(graph);

    // Another graph standing in for the copy shows which of the two a session loads.
    await fs.copyFile(REAL_VALUED_INT8, copy);
    assert.deepEqual(await vectors(dir), own, 'a copy of another size than the record says is not trusted');
    const record = JSON.parse(await fs.readFile(optimizedPaths(graph).record, 'utf8')) as Record<string, unknown>;
    await fs.writeFile(optimizedPaths(graph).record, JSON.stringify({ ...record, copySize: (await fs.stat(copy)).size }));
    assert.notDeepEqual(await vectors(dir), own, 'the copy is loaded while its record matches');

    const later = new Date(Date.now() + 60_000);
    await fs.utimes(graph, later, later);
    assert.deepEqual(await vectors(dir), own, 'a graph changed since the copy was made is loaded itself');

    await writeOptimizedCopy(graph);
    await fs.writeFile(copy, 'not a graph');
    assert.deepEqual(await vectors(dir), own, 'a copy that cannot be loaded leaves the graph');
  });
});
