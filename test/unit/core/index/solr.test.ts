/**
 * The Solr backend against a real SolrCloud: 2 nodes on loopback with their ZooKeeper, as
 * `npm run solr:start` (scripts/solr.js) starts them; `npm test` starts one and requires it.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import * as path from 'node:path';
import { analyze } from '../../../../src/core/index/analyzer';
import { PaperLibrary, type Encoder } from '../../../../src/core/index/library';
import { SolrClient, SolrError, type SolrTarget } from '../../../../src/core/index/solr/client';
import { PaperKeyIndex } from '../../../../src/core/completion/libraryKeys';
import { addToCollection, collectionInfo, initCollection } from '../../../../src/core/index/solr/collection';
import { SolrLibrary } from '../../../../src/core/index/solr/library';
import type { Paper } from '../../../../src/core/papers/paper';
import { REPO_ROOT } from '../../support/helpers';
import { attest } from '../../support/cli';
import { setNode, testCluster, type TestCluster } from '../../support/solr';
import { makeTempDir } from '../../support/tempDir';

const CONFIG_DIR = path.join(REPO_ROOT, 'solr/configset/conf');
const CORPUS = path.join(REPO_ROOT, 'test/fixtures/papers/corpus.jsonl');
const DIMENSION = 16;

/** A sentence encoder without a model: each term counted in one of 16 buckets by its letters, so texts sharing terms are near; unit length. */
function hashingEncoder(model = 'hashing-16'): Encoder {
  return {
    model,
    embedder: {
      embed: async (texts) =>
        texts.map((text) => {
          const vector = new Float32Array(DIMENSION);
          // A small component: printed as a double, a 32-bit float below 0.1 runs to 19 digits.
          vector[0] = 0.03;
          for (const term of analyze(text)) vector[[...term].reduce((sum, c) => sum + c.charCodeAt(0), 0) % DIMENSION] += 1;
          // Unit length, as real encoders give: 32-bit components that print with up to 18 digits.
          const norm = Math.hypot(...vector);
          return vector.map((component) => component / norm);
        }),
      dispose: async () => undefined,
    },
  };
}

const TOPICS = [
  'aspirin stroke risk',
  'statin liver enzymes',
  'glacier retreat alps',
  'coffee sleep caffeine',
  'exercise memory hippocampus',
  'vitamin bone fracture',
  'smoking lung cancer',
  'sugar diabetes insulin',
];
const WORDS = 'trial cohort patients adults randomised increased decreased outcome mortality years dose effect group control significant association'.split(' ');

/** Papers on a few topics, in words drawn by a fixed sequence: a corpus whose rankings have ties and near-ties to get wrong. */
function corpus(size: number): Paper[] {
  let seed = 7;
  const next = (n: number): number => (seed = (seed * 48271) % 2147483647) % n;
  return Array.from({ length: size }, (_, at) => {
    const topic = TOPICS[next(TOPICS.length)];
    const words = Array.from({ length: 8 + next(30) }, () => (next(3) === 0 ? topic.split(' ')[next(3)] : WORDS[next(WORDS.length)]));
    return {
      id: `doi:10.5555/p${at}`,
      title: `${topic
        .split(' ')
        .slice(0, 1 + next(3))
        .join(' ')} study ${at}`,
      abstract: `${words.join(' ')}.`,
      authors: [{ family: `Author${at % 17}`, given: 'A.' }],
      year: 1990 + (at % 30),
    };
  });
}

describe('the Solr backend, against a real SolrCloud', function () {
  this.timeout(120_000);
  let cluster: TestCluster;
  const made: string[] = [];
  let counter = 0;

  before(function () {
    const found = testCluster();
    if (found === undefined) {
      console.log('    (skipped: no SolrCloud; npm run solr:start starts one)');
      this.skip();
    }
    cluster = found;
  });

  after(async () => {
    if (cluster === undefined) return;
    const admin = new SolrClient({ url: cluster.url, collection: 'none' });
    for (const name of made) {
      await admin.admin('/admin/collections', { action: 'DELETE', name }).catch(() => undefined);
      await admin.admin('/admin/configs', { action: 'DELETE', name: `attest-${name}` }).catch(() => undefined);
    }
  });

  function target(): SolrTarget {
    const collection = `t${process.pid}_${Date.now().toString(36)}_${counter++}`;
    made.push(collection);
    return { url: cluster.url, collection };
  }

  async function collectionOf(papers: readonly Paper[], encoder: Encoder | undefined = hashingEncoder()): Promise<SolrTarget> {
    const where = target();
    const solr = new SolrClient(where);
    assert.equal(await initCollection(solr, { encoder: encoder && { model: encoder.model, dimension: DIMENSION }, shards: 2, replicas: 2, configDir: CONFIG_DIR }), 'created');
    await addToCollection(solr, (await collectionInfo(solr))!, encoder, papers);
    return where;
  }

  it('ranks as the local library ranks: by words, by meaning and by both, each work once', async () => {
    const papers = corpus(300);
    // The same work under a second id, which both backends must show once.
    papers.push({ ...papers[3], id: 'openalex:W1' });
    const encoder = hashingEncoder();
    const where = await collectionOf(papers, encoder);
    const { dir, remove } = await makeTempDir();
    try {
      const { library } = await PaperLibrary.open(dir, { encoder });
      await library.add(papers);
      for (const mode of ['lexical', 'dense', 'hybrid'] as const) {
        const local = new PaperLibrary(library.store, { encoder, mode });
        const solr = await SolrLibrary.open(where, { encoder, mode });
        for (const claim of [...TOPICS, 'Aspirin lowers the risk of stroke in older adults.', 'randomised trial of dose']) {
          const [ours, theirs] = await Promise.all([local.find({ text: claim, limit: 30 }), solr.find({ text: claim, limit: 10 })]);
          assert.equal(theirs.mode, mode);
          assert.equal(theirs.results.length, Math.min(10, ours.results.length));
          // Solr scores in 32-bit floats and breaks ties by its own document order: equal papers may swap,
          // so each place must hold a paper the library scores as it scores the paper it put there.
          const byId = new Map(ours.results.map((r) => [r.paper.id, r]));
          theirs.results.forEach((result, at) => {
            const same = byId.get(result.paper.id);
            assert.ok(same, `${mode}: ${claim}: ${result.paper.id} at ${at + 1} is not among the library's best 30`);
            assert.ok(Math.abs(same.score - ours.results[at].score) <= 1e-4 * Math.max(1, Math.abs(same.score)), `${mode}: ${claim}: place ${at + 1}`);
            assert.deepEqual(result.paper, same.paper, 'the papers come back as they were added');
            assert.equal(result.sentence, same.sentence, `the sentence shown: ${claim}`);
          });
        }
      }
    } finally {
      await remove();
    }
  });

  it('indexes a batch of vectors as real encoders give them, small 32-bit components and all', async () => {
    // 384 components of a few hundredths: printed as doubles they run to 19 digits, which Solr's JSON reader keeps as strings.
    const encoder: Encoder = {
      model: 'sines-384',
      embedder: { embed: async (texts) => texts.map((text) => new Float32Array(384).map((_, at) => Math.sin(at * 7 + text.length) * 0.05)), dispose: async () => undefined },
    };
    const papers = corpus(60);
    const where = target();
    const solr = new SolrClient(where);
    await initCollection(solr, { encoder: { model: encoder.model, dimension: 384 }, shards: 2, replicas: 2, configDir: CONFIG_DIR });
    assert.deepEqual(await addToCollection(solr, (await collectionInfo(solr))!, encoder, papers), { sent: 60, unchanged: 0 });
    const found = await (await SolrLibrary.open(where, { encoder, mode: 'dense' })).find({ text: papers[0].title, limit: 5 });
    assert.equal(found.results.length, 5);
  });

  it('makes a collection for one encoder, and refuses another encoder’s vectors and queries', async () => {
    const where = await collectionOf(corpus(5));
    const solr = new SolrClient(where);
    const again = await initCollection(solr, { encoder: { model: 'hashing-16', dimension: DIMENSION }, shards: 2, replicas: 2, configDir: CONFIG_DIR });
    assert.equal(again, 'exists');
    const other = hashingEncoder('e5-small-v2');
    await assert.rejects(
      initCollection(solr, { encoder: { model: 'e5-small-v2', dimension: DIMENSION }, shards: 2, replicas: 2, configDir: CONFIG_DIR }),
      /holds vectors of hashing-16, not e5-small-v2/,
    );
    await assert.rejects(
      SolrLibrary.open(where, { encoder: other }),
      (error: unknown) => error instanceof SolrError && error.failure === 'refused' && /holds vectors of hashing-16, not e5-small-v2/.test(error.message),
    );
    await assert.rejects(addToCollection(solr, (await collectionInfo(solr))!, other, corpus(2)), /holds vectors of hashing-16, not e5-small-v2/);
    await assert.rejects(addToCollection(solr, (await collectionInfo(solr))!, undefined, corpus(2)), /must be embedded with it/);
    assert.equal((await solr.select({ q: 'kind:paper', rows: '0' })).numFound, 5, 'nothing of the refused encoder was added');
  });

  it('completes citation keys from the collection as from the local library: key, title words, authors, year, accents aside', async () => {
    const papers: Paper[] = [
      ...corpus(40),
      {
        id: 'doi:10.1109/cvpr.2016.90',
        title: 'Deep Residual Learning for Image Recognition',
        authors: [
          { family: 'He', given: 'Kaiming' },
          { family: 'Zhang', given: 'Xiangyu' },
        ],
        year: 2016,
        venue: 'CVPR',
      },
      { id: 'doi:10.5555/mueller', title: 'Zebrafish heart regeneration after injury', authors: [{ family: 'Müller', given: 'Anna' }], year: 2019 },
    ];
    const solr = await SolrLibrary.open(await collectionOf(papers, undefined));
    const local = new PaperKeyIndex();
    local.add(papers);
    for (const typed of ['he2016', 'residual lear', 'deep residual he', 'muller zebra', 'zhang 2016 cvpr', 'Müller']) {
      const theirs = await solr.complete(typed, 5);
      const ours = local.complete(typed, 5);
      assert.ok(theirs.length > 0, typed);
      assert.deepEqual(theirs.map((match) => match.key).sort(), ours.map((match) => match.key).sort(), `the papers offered for '${typed}'`);
      assert.deepEqual(
        theirs[0].paper,
        papers.find((paper) => paper.id === theirs[0].paper.id),
        'the paper comes back as it was added',
      );
    }
    assert.deepEqual(await solr.complete('nothing-like-this', 5), []);
    assert.deepEqual(await solr.complete('  ', 5), []);
  });

  it('attest search --solr without an encoder searches by words, and says which flag and which model would rank by meaning', async () => {
    const { url, collection } = await collectionOf(corpus(10));
    const searched = await attest('search', '--solr', url, '--collection', collection, '--query', 'stroke in older adults');
    assert.equal(searched.code, 0, searched.err);
    assert.equal(
      searched.err,
      "attest search: Ranked by words alone: no sentence encoder given (--embed-model DIR or ATTEST_EMBED_MODEL).\nattest search: The collection's vectors are hashing-16's: search with it to rank by meaning too.\n",
    );
  });

  it('replaces a paper whose text changed, skips those that did not, and deletes', async () => {
    const papers = corpus(20);
    const encoder = hashingEncoder();
    const where = await collectionOf(papers, encoder);
    const solr = new SolrClient(where);
    const info = (await collectionInfo(solr))!;
    assert.deepEqual(await addToCollection(solr, info, encoder, papers), { sent: 0, unchanged: 20 });
    const changed = { ...papers[4], abstract: 'Zebrafish regenerate their hearts.' };
    assert.deepEqual(await addToCollection(solr, info, encoder, [changed, papers[5]]), { sent: 1, unchanged: 1 });
    const library = await SolrLibrary.open(where, { encoder });
    const found = await library.find({ text: 'zebrafish heart regeneration', limit: 3 });
    assert.equal(found.results[0].paper.id, changed.id);
    assert.equal(found.results[0].paper.abstract, changed.abstract);
    assert.equal(found.results[0].sentence, 'Zebrafish regenerate their hearts.');
    await solr.delete([changed.id]);
    const after = await library.find({ text: 'zebrafish heart regeneration', limit: 3 });
    assert.ok(!after.results.some((r) => r.paper.id === changed.id));
    assert.equal((await solr.select({ q: 'kind:paper', rows: '0' })).numFound, 19);
  });

  it('says clearly when the collection does not exist, was not made by Attest, or Solr cannot be reached', async () => {
    await assert.rejects(
      SolrLibrary.open({ url: cluster.url, collection: 'no_such_collection' }),
      (error: unknown) =>
        error instanceof SolrError && error.failure === 'no-collection' && /has no collection named 'no_such_collection': make it with attest solr init/.test(error.message),
    );
    const closed = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    await assert.rejects(
      SolrLibrary.open({ url: `http://127.0.0.1:${closed}/solr`, collection: 'papers' }),
      (error: unknown) =>
        error instanceof SolrError && error.failure === 'unreachable' && /could not be reached .*is the address right, and is the cluster running\?/.test(error.message),
    );
    const empty = target();
    const solr = new SolrClient(empty);
    await solr
      .admin('/admin/collections', { action: 'CREATE', name: empty.collection, numShards: '1', replicationFactor: '1', 'collection.configName': '_default' })
      .catch(async () => {
        // A cluster without the _default configset: Attest's own, without its meta document, is as foreign.
        await initCollection(solr, { shards: 1, replicas: 1, configDir: CONFIG_DIR });
        await solr.delete(['attest:collection']);
      });
    await assert.rejects(SolrLibrary.open(empty), /was not made by attest solr init/);
    await assert.rejects(initCollection(solr, { shards: 1, replicas: 1, configDir: CONFIG_DIR }), /already has a collection named .* that Attest did not make/);
  });

  it('goes on answering from the replicas while a node stops mid-search, and loses nothing', async function () {
    if (cluster.control === undefined) this.skip();
    const papers = corpus(200);
    const encoder = hashingEncoder();
    const where = await collectionOf(papers, encoder);
    const library = await SolrLibrary.open(where, { encoder });
    const claims = [...TOPICS, ...TOPICS];
    const expected = await Promise.all(claims.map((text) => library.find({ text, limit: 10 }).then((r) => r.results.map((e) => e.paper.id))));
    const searching = (async () => {
      const got: string[][] = [];
      for (const text of claims) got.push((await library.find({ text, limit: 10 })).results.map((e) => e.paper.id));
      return got;
    })();
    await setNode(cluster, 1, 'stop');
    try {
      assert.deepEqual(await searching, expected);
      assert.deepEqual(
        (await library.find({ text: TOPICS[0], limit: 10 })).results.map((e) => e.paper.id),
        expected[0],
        'with one node down',
      );
    } finally {
      await setNode(cluster, 1, 'start');
    }
    assert.equal((await new SolrClient(where).select({ q: 'kind:paper', rows: '0' })).numFound, 200);
  });

  it('attest solr init, attest index add --solr and attest search --solr rank as the local library does', async () => {
    const { dir, remove } = await makeTempDir();
    try {
      const { url, collection } = target();
      const init = await attest('solr', 'init', url, '--collection', collection, '--shards', '2', '--replicas', '1');
      assert.equal(init.code, 0, init.err);
      assert.equal(init.out, `Made the collection '${collection}' (2 shards, 1 replicas each; no vectors: searched by words alone).\n`);
      const added = await attest('index', 'add', CORPUS, '--solr', url, '--collection', collection);
      assert.equal(added.code, 0, added.err);
      assert.equal(added.out, `Added 6 papers to the collection '${collection}'; it holds 6 papers.\n`);
      assert.match(added.err, /corpus\.jsonl:5: not JSON\n/, 'bad lines are reported as for a local library');
      const again = await attest('index', 'add', CORPUS, '--solr', url, '--collection', collection);
      assert.equal(again.out, `Added 0 papers to the collection '${collection}'; 6 it held already with the same text were left as they were; it holds 6 papers.\n`);

      const store = path.join(dir, 'library');
      assert.equal((await attest('index', 'add', CORPUS, '--store', store)).code, 0);
      const queries = path.join(REPO_ROOT, 'test/fixtures/papers/queries.jsonl');
      const fromSolr = await attest('search', '--solr', url, '--collection', collection, '--queries', queries, '--top', '3');
      const fromStore = await attest('search', '--store', store, '--queries', queries, '--top', '3');
      assert.equal(fromSolr.code, 0, fromSolr.err);
      const ids = (out: string): unknown =>
        out
          .trim()
          .split('\n')
          .map((line) => (JSON.parse(line) as { results: { id: string; sentence: string | null }[] }).results.map((r) => [r.id, r.sentence]));
      assert.deepEqual(ids(fromSolr.out), ids(fromStore.out));

      const missing = await attest('search', '--solr', url, '--collection', 'no_such_collection', '--query', 'stroke');
      assert.equal(missing.code, 2);
      assert.match(missing.err, /^attest search: Solr at .* has no collection named 'no_such_collection'/);
      const both = await attest('search', '--solr', url, '--store', store, '--query', 'stroke');
      assert.equal(both.code, 2);
      assert.match(both.err, /give --store DIR or --solr URL, not both/);
    } finally {
      await remove();
    }
  });
});
