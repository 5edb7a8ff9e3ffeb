import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as ort from 'onnxruntime-node';
import { OnnxEmbedder } from '../../../../src/core/models/embedder';
import { copiesFolderOf } from '../../../../src/core/models/copiesFolder';
import { optimizedCopyOf, optimizedRecord, writeOptimizedCopy } from '../../../../src/core/models/optimizedGraph';
import { FIXTURES } from '../../support/helpers';
import { assertClose } from '../../support/onnx/expect';
import { writeModelFolder } from '../../support/onnx/folders';
import { encoderGraph } from '../../support/onnx/graphs';
import { makeTempDir } from '../../support/tempDir';

const TEXTS = ['Aspirin reduces the risk of stroke.', 'Most citations in the preprints we read were accurate, and none was fabricated.'];
const REAL_VALUED_INT8 = path.join(FIXTURES, 'encoders', 'float-encoder-int8.onnx');

/** A folder's names, a copy's named without the id each writing gives it. */
async function listing(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).map((name) => name.replace(/\.optimized\.[0-9a-f]{8}\./, '.optimized.ID.')).sort();
}

const WITH_COPY = ['model_quantized.onnx', 'model_quantized.optimized.ID.data', 'model_quantized.optimized.ID.onnx', 'model_quantized.optimized.json'];

async function record(graph: string): Promise<Record<string, unknown>> {
  return JSON.parse(await fs.readFile(optimizedRecord(graph), 'utf8')) as Record<string, unknown>;
}

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

  it('is made beside an int8 graph, its weights apart, recording what it was made from, and gives the same vectors', async () => {
    const { dir, graph } = await folder(await fs.readFile(REAL_VALUED_INT8), 'onnx/model_quantized.onnx');
    const before = await vectors(dir);
    const copy = await writeOptimizedCopy(graph);

    const made = await record(graph);
    assert.equal(copy, path.join(dir, 'onnx', `model_quantized.optimized.${String(made.id)}.onnx`));
    assert.equal(await optimizedCopyOf(graph), copy);
    assert.equal(made.onnxruntime, ort.env.versions.node ?? ort.env.versions.common);
    assert.equal(made.platform, `${process.platform}-${process.arch}`);
    assert.equal(made.size, (await fs.stat(graph)).size);
    const weights = copy.replace(/\.onnx$/, '.data');
    assert.equal(made.weightsSize, (await fs.stat(weights)).size);
    assert.ok((await fs.stat(copy)).size < (await fs.stat(graph)).size, 'the copy holds the graph without its weights');
    assert.deepEqual(await listing(path.join(dir, 'onnx')), WITH_COPY);
    (await vectors(dir)).forEach((vector, at) => assertClose(vector, before[at], `text ${at}`));

    const again = await writeOptimizedCopy(graph);
    assert.notEqual(again, copy, 'each writing names its copy afresh');
    assert.deepEqual(await listing(path.join(dir, 'onnx')), WITH_COPY, 'the copy it replaces is removed');
    (await vectors(dir)).forEach((vector, at) => assertClose(vector, before[at], `text ${at}, copy made again`));

    await fs.appendFile(again.replace(/\.onnx$/, '.data'), 'more');
    assert.equal(await optimizedCopyOf(graph), undefined, 'weights of another size than recorded leave the graph to load');
    (await vectors(dir)).forEach((vector, at) => assertClose(vector, before[at], `text ${at}, weights of another size`));
  });

  it('is written where the loader keeps copies (beside a model Attest downloaded, in its storage for one it ships), never in a folder the user named', async () => {
    const { dir, graph } = await folder(await fs.readFile(REAL_VALUED_INT8), 'onnx/model_quantized.onnx');
    const files = async (): Promise<string[]> => [...(await listing(dir)), ...(await listing(path.join(dir, 'onnx')))];
    const asNamed = await files();
    const before = await vectors(dir);
    assert.deepEqual(await files(), asNamed, 'a user folder is only read');

    const embedOnce = async (optimizedCopies: string): Promise<Float32Array> => {
      const encoder = await OnnxEmbedder.load(dir, { threads: 1, preferQuantized: true, optimizedCopies });
      try {
        return (await encoder.embed(TEXTS.slice(0, 1), 'passage'))[0];
      } finally {
        await encoder.dispose();
      }
    };
    const storage = path.join(temp.dir, 'storage', 'optimized', 'encoder');
    assertClose(await embedOnce(storage), before[0]);
    assert.deepEqual(await files(), asNamed, 'the model folder is left as it was');
    assert.deepEqual(await listing(storage), WITH_COPY.filter((name) => name !== 'model_quantized.onnx'), 'in the folder given');
    const copy = await optimizedCopyOf(graph, storage);
    assert.ok(copy !== undefined && copy.startsWith(storage), 'the next load finds it there');

    assertClose(await embedOnce(dir), before[0]);
    const copyFiles = WITH_COPY.filter((name) => name !== 'model_quantized.onnx');
    assert.deepEqual((await listing(dir)).filter((name) => name.includes('.optimized.')), copyFiles, 'in the folder of the model it downloaded');
  });

  it('leaves the graph to load and nothing behind when the copy cannot be recorded, and clears what a stopped process left', async () => {
    const { dir, graph } = await folder(encoderGraph(), 'model.onnx');
    const own = await vectors(dir);
    const files = await fs.readdir(dir);
    await fs.mkdir(optimizedRecord(graph));
    const encoder = await OnnxEmbedder.load(dir, { threads: 1, optimizedCopies: dir });
    const [first] = await encoder.embed(TEXTS.slice(0, 1), 'passage');
    await encoder.dispose();
    assertClose(first, own[0]);
    assert.deepEqual((await fs.readdir(dir)).sort(), [...files, path.basename(optimizedRecord(graph))].sort(), 'no copy is left that no record names');
    await fs.rmdir(optimizedRecord(graph));

    const anHourAgo = new Date(Date.now() - 3_600_000);
    const left = ['model.optimized.0badc0de.onnx', 'model.optimized.0badc0de.data', 'model.optimized.json.0badc0de.tmp'];
    for (const name of left) {
      await fs.writeFile(path.join(dir, name), 'half written');
      await fs.utimes(path.join(dir, name), anHourAgo, anHourAgo);
    }
    const writing = 'model.optimized.feedface.data';
    await fs.writeFile(path.join(dir, writing), 'another process is writing this');
    const copy = await writeOptimizedCopy(graph);
    const names = await fs.readdir(dir);
    assert.ok(left.every((name) => !names.includes(name)), names.join(', '));
    assert.ok(names.includes(writing) && names.includes(path.basename(copy)));
  });

  it('is loaded in place of its graph only while the graph is the one it was made from, and a broken copy is passed over', async () => {
    const { dir, graph } = await folder(encoderGraph(), 'model.onnx');
    const own = await vectors(dir);
    const copy = await writeOptimizedCopy(graph);
    const sized = async (): Promise<void> => fs.writeFile(optimizedRecord(graph), JSON.stringify({ ...(await record(graph)), copySize: (await fs.stat(copy)).size }));

    // Another graph standing in for the copy shows which of the two a session loads.
    await fs.copyFile(REAL_VALUED_INT8, copy);
    assert.deepEqual(await vectors(dir), own, 'a copy of another size than the record says is not trusted');
    await sized();
    assert.notDeepEqual(await vectors(dir), own, 'the copy is loaded while its record matches');

    const later = new Date(Date.now() + 60_000);
    await fs.utimes(graph, later, later);
    assert.deepEqual(await vectors(dir), own, 'a graph changed since the copy was made is loaded itself');

    const remade = await writeOptimizedCopy(graph);
    await fs.writeFile(remade, 'not a graph');
    await fs.writeFile(optimizedRecord(graph), JSON.stringify({ ...(await record(graph)), copySize: (await fs.stat(remade)).size }));
    assert.equal(await optimizedCopyOf(graph), remade);
    assert.deepEqual(await vectors(dir), own, 'a copy that cannot be loaded leaves the graph');
  });

  it('is written by one writer at a time, and left whole, loadable and single by writers racing each other', async () => {
    const { dir, graph } = await folder(await fs.readFile(REAL_VALUED_INT8), 'onnx/model_quantized.onnx');
    const before = await vectors(dir);
    const writings = await Promise.allSettled([writeOptimizedCopy(graph), writeOptimizedCopy(graph), writeOptimizedCopy(graph)]);
    const written = writings.flatMap((writing) => (writing.status === 'fulfilled' ? [writing.value] : []));
    const refused = writings.flatMap((writing) => (writing.status === 'rejected' ? [(writing.reason as Error).message] : []));
    assert.ok(written.length >= 1 && refused.every((message) => /another process is writing/.test(message)), refused.join('; '));
    const kept = await optimizedCopyOf(graph);
    assert.ok(kept !== undefined && written.includes(kept), 'the record names a copy written');
    assert.deepEqual(await listing(path.join(dir, 'onnx')), WITH_COPY, 'no copy is left that no record names');
    (await vectors(dir)).forEach((vector, at) => assertClose(vector, before[at], `text ${at}`));

    // A lock as proper-lockfile leaves one: a folder.
    const lock = `${optimizedRecord(graph)}.lock`;
    await fs.mkdir(lock);
    await assert.rejects(writeOptimizedCopy(graph), /another process is writing/);
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await fs.utimes(lock, anHourAgo, anHourAgo);
    assert.notEqual(await writeOptimizedCopy(graph), kept, 'a lock a stopped process left is taken over');
    assert.deepEqual(await listing(path.join(dir, 'onnx')), WITH_COPY);
  });

  it('is kept, for a model Attest ships, in a folder of its storage per version, the folders of earlier versions removed', async () => {
    const parent = path.join(temp.dir, 'storage', 'optimized');
    const earlier = path.join(parent, 'attest-nli-0badc0de');
    const others = [path.join(parent, 'attest-nli-large-12345678'), path.join(parent, 'attest-rerank-0badc0de')];
    for (const folder of [earlier, ...others]) await fs.mkdir(folder, { recursive: true });
    const folder = await copiesFolderOf(parent, '/opt/attest-0.2.0/models/attest-nli');
    assert.match(path.basename(folder), /^attest-nli-[0-9a-f]{8}$/);
    assert.notEqual(folder, await copiesFolderOf(parent, '/opt/attest-0.3.0/models/attest-nli'), 'another version keeps its own');
    assert.deepEqual((await fs.readdir(parent)).sort(), others.map((other) => path.basename(other)).sort(), 'other models are left alone');
    const notYet = path.join(temp.dir, 'not made yet');
    assert.equal(path.dirname(await copiesFolderOf(notYet, '/opt/attest/models/attest-rerank')), notYet, 'a storage folder not made yet is no error');
  });
});
