import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { REPO_ROOT } from '../support/helpers';
import { ChatServer, type ChatReply, type ReceivedChat } from '../support/chatServer';
import { assertPlainLatex, assertPlainPandoc } from '../support/inserted';
import { nliConfig, writeModelFolder } from '../support/onnx/folders';
import { nliGraph } from '../support/onnx/graphs';
import { makeTempDir } from '../support/tempDir';

const CORPUS = path.join(REPO_ROOT, 'test/fixtures/papers/corpus.jsonl');

const DRAFT = [
  'Daily low-dose aspirin reduced the risk of ischaemic stroke by a fifth [1].',
  'Aspirin is widely used.',
  'Bleeding events rose \\input{/etc/passwd} [1].',
  'Smith et al. found the same [2].',
  'Aspirin also lowers stroke risk [9].',
  // Injected: its source shares none of its terms.
  'Vaccines cause autism [1].',
].join(' ');

interface Report {
  outcome: string;
  sources: { n: number; id: string; key: string; title: string }[];
  sentences: { text: string; status: string; citations: number[]; reason?: string }[];
  removed: { text: string; reason: string }[];
  insertion: string;
  bibtex: string[];
}

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

function script(request: ReceivedChat): ChatReply {
  const prompt = request.body.messages.map((m) => m.content).join('\n');
  return prompt.includes('Sources:') ? { text: DRAFT } : { text: '["aspirin stroke risk"]' };
}

describe('attest suggest', () => {
  let dir: string;
  let remove: () => Promise<void>;
  let store: string;
  let server: ChatServer;
  const saved = { key: process.env.ATTEST_LLM_API_KEY, nli: process.env.ATTEST_NLI_MODEL };

  before(async () => {
    ({ dir, remove } = await makeTempDir());
    store = path.join(dir, 'library');
    assert.equal((await run('index', 'add', CORPUS, '--store', store)).code, 0);
  });
  after(() => remove());

  beforeEach(async () => {
    server = await ChatServer.start(script);
    delete process.env.ATTEST_LLM_API_KEY;
    // Neither a model from the environment nor the built-in one: these runs judge as each test says.
    process.env.ATTEST_NLI_MODEL = 'none';
  });
  afterEach(async () => {
    await server.close();
    for (const [name, value] of [
      ['ATTEST_LLM_API_KEY', saved.key],
      ['ATTEST_NLI_MODEL', saved.nli],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  async function config(extra: Record<string, unknown> = {}): Promise<string> {
    const file = path.join(dir, 'settings.json');
    const settings = { 'attest.llm.baseUrl': server.baseUrl, 'attest.llm.model': 'scripted', 'attest.retrieval.liveSearch': false, 'attest.llm.timeoutSeconds': 5, ...extra };
    await fs.writeFile(file, JSON.stringify(settings));
    return file;
  }

  it('without a model to confirm sentences, inserts nothing by default, and the unconfirmed ones when asked', async () => {
    process.env.ATTEST_LLM_API_KEY = 'sk-test-key';
    const plain = await run('suggest', '--claim', 'Aspirin prevents strokes.', '--store', store, '--config', await config(), '--format', 'json');
    assert.equal(plain.code, 1, plain.err);
    const report = JSON.parse(plain.out) as Report;
    assert.equal(report.outcome, 'drafted');
    assert.equal(report.sources[0].id, 'aspirin-stroke');
    assert.deepEqual(
      report.sentences.map((s) => [s.text, s.status, s.citations]),
      [
        ['Daily low-dose aspirin reduced the risk of ischaemic stroke by a fifth.', 'unconfirmed', [1]],
        ['Aspirin is widely used.', 'uncited', []],
        ['Vaccines cause autism.', 'unrelated', [1]],
      ],
    );
    assert.deepEqual(
      report.removed.map((r) => r.reason),
      ['TeX markup', 'works named by "et al."', `it cites source 9, but there are ${report.sources.length} sources`],
    );
    assert.equal(report.insertion, '');
    assert.deepEqual(report.bibtex, []);
    // What is sent where, and the key with it.
    assert.match(plain.err, new RegExp(`sent to ${server.baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/chat/completions \\(model "scripted"\\)`));
    assert.match(plain.err, /live source searches are off/);
    assert.equal(server.received[0].headers.authorization, 'Bearer sk-test-key');

    const all = await run('suggest', '--claim', 'Aspirin prevents strokes.', '--store', store, '--config', await config(), '--accept', 'unconfirmed');
    assert.equal(all.code, 0, all.err);
    const accepted = JSON.parse(all.out) as Report;
    const key = accepted.sources[0].key;
    assert.equal(accepted.insertion, `Daily low-dose aspirin reduced the risk of ischaemic stroke by a fifth~\\cite{${key}}.`);
    assert.equal(accepted.bibtex.length, 1);
    assert.match(accepted.bibtex[0], new RegExp(`^@\\w+\\{${key},`));
    assertPlainLatex(accepted.insertion, 'cite', new Set([key]));
  });

  it("inserts the sentences an NLI model supports, in pandoc's style, reusing the keys of --bib", async () => {
    const model = await writeModelFolder(path.join(dir, 'nli'), { model: nliGraph(), config: nliConfig() });
    const bib = path.join(dir, 'refs.bib');
    await fs.writeFile(bib, '@article{mine2020,\n  title = {Daily aspirin and the risk of stroke},\n  author = {Nobody, A.},\n  year = {2020}\n}\n');
    // Thresholds that make every judged sentence supported: the model the test builds has no opinions.
    const settings = await config({ 'attest.support.entailmentThreshold': 0, 'attest.support.contradictionThreshold': 1 });
    const result = await run('suggest', '--claim', 'Aspirin prevents strokes.', '--store', store, '--config', settings, '--style', 'markdown', '--bib', bib, '--nli-model', model);
    assert.equal(result.code, 0, result.err);
    const report = JSON.parse(result.out) as Report;
    assert.equal(report.sentences[0].status, 'supported');
    assert.equal(report.sources[0].key, 'mine2020');
    assert.equal(report.insertion, 'Daily low-dose aspirin reduced the risk of ischaemic stroke by a fifth [@mine2020].');
    assert.deepEqual(report.bibtex, []);
    assertPlainPandoc(report.insertion, new Set(['mine2020']));
  });

  it('exits 2 with the reason on bad flags, a missing model setting and an endpoint that refuses', async () => {
    // A named pipe as the .bib: read with fs.readFile, it waited for a writer forever.
    const fifo = path.join(dir, 'pipe.bib');
    execFileSync('mkfifo', [fifo]);
    const cases: [string[], RegExp][] = [
      [['suggest'], /--claim TEXT is required/],
      [['suggest', '--claim', 'x', '--style', 'html'], /--style must be latex or markdown/],
      [['suggest', '--claim', 'x', '--accept', 'all'], /--accept must be supported or unconfirmed/],
      [['suggest', '--claim', 'x', '--format', 'text'], /--format must be json/],
      [['suggest', '--claim', 'x', '--config', path.join(dir, 'missing.json')], /cannot read config file/],
      [['suggest', '--claim', 'x', '--bib', path.join(dir, 'missing.bib'), '--config', await config()], /cannot read bibliography/],
      [['suggest', '--claim', 'x', '--bib', fifo, '--config', await config()], /cannot read bibliography .*named pipe/],
    ];
    for (const [args, message] of cases) {
      const result = await run(...args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.err, message);
      assert.equal(result.out, '');
    }
    const noModel = await run('suggest', '--claim', 'x', '--config', await config({ 'attest.llm.model': '' }));
    assert.equal(noModel.code, 2);
    assert.match(noModel.err, /no language model is configured/);

    await server.close();
    server = await ChatServer.start([{ status: 401, message: 'Incorrect API key provided' }]);
    const refused = await run('suggest', '--claim', 'Aspirin prevents strokes.', '--store', store, '--config', await config());
    assert.equal(refused.code, 2);
    assert.match(refused.err, /attest suggest: .*(key|401)/i);
    assert.equal(refused.out, '');
  });
});
