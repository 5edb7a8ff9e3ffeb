import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../src/cli/main';
import { askedReranker, replacingVectors } from '../../../src/cli/encoder';
import { REPO_ROOT } from '../support/helpers';
import { writeModelFolder } from '../support/onnx/folders';
import { encoderGraph, nliGraph } from '../support/onnx/graphs';
import { OnnxReranker } from '../../../src/core/models/reranker';
import { builtInRerankerFolder } from '../../../src/core/models/builtIn';
import { PaperLibrary } from '../../../src/core/index/library';
import { passageText } from '../../../src/core/index/passages';
import { papersFromJsonLines } from '../../../src/core/papers/import';
import { makeTempDir } from '../support/tempDir';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/papers');
const CORPUS = path.join(FIXTURES, 'corpus.jsonl');
const QUERIES = path.join(FIXTURES, 'queries.jsonl');

interface Line {
  query_id: string | number | null;
  results: { id: string; score: number; sentence: string | null }[];
}

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

function lines(out: string): Line[] {
  return out
    .split('\n')
    .filter((l) => l)
    .map((l) => JSON.parse(l) as Line);
}

describe('attest index and attest search', () => {
  let dir: string;
  let store: string;
  let remove: () => Promise<void>;
  const savedEnv = process.env.ATTEST_EMBED_MODEL;

  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir());
    store = path.join(dir, 'library');
    delete process.env.ATTEST_EMBED_MODEL;
  });
  afterEach(async () => {
    if (savedEnv === undefined) delete process.env.ATTEST_EMBED_MODEL;
    else process.env.ATTEST_EMBED_MODEL = savedEnv;
    await remove();
  });

  async function encoderFolder(): Promise<string> {
    return writeModelFolder(path.join(dir, 'all-MiniLM-L6-v2'), {
      model: encoderGraph(),
      config: { model_type: 'bert', _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2', max_position_embeddings: 512, pad_token_id: 0 },
    });
  }

  it('reorders the top of the ranking by a reranker given with --rerank-model', async () => {
    assert.equal((await run('index', 'add', CORPUS, '--store', store)).code, 0);
    const reranker = await writeModelFolder(path.join(dir, 'reranker'), {
      model: nliGraph({ labels: 1, tokenTypes: true }),
      config: { model_type: 'bert', max_position_embeddings: 512, pad_token_id: 0, id2label: { 0: 'LABEL_0' } },
      files: { 'rerank.json': '{"depth": 10, "weight": 1}' },
    });
    const claim = 'risk in older adults';
    const byWords = lines((await run('search', '--store', store, '--query', claim)).out)[0].results;
    const { code, out, err } = await run('search', '--store', store, '--query', claim, '--rerank-model', reranker);
    assert.equal(code, 0, err);
    // Weight 1: the order is the reranker's own scores' of the papers the words found.
    const scorer = await OnnxReranker.load(reranker, { threads: 1 });
    const papers = new Map(papersFromJsonLines(await fs.readFile(CORPUS, 'utf8')).papers.map((p) => [p.id, p]));
    const scores = await scorer.score(
      claim,
      byWords.map((r) => passageText(papers.get(r.id) ?? { id: r.id, title: '', authors: [] })),
    );
    await scorer.dispose();
    const expected = byWords
      .map((r, at) => ({ id: r.id, score: scores[at], at }))
      .sort((a, b) => b.score - a.score || a.at - b.at)
      .map((r) => r.id);
    assert.deepEqual(
      lines(out)[0].results.map((r) => r.id),
      expected,
    );
    assert.notDeepEqual(
      expected,
      byWords.map((r) => r.id),
      'the reranker changes the order',
    );

    const missing = await run('search', '--store', store, '--query', claim, '--rerank-model', path.join(dir, 'nowhere'));
    assert.equal(missing.code, 2);
    assert.match(missing.err, /The model folder .*nowhere does not exist/);

    const twoScores = await writeModelFolder(path.join(dir, 'two-scores'), {
      model: nliGraph({ labels: 2, tokenTypes: true }),
      config: { model_type: 'bert', max_position_embeddings: 512, pad_token_id: 0, id2label: { 0: 'LABEL_0', 1: 'LABEL_1' } },
      files: { 'rerank.json': '{"depth": 10, "weight": 1}' },
    });
    const failing = await run('search', '--store', store, '--query', claim, '--rerank-model', twoScores);
    assert.equal(failing.code, 2, 'a reranker asked for that fails is a failure, not a note');
    assert.equal(failing.out, '');
    assert.match(failing.err, /a reranker gives one score per pair/);
  });

  it('makes the reranker when a ranking needs it, once for all the queries, and fails as it fails', async () => {
    assert.equal((await run('index', 'add', CORPUS, '--store', store)).code, 0);
    const broken = await writeModelFolder(path.join(dir, 'broken'), {
      model: new TextEncoder().encode('not an ONNX graph'),
      config: { model_type: 'bert', max_position_embeddings: 512, pad_token_id: 0, id2label: { 0: 'LABEL_0' } },
      files: { 'rerank.json': '{"depth": 10, "weight": 1}' },
    });
    const none = path.join(dir, 'none.jsonl');
    await fs.writeFile(none, '\n');
    const unasked = await run('search', '--store', store, '--queries', none, '--rerank-model', broken);
    assert.equal(unasked.code, 0, `no query, no ranking to reorder, no session: ${unasked.err}`);
    assert.equal(unasked.out, '');
    const asked = await run('search', '--store', store, '--queries', QUERIES, '--rerank-model', broken);
    assert.equal(asked.code, 2, 'a reranker asked for that cannot be loaded is a failure, not a note');
    assert.equal(asked.out, '');
    assert.equal(asked.err.match(/ONNX Runtime could not load/g)?.length, 1, asked.err);

    const reranker = askedReranker(path.join(REPO_ROOT, 'models', 'attest-rerank'));
    assert.ok(reranker);
    const [first, second] = await Promise.all([reranker.get(), reranker.get()]);
    assert.equal(first, second, 'one session, shared');
    await reranker.dispose();
  });

  it('reorders the top by Attest’s built-in reranker with --rerank, as Find Evidence does', async () => {
    assert.equal((await run('index', 'add', CORPUS, '--store', store)).code, 0);
    const claim = 'Aspirin lowers the risk of stroke in older adults.';
    const { code, out, err } = await run('search', '--store', store, '--query', claim, '--top', '3', '--rerank');
    assert.equal(code, 0, err);
    const builtIn = await builtInRerankerFolder([REPO_ROOT]);
    assert.ok(builtIn);
    const reranker = await OnnxReranker.load(builtIn, { threads: 1 });
    const { library } = await PaperLibrary.open(store, { reranker: async () => reranker });
    const expected = await library.find({ text: claim, limit: 3 });
    await reranker.dispose();
    assert.deepEqual(
      lines(out)[0].results,
      expected.results.map((r) => ({ id: r.paper.id, score: r.score, sentence: r.sentence ?? null })),
    );

    const both = await run('search', '--store', store, '--query', claim, '--rerank', '--rerank-model', dir);
    assert.equal(both.code, 2);
    assert.match(both.err, /give --rerank or --rerank-model DIR, not both/);
  });

  it('counts one paper as one paper', async () => {
    const one = path.join(dir, 'one.jsonl');
    await fs.writeFile(
      one,
      `${JSON.stringify({ id: 'p1', title: 'Aspirin and stroke', abstract: 'Aspirin lowers the risk of stroke in older adults. It was measured in a large trial.' })}\n`,
    );
    const indexed = await run('index', 'add', one, '--store', store);
    assert.equal(indexed.code, 0, indexed.err);
    assert.match(indexed.out, /^Added 1 paper; the library in .* holds 1 paper\.\n$/);
  });

  it('imports a JSONL corpus, reporting its bad lines by number, and searches it by words', async () => {
    const indexed = await run('index', 'add', CORPUS, '--store', store);
    assert.equal(indexed.code, 0, indexed.err);
    assert.match(indexed.out, /^Added 6 papers; the library in .* holds 6 papers\.\n$/);
    assert.match(indexed.err, /corpus\.jsonl:5: not JSON\n/);
    assert.match(indexed.err, /corpus\.jsonl:7: has no "id"/);

    const searched = await run('search', '--store', store, '--queries', QUERIES, '--top', '2', '--format', 'jsonl');
    assert.equal(searched.code, 0, searched.err);
    const found = lines(searched.out);
    assert.deepEqual(
      found.map((l) => l.query_id),
      ['q1', 'q2', 3],
    );
    assert.deepEqual(
      found.map((l) => l.results.map((r) => r.id)),
      [['aspirin-stroke', 'aspirin-bleeding'], ['glacier-retreat'], ['coffee-sleep']],
    );
    assert.deepEqual(found[1].results[0].sentence, 'Warm summers drive the retreat.');
    assert.ok(found[0].results[0].score > found[0].results[1].score);
    assert.match(searched.err, /Ranked by words alone: no sentence encoder given \(--embed-model DIR or ATTEST_EMBED_MODEL\)/);
  });

  it('answers one --query with query_id null, and a null sentence when no sentence shares a word', async () => {
    await run('index', 'add', CORPUS, path.join(FIXTURES, 'references.bib'), path.join(FIXTURES, 'references.ris'), '--store', store);
    const { code, out } = await run('search', '--store', store, '--query', 'hippocampus', '--top', '5', '--mode', 'lexical');
    assert.equal(code, 0);
    const [line] = lines(out);
    assert.equal(line.query_id, null);
    // The corpus's `exercise-memory` has the same DOI: one work, listed once, where it ranks best.
    assert.deepEqual(
      line.results.map((r) => r.id),
      ['doi:10.1073/pnas.1015950108'],
    );
    const paper = line.results.find((r) => r.id === 'doi:10.1073/pnas.1015950108');
    assert.equal(paper?.sentence, 'The hippocampus shrinks in late adulthood.');
    const byTitle = lines((await run('search', '--store', store, '--query', 'evening coffee')).out)[0];
    assert.deepEqual(
      byTitle.results.map((r) => [r.id, r.sentence]),
      [['coffee-sleep', null]],
    );
  });

  it('refuses dense and hybrid search without an encoder, naming what to set', async () => {
    await run('index', 'add', CORPUS, '--store', store);
    for (const mode of ['dense', 'hybrid']) {
      const { code, out, err } = await run('search', '--store', store, '--query', 'aspirin', '--mode', mode);
      assert.equal(code, 2);
      assert.equal(out, '');
      assert.match(
        err,
        new RegExp(`--mode ${mode} needs a sentence encoder: give --embed-model DIR or set ATTEST_EMBED_MODEL \\(in the editor, attest\\.retrieval\\.encoder\\.model\\)`),
      );
    }
  });

  it('embeds with the encoder it is given and searches by meaning and by both', async () => {
    const model = await encoderFolder();
    const indexed = await run('index', 'add', CORPUS, '--store', store, '--embed-model', model);
    assert.equal(indexed.code, 0, indexed.err);
    assert.match(indexed.out, /holds 6 papers \(vectors: all-MiniLM-L6-v2 \(128 tokens\), 4 dimensions\)/, 'the default input, below the 256 tokens it was trained on');
    for (const mode of ['dense', 'hybrid']) {
      const { code, out, err } = await run('search', '--store', store, '--query', 'Aspirin lowers the risk of stroke.', '--mode', mode, '--embed-model', model, '--top', '6');
      assert.equal(code, 0, err);
      assert.equal(err, '');
      const [line] = lines(out);
      assert.equal(line.results.length, 6);
      assert.deepEqual(new Set(line.results.map((r) => r.id)).size, 6);
    }
    process.env.ATTEST_EMBED_MODEL = model;
    const byEnvironment = await run('search', '--store', store, '--query', 'stroke', '--mode', 'dense');
    assert.equal(byEnvironment.code, 0, byEnvironment.err);
  });

  it('embeds, when searching with an encoder, the papers indexed without one', async () => {
    await run('index', 'add', CORPUS, '--store', store);
    const model = await encoderFolder();
    const { code, err } = await run('search', '--store', store, '--query', 'stroke', '--embed-model', model);
    assert.equal(code, 0, err);
    assert.match(err, /embedded 6 papers of the library with all-MiniLM-L6-v2 \(128 tokens\)/);
    assert.equal((await run('search', '--store', store, '--query', 'stroke', '--embed-model', model)).err, '');

    const longer = await run('search', '--store', store, '--query', 'stroke', '--embed-model', model, '--embed-tokens', '64');
    assert.equal(longer.code, 0, longer.err);
    assert.match(longer.err, /embedded with all-MiniLM-L6-v2 \(128 tokens\), not all-MiniLM-L6-v2 \(64 tokens\): all 6 are embedded again/);
    assert.match(longer.err, /To keep them, stop now and give --embed-tokens 128\./);
    // Nor are the 64-token vectors taken for the 128-token encoder's after.
    const back = await run('search', '--store', store, '--query', 'stroke', '--embed-model', model, '--embed-tokens', '128');
    assert.match(back.err, /embedded with all-MiniLM-L6-v2 \(64 tokens\), not all-MiniLM-L6-v2 \(128 tokens\): all 6 are embedded again/);

    const renamed = path.join(dir, 'minilm');
    await fs.cp(model, renamed, { recursive: true });
    const other = await run('search', '--store', store, '--query', 'stroke', '--embed-model', renamed);
    assert.equal(other.code, 0, other.err);
    assert.match(other.err, /embedded with all-MiniLM-L6-v2 \(128 tokens\), not minilm \(128 tokens\): all 6 are embedded again/);
    assert.match(other.err, /give --embed-model the folder named all-MiniLM-L6-v2\./);
  });

  it('embeds again with another encoder in a folder of the same name, and keeps the vectors of a library that named its encoder by name alone', async () => {
    const model = await encoderFolder();
    assert.equal((await run('index', 'add', CORPUS, '--store', store, '--embed-model', model)).code, 0);
    const other = await writeModelFolder(path.join(dir, 'other', 'all-MiniLM-L6-v2'), {
      model: encoderGraph(),
      config: { model_type: 'bert', _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2', max_position_embeddings: 256, pad_token_id: 0 },
    });
    const replaced = await run('search', '--store', store, '--query', 'stroke', '--embed-model', other);
    assert.equal(replaced.code, 0, replaced.err);
    assert.match(replaced.err, /embedded with another model in a folder named all-MiniLM-L6-v2 \(its files differ from this one's\): all 6 are embedded again/);
    assert.match(replaced.err, /embedded 6 papers of the library with all-MiniLM-L6-v2 \(128 tokens\)\n/);
    // And the first encoder's are no longer there to be taken for its own.
    assert.match((await run('search', '--store', store, '--query', 'stroke', '--embed-model', model)).err, /embedded 6 papers of the library/);

    // As a library written before encoders were keyed by their content, at the model's own length: its vectors are kept when read so.
    assert.equal((await run('search', '--store', store, '--query', 'stroke', '--embed-model', model, '--embed-tokens', '256')).code, 0);
    const manifestFile = path.join(store, 'manifest.json');
    const manifest = JSON.parse(await fs.readFile(manifestFile, 'utf8')) as { vectors: { model: string } };
    assert.match(manifest.vectors.model, /^all-MiniLM-L6-v2#content:[0-9a-f]{16}$/);
    await fs.writeFile(manifestFile, JSON.stringify({ ...manifest, vectors: { ...manifest.vectors, model: 'all-MiniLM-L6-v2' } }));
    const legacy = await run('search', '--store', store, '--query', 'stroke', '--embed-model', model, '--embed-tokens', '256');
    assert.equal(legacy.code, 0, legacy.err);
    assert.equal(legacy.err, '');
  });

  it('embeds a library of many papers before a one-query search, with the encoder started again for the work', async () => {
    const many = path.join(dir, 'many.jsonl');
    const lines = Array.from({ length: 120 }, (_, at) =>
      JSON.stringify({ _id: `m${at}`, title: `Stroke trial ${at}`, text: `Aspirin lowered the risk of stroke in cohort ${at}.` }),
    );
    await fs.writeFile(many, `${lines.join('\n')}\n`);
    assert.equal((await run('index', 'add', many, '--store', store)).code, 0);
    const { code, out, err } = await run('search', '--store', store, '--query', 'aspirin and stroke', '--embed-model', await encoderFolder(), '--mode', 'dense');
    assert.equal(code, 0, err);
    assert.match(err, /embedded 120 papers of the library/);
    assert.equal((JSON.parse(out) as { results: unknown[] }).results.length, 10);
  });

  it('tells how to keep vectors the editor made, which no folder given to the CLI can', () => {
    const encoder = { model: 'bge-small-en-v1.5-int8', embedder: { embed: async () => [], dispose: async () => undefined } };
    const said = replacingVectors('search', 'Xenova/bge-small-en-v1.5', encoder, 100_000) ?? '';
    assert.match(said, /embedded with Xenova\/bge-small-en-v1.5, not bge-small-en-v1.5-int8: all 100000 are embedded again/);
    assert.match(said, /leave out --embed-model \(and ATTEST_EMBED_MODEL\) to search by words/);
    assert.equal(replacingVectors('search', 'bge-small-en-v1.5-int8', encoder, 100_000), undefined);
    assert.equal(replacingVectors('search', 'other', encoder, 0), undefined, 'an empty library loses nothing');
  });

  it('exits 2 on usage and input errors', async () => {
    await run('index', 'add', CORPUS, '--store', store);
    const badQueries = path.join(dir, 'bad.jsonl');
    await fs.writeFile(badQueries, '{"_id": "q1", "text": "fine"}\n{"_id": "q2"}\n');
    const cases: [string[], RegExp][] = [
      [['index', 'add', '--store', store], /no file given/],
      [['index', 'add', CORPUS], /--store DIR is required/],
      [['index', 'remove', CORPUS, '--store', store], /unknown subcommand 'remove'/],
      [['index', 'add', path.join(FIXTURES, 'corpus.csv'), '--store', store], /cannot tell the format of .*corpus\.csv/],
      [['index', 'add', path.join(dir, 'missing.jsonl'), '--store', store], /missing\.jsonl does not exist/],
      [['index', 'add', CORPUS, '--store', store, '--embed-model', path.join(dir, 'no-model')], /The model folder .*no-model does not exist/],
      [['search', '--store', store, '--query', 'a', '--embed-model', path.join(dir, 'no-model')], /The model folder .*no-model does not exist/],
      [['search', '--store', store], /give either --query TEXT or --queries FILE\.jsonl/],
      [['search', '--store', store, '--query', 'a', '--queries', QUERIES], /give either/],
      [['search', '--store', store, '--query', 'a', '--top', '0'], /--top must be a positive whole number/],
      [['search', '--store', store, '--query', 'a', '--embed-tokens', 'all'], /--embed-tokens must be a whole number from 16 to 8192, not 'all'/],
      [['index', 'add', CORPUS, '--store', store, '--embed-tokens', '8'], /--embed-tokens must be a whole number from 16 to 8192, not '8'/],
      [['search', '--store', store, '--query', 'a', '--mode', 'fuzzy'], /--mode must be lexical, dense or hybrid/],
      [['search', '--store', store, '--query', 'a', '--format', 'json'], /--format must be jsonl/],
      [['search', '--store', path.join(dir, 'nowhere'), '--query', 'a'], /there is no paper library in .*nowhere/],
      [['search', '--store', store, '--queries', badQueries], /queries line 2 has no "text" string/],
      [['search', '--store', store, '--queries', path.join(dir, 'missing.jsonl')], /missing\.jsonl does not exist/],
    ];
    for (const [args, message] of cases) {
      const { code, out, err } = await run(...args);
      assert.equal(code, 2, `${args.join(' ')}: ${err}`);
      assert.equal(out, '', args.join(' '));
      assert.match(err, message, args.join(' '));
    }
  });
});
