import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { OnnxEmbedder } from '../../../../src/core/models/embedder';
import { TextTokenizer } from '../../../../src/core/models/tokenizer';
import { FIXTURES } from '../../support/helpers';
import { makeTempDir } from '../../support/tempDir';

// Reference fixtures from scripts/encoder-reference.py: token ids from the Rust `tokenizers` package
// on 277 real sentences (Citation-Integrity and Check-COVID claims and abstracts, both MIT) and edge
// cases, and sentence vectors from onnxruntime's Python package on a small real-valued encoder graph.

const DIR = path.join(FIXTURES, 'encoders');

interface TokenizerReference {
  readonly files: Readonly<Record<string, string>>;
  readonly texts: readonly string[];
  readonly ids: readonly (readonly number[])[];
  readonly truncated: Readonly<Record<string, Readonly<Record<string, readonly number[]>>>>;
}

interface EmbeddingReference {
  readonly texts: readonly string[];
  /** By `model/kind`: one vector per text. */
  readonly vectors: Readonly<Record<string, readonly (readonly number[])[]>>;
}

const tokenizerReference = JSON.parse(readFileSync(path.join(DIR, 'tokenizer-reference.json'), 'utf8')) as TokenizerReference;
const embeddingReference = JSON.parse(readFileSync(path.join(DIR, 'embedding-reference.json'), 'utf8')) as EmbeddingReference;
/** The graph quantized as Xenova's int8 exports are, embedded by Python one text at a time. */
const int8Reference = JSON.parse(readFileSync(path.join(DIR, 'embedding-reference-int8.json'), 'utf8')) as EmbeddingReference;

function tokenizerJson(file: string): object {
  return JSON.parse(readFileSync(path.join(DIR, file), 'utf8')) as object;
}

describe("the real encoders' tokenizers against the Rust tokenizers package", () => {
  for (const [model, file] of Object.entries(tokenizerReference.files)) {
    describe(model, () => {
      const json = tokenizerJson(file);
      const full = new TextTokenizer(json, {}, 100_000, 0);

      it(`gives the Rust ids for all ${tokenizerReference.texts.length} texts`, () => {
        const differing = tokenizerReference.texts.filter((text, at) => JSON.stringify(full.encode(text).ids) !== JSON.stringify(tokenizerReference.ids[at]));
        assert.deepEqual(differing, []);
      });

      for (const [limit, cases] of Object.entries(tokenizerReference.truncated)) {
        it(`cuts the ${Object.keys(cases).length} longer texts at ${limit} tokens as Rust does`, () => {
          const cut = new TextTokenizer(json, {}, Number(limit), 0);
          assert.ok(Object.keys(cases).length > 0, 'some texts are longer than the limit');
          for (const [at, ids] of Object.entries(cases)) assert.deepEqual(cut.encode(tokenizerReference.texts[Number(at)]).ids, ids);
        });
      }
    });
  }
});

describe("sentence vectors against onnxruntime's Python package, to 1e-4", () => {
  let temp: { dir: string; remove: () => Promise<void> };
  before(async () => (temp = await makeTempDir()));
  after(() => temp.remove());

  const models: Readonly<Record<string, string>> = {
    'bge-small-en-v1.5': 'BAAI/bge-small-en-v1.5',
    'e5-small-v2': 'intfloat/e5-small-v2',
    'all-MiniLM-L6-v2': 'sentence-transformers/all-MiniLM-L6-v2',
  };

  async function loadFolder(model: string, graph: string, graphPath: string): Promise<OnnxEmbedder> {
    const dir = path.join(temp.dir, `${model}-${graph}`);
    await fs.mkdir(path.join(dir, 'onnx'), { recursive: true });
    await fs.copyFile(path.join(DIR, graph), path.join(dir, graphPath));
    await fs.copyFile(path.join(DIR, 'bge-small-en-v1.5', 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
    await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', _name_or_path: models[model], max_position_embeddings: 512, pad_token_id: 0 }));
    return OnnxEmbedder.load(dir, { threads: 1, batchSize: 5, preferQuantized: true });
  }

  async function assertMatches(encoder: OnnxEmbedder, reference: EmbeddingReference, model: string): Promise<void> {
    try {
      for (const kind of ['query', 'passage'] as const) {
        const expected = reference.vectors[`${model}/${kind}`];
        const actual = await encoder.embed(reference.texts, kind);
        actual.forEach((vector, at) => {
          const worst = Math.max(...vector.map((x, d) => Math.abs(x - expected[at][d])));
          assert.ok(worst < 1e-4, `${kind} ${at} (${JSON.stringify(reference.texts[at].slice(0, 40))}) differs by ${worst}`);
        });
      }
    } finally {
      await encoder.dispose();
    }
  }

  for (const model of Object.keys(models)) {
    it(`${model}: pooling, prefixes, truncation and normalisation as its name says, batched and padded`, async () => {
      await assertMatches(await loadFolder(model, 'float-encoder.onnx', 'onnx/model.onnx'), embeddingReference, model);
    });
  }

  // Dynamic quantization scales activations by the range of the whole batch, padding included: batched
  // with other texts, a text's int8 vector moved by up to 0.016 a dimension (bge-small-en-v1.5-int8).
  it('an int8 graph gives each text the vector it gets alone, whatever it is batched with', async () => {
    await assertMatches(await loadFolder('bge-small-en-v1.5', 'float-encoder-int8.onnx', 'onnx/model_quantized.onnx'), int8Reference, 'bge-small-en-v1.5');
  });
});
