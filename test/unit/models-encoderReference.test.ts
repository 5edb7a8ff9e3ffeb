import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { OnnxEmbedder } from '../../src/core/models/embedder';
import { TextTokenizer } from '../../src/core/models/tokenizer';
import { FIXTURES } from './helpers';
import { makeTempDir } from './support/tempDir';

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

  for (const [model, nameOrPath] of Object.entries(models)) {
    it(`${model}: pooling, prefixes, truncation and normalisation as its name says, batched and padded`, async () => {
      const dir = path.join(temp.dir, model);
      await fs.mkdir(path.join(dir, 'onnx'), { recursive: true });
      await fs.copyFile(path.join(DIR, 'float-encoder.onnx'), path.join(dir, 'onnx', 'model.onnx'));
      await fs.copyFile(path.join(DIR, 'bge-small-en-v1.5', 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
      await fs.writeFile(path.join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', _name_or_path: nameOrPath, max_position_embeddings: 512, pad_token_id: 0 }));
      const encoder = await OnnxEmbedder.load(dir, { threads: 1, batchSize: 5 });
      try {
        for (const kind of ['query', 'passage'] as const) {
          const expected = embeddingReference.vectors[`${model}/${kind}`];
          const actual = await encoder.embed(embeddingReference.texts, kind);
          actual.forEach((vector, at) => {
            const worst = Math.max(...vector.map((x, d) => Math.abs(x - expected[at][d])));
            assert.ok(worst < 1e-4, `${kind} ${at} (${JSON.stringify(embeddingReference.texts[at].slice(0, 40))}) differs by ${worst}`);
          });
        }
      } finally {
        await encoder.dispose();
      }
    });
  }
});
