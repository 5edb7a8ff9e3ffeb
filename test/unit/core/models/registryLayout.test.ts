import AdmZip from 'adm-zip';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isLaidOut, layOutEncoder, type RegistryEncoder } from '../../../../bench/encoders/registry';
import { OnnxEmbedder } from '../../../../src/core/models/embedder';
import { readEncoderConfig } from '../../../../src/core/models/encoderConfig';
import { readModelFolder } from '../../../../src/core/models/folder';
import { MINILM_TOKENIZER, writeModelFolder } from '../../support/onnx/folders';
import { encoderGraph } from '../../support/onnx/graphs';
import { makeTempDir } from '../../support/tempDir';

// `npm run models:fetch` lays a registry's jar out as a model folder (bench/encoders/registry.ts).
// Here a jar shaped like langchain4j's (graph and tokenizer under their own names) holds a small
// built encoder, so the test needs neither the network nor the real 25 MB jar.

const TEXTS = ['Aspirin reduces the risk of stroke.', 'Statins lower LDL cholesterol in most adults.'];

function jarOf(graph: Uint8Array): Buffer {
  const zip = new AdmZip();
  zip.addFile('README', Buffer.from('ONNX model file: https://huggingface.co/Xenova/bge-small-en-v1.5'));
  zip.addFile('bge-small-en-v1.5-q.onnx', Buffer.from(graph));
  zip.addFile('bge-small-en-v1.5-q-tokenizer.json', readFileSync(MINILM_TOKENIZER));
  return zip.toBuffer();
}

function pinned(jar: Buffer): RegistryEncoder {
  return {
    name: 'bge-small-en-v1.5-int8',
    jarPath: 'dev/langchain4j/test/test.jar',
    sha256: createHash('sha256').update(jar).digest('hex'),
    bytes: jar.length,
    graphEntry: 'bge-small-en-v1.5-q.onnx',
    tokenizerEntry: 'bge-small-en-v1.5-q-tokenizer.json',
    quantized: true,
    nameOrPath: 'BAAI/bge-small-en-v1.5',
    licence: 'MIT',
  };
}

describe("models:fetch's layout of a registry's jar", () => {
  let temp: { dir: string; remove: () => Promise<void> };
  beforeEach(async () => (temp = await makeTempDir()));
  afterEach(() => temp.remove());

  it('is read by the same loader as a Hugging Face export, and embeds as that export does', async () => {
    const jar = jarOf(encoderGraph());
    const laidOut = await layOutEncoder(jar, pinned(jar), temp.dir);
    const hub = await writeModelFolder(path.join(temp.dir, 'hub-export'), {
      model: encoderGraph(),
      modelPath: 'onnx/model_quantized.onnx',
      config: { model_type: 'bert', _name_or_path: 'BAAI/bge-small-en-v1.5', max_position_embeddings: 512, pad_token_id: 0 },
    });

    const folder = await readModelFolder(laidOut, { preferQuantized: true });
    assert.equal(path.relative(laidOut, folder.modelFile), path.join('onnx', 'model_quantized.onnx'));
    assert.equal(folder.config.maxLength, 512);
    const config = await readEncoderConfig(folder);
    assert.equal(config.pooling, 'cls', 'config.json names bge, whose pooling is known by name');
    assert.equal(config.queryPrefix, '', 'bge embeds claims without its optional instruction');

    const vectors = async (dir: string, kind: 'query' | 'passage'): Promise<number[][]> => {
      const encoder = await OnnxEmbedder.load(dir, { threads: 1 });
      try {
        return (await encoder.embed(TEXTS, kind)).map((v) => [...v]);
      } finally {
        await encoder.dispose();
      }
    };
    for (const kind of ['query', 'passage'] as const) assert.deepEqual(await vectors(laidOut, kind), await vectors(hub, kind));
    assert.ok(await isLaidOut(pinned(jar), temp.dir));
  });

  it('refuses a jar that is not the one pinned, and leaves no folder behind', async () => {
    const jar = jarOf(encoderGraph());
    const other = jarOf(new Uint8Array([1, 2, 3]));
    await assert.rejects(layOutEncoder(other, pinned(jar), temp.dir), /SHA-256 [0-9a-f]{64}, not the pinned/);
    assert.deepEqual(await fs.readdir(temp.dir), []);
  });

  it('refuses a pinned jar without the graph it names, leaving nothing', async () => {
    const zip = new AdmZip();
    zip.addFile('bge-small-en-v1.5-q-tokenizer.json', readFileSync(MINILM_TOKENIZER));
    const jar = zip.toBuffer();
    await assert.rejects(layOutEncoder(jar, pinned(jar), temp.dir), /has no bge-small-en-v1\.5-q\.onnx/);
    assert.deepEqual(await fs.readdir(temp.dir), []);
  });
});
