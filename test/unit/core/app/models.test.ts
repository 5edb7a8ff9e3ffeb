import assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { type ModelKind, type ModelRequest, type ModelsHost, LocalModel } from '../../../../src/core/app/localModel';
import { createModels, encoderKind } from '../../../../src/core/app/models';
import { readSettings } from '../../../../src/core/app/settings';
import type { ModelOptions } from '../../../../src/core/models/options';
import { REPO_ROOT } from '../../support/helpers';
import { writeModelFolder } from '../../support/onnx/folders';
import { makeTempDir } from '../../support/tempDir';

/** What a kind makes: the folder and options it was made from, and how often it was disposed of. */
class MadeModel {
  disposed = 0;

  constructor(
    readonly dir: string,
    readonly options: ModelOptions,
  ) {}

  async dispose(): Promise<void> {
    this.disposed++;
  }
}

/** An NLI-like kind that records each model it makes instead of starting ONNX Runtime. */
function recordingKind(builtIn?: string): { kind: ModelKind<MadeModel>; made: MadeModel[] } {
  const made: MadeModel[] = [];
  const kind: ModelKind<MadeModel> = {
    section: 'attest.nli',
    builtIn: async () => builtIn,
    start: async (dir, options) => {
      const model = new MadeModel(dir, options);
      made.push(model);
      return model;
    },
  };
  return { kind, made };
}

/** The files of a quantized ONNX export, as a download leaves them; `name` is its config.json's `_name_or_path`. */
async function exportFolder(dir: string, name: string): Promise<string> {
  const files: Record<string, string> = {
    'config.json': JSON.stringify({ _name_or_path: name }),
    'tokenizer.json': '{}',
    'tokenizer_config.json': '{}',
    'onnx/model_quantized.onnx': `graph of ${name}`,
  };
  for (const [file, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await fs.writeFile(path.join(dir, file), content);
  }
  return dir;
}

/** A host that keeps models in `folder`, as the editor does, and writes down what it was asked and told. */
function keepingHost(folder: string, base: string, consent: (repo: string) => Promise<boolean>): { host: ModelsHost; said: string[] } {
  const said: string[] = [];
  const host: ModelsHost = {
    base: () => base,
    folderName: (dir) => dir,
    downloads: {
      folder,
      consent: (repo, section) => {
        said.push(`consent ${repo} ${section}`);
        return consent(repo);
      },
      // The user's download, played by putting the export where the hub's files go.
      withProgress: async (repo) => {
        said.push(`download ${repo}`);
        await exportFolder(path.join(folder, 'models', repo), repo);
        return true;
      },
      offer: (repo, section) => void said.push(`offer ${repo} ${section}`),
    },
    failed: (error) => void said.push(`failed ${error.message}`),
  };
  return { host, said };
}

describe('core models: the folder a setting leads to, loaded once', () => {
  let dir: string;
  let remove: () => Promise<void>;
  let builtIn: string;
  let storage: string;

  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir());
    builtIn = await exportFolder(path.join(dir, 'package', 'models', 'attest-nli'), 'attest-nli-test');
    storage = path.join(dir, 'storage');
  });
  afterEach(() => remove());

  const setting =
    (model: string): (() => ModelRequest) =>
    () => ({ model, preferQuantized: true, threads: 2 });

  it('takes the built-in model while the setting is empty, named as built in, its optimised copy kept in the host’s folder', async () => {
    const { kind, made } = recordingKind(builtIn);
    const { host } = keepingHost(storage, dir, async () => true);
    const loaded = await new LocalModel(kind, host, setting('')).get();
    assert.equal(loaded?.name, 'attest-nli-test (built in)');
    assert.match(loaded?.id ?? '', /^attest-nli-test \(built in\)#content:[0-9a-f]{16}$/);
    assert.equal(made[0].dir, builtIn);
    assert.equal(made[0].options.threads, 2);
    assert.ok(made[0].options.optimizedCopies?.startsWith(path.join(storage, 'optimized', 'attest-nli-')), made[0].options.optimizedCopies);
  });

  it('has none while the setting is empty and this copy of Attest has no built-in model', async () => {
    const { kind, made } = recordingKind(undefined);
    const model = new LocalModel(kind, keepingHost(storage, dir, async () => true).host, setting(''));
    assert.equal(await model.get(), undefined);
    assert.equal(await model.absence(), 'not-configured');
    assert.equal(made.length, 0);
  });

  it('lets the built-in model stand in for a hub model set but not downloaded, and offers the download without asking', async () => {
    const { kind, made } = recordingKind(builtIn);
    const { host, said } = keepingHost(storage, dir, async () => true);
    const model = new LocalModel(kind, host, setting('someone/nli-model'));
    assert.equal(await model.absence(), undefined);
    const loaded = await model.withoutAsking();
    assert.equal(loaded?.name, 'attest-nli-test (built in)');
    assert.equal(made[0].dir, builtIn);
    assert.deepEqual(said, ['offer someone/nli-model attest.nli']);
  });

  it('asks once before downloading a hub model when nothing stands in; a No leaves none until the setting changes', async () => {
    const { kind, made } = recordingKind(undefined);
    const { host, said } = keepingHost(storage, dir, async () => false);
    const model = new LocalModel(kind, host, setting('someone/nli-model'));
    assert.equal(await model.absence(), 'not-downloaded');
    assert.equal(await model.withoutAsking(), undefined);
    assert.deepEqual(said, [], 'work that must not wait never asks');
    assert.equal(await model.get(), undefined);
    assert.equal(await model.get(), undefined);
    assert.deepEqual(said, ['consent someone/nli-model attest.nli']);
    await model.reset();
    assert.equal(await model.get(), undefined);
    assert.equal(said.length, 2);
    assert.equal(made.length, 0);
  });

  it('takes the download command, while the prompt waits, for a Yes: the model is downloaded into the host’s folder and loaded from it', async () => {
    const { kind, made } = recordingKind(undefined);
    const { host, said } = keepingHost(storage, dir, () => new Promise<boolean>(() => undefined));
    const model = new LocalModel(kind, host, setting('someone/nli-model'));
    const asked = model.get();
    while (said.length === 0) await new Promise((resolve) => setImmediate(resolve));
    const downloaded = await model.download();
    assert.equal(await asked, downloaded);
    const folder = path.join(storage, 'models', 'someone', 'nli-model');
    assert.deepEqual(said, ['consent someone/nli-model attest.nli', 'download someone/nli-model']);
    assert.equal(downloaded?.name, 'someone/nli-model');
    assert.match(downloaded?.id ?? '', /^someone\/nli-model#content:[0-9a-f]{16}$/);
    assert.equal(made[0].dir, folder);
    assert.equal(made[0].options.optimizedCopies, path.join(folder, 'onnx'));
  });

  it('reports a folder that holds no model to the host, with what to do, and starts nothing; without a report the error is the caller’s', async () => {
    const { kind, made } = recordingKind(builtIn);
    const { host, said } = keepingHost(storage, dir, async () => true);
    assert.equal(await new LocalModel(kind, host, setting('./missing')).get(), undefined);
    assert.equal(said.length, 1);
    assert.match(said[0], /^failed The model folder .*missing does not exist\. Check the path/);
    assert.ok(said[0].includes(path.join(dir, 'missing')), 'a relative folder is the host’s base’s');
    const terminal: ModelsHost = { base: () => dir, folderName: (folder) => path.basename(folder) };
    await assert.rejects(new LocalModel(kind, terminal, setting('missing')).get(), { name: 'ModelError', message: /does not exist/ });
    assert.equal(made.length, 0);
  });

  it('names a folder’s model as the host does and keys it by content, so another model in the same folder is another model', async () => {
    const { kind } = recordingKind(undefined);
    const terminal: ModelsHost = { base: () => dir, folderName: (folder) => path.basename(folder) };
    const folder = await exportFolder(path.join(dir, 'judge'), 'first');
    const first = await new LocalModel(kind, terminal, setting('judge')).get();
    assert.equal(first?.name, 'judge');
    await exportFolder(folder, 'retrained');
    const second = await new LocalModel(kind, terminal, setting('judge')).get();
    assert.equal(second?.name, 'judge');
    assert.notEqual(first?.id, second?.id);
  });

  it('names and keys an encoder by the input it reads: one cut below its own length is another encoder, one at it the same', async () => {
    const folder = await writeModelFolder(path.join(dir, 'minilm'), {
      model: new Uint8Array([1]),
      config: { model_type: 'bert', _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2', max_position_embeddings: 512 },
    });
    const opened: ModelOptions[] = [];
    const kind = encoderKind(async (_dir, options) => {
      opened.push(options);
      return { embed: async () => [], dispose: async () => undefined };
    });
    const terminal: ModelsHost = { base: () => dir, folderName: (named) => path.basename(named) };
    const reading = (inputTokens?: number) => new LocalModel(kind, terminal, () => ({ model: folder, preferQuantized: false, inputTokens })).get();
    const [own, atOwn, cut, cutAgain] = [await reading(), await reading(256), await reading(128), await reading(128)];
    assert.equal(cut?.name, 'minilm (128 tokens)');
    assert.equal(atOwn?.name, 'minilm', 'all-MiniLM-L6-v2 was trained on 256 tokens: reading 256 is what it always did');
    assert.equal(atOwn?.id, own?.id);
    assert.notEqual(cut?.id, own?.id);
    assert.equal(cut?.id, cutAgain?.id);
    assert.deepEqual(
      opened.map((options) => options.inputTokens),
      [undefined, 256, 128, 128],
    );
  });

  it('loads once however many ask; a changed setting disposes of the old model, and the next use loads the new one', async () => {
    const { kind, made } = recordingKind(builtIn);
    const { host } = keepingHost(storage, dir, async () => true);
    let model = '';
    const local = new LocalModel(kind, host, () => ({ model, preferQuantized: true, threads: 1 }));
    const [a, b, c] = await Promise.all([local.get(), local.get(), local.withoutAsking()]);
    assert.equal(made.length, 1);
    assert.ok(a === b && b === c);
    model = await exportFolder(path.join(dir, 'other'), 'other');
    await local.reset();
    assert.equal(made[0].disposed, 1);
    assert.equal((await local.get())?.name, model);
    assert.equal(made.length, 2);
    await local.dispose();
    assert.equal(made[1].disposed, 1);
  });

  it('sets the reranker up as the built-in one unless the setting turns it off, its copy kept in the host’s folder', async function () {
    if (!existsSync(path.join(REPO_ROOT, 'models', 'attest-rerank', 'onnx', 'model_quantized.onnx'))) this.skip();
    const { host } = keepingHost(storage, dir, async () => true);
    const settings = (values: Record<string, unknown>) => readSettings((key) => values[key], { base: dir });
    const models = createModels(host, () => settings({}));
    const setup = await models.reranker(settings({ 'attest.retrieval.encoder.threads': 3 }));
    assert.equal(setup?.dir, path.join(REPO_ROOT, 'models', 'attest-rerank'));
    assert.equal(setup?.threads, 3);
    assert.ok(setup?.optimizedCopies?.startsWith(path.join(storage, 'optimized', 'attest-rerank-')));
    assert.equal(await models.reranker(settings({ 'attest.retrieval.rerank': false })), undefined);
  });
});
