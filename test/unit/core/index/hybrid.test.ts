import assert from 'node:assert/strict';
import * as path from 'node:path';
import { DenseIndex } from '../../../../src/core/index/dense';
import { FUSION, rankPapers, standardisedFusion } from '../../../../src/core/index/hybrid';
import { LexicalIndex } from '../../../../src/core/index/lexical';
import { ENCODER_NOT_DOWNLOADED_NOTE, NO_ENCODER_NOTE, PaperLibrary } from '../../../../src/core/index/library';
import { PaperStore } from '../../../../src/core/index/store/store';
import { passageText } from '../../../../src/core/index/passages';
import type { EvidenceResults } from '../../../../src/core/evidence';
import { OnnxEmbedder, type TextKind } from '../../../../src/core/models/embedder';
import type { Reranker } from '../../../../src/core/models/reranker';
import type { Paper } from '../../../../src/core/papers/paper';
import { SourceError } from '../../../../src/core/sources/types';
import { corpus, FakeSource, FOUND } from '../../support/paperSources';
import { writeModelFolder } from '../../support/onnx/folders';
import { encoderGraph } from '../../support/onnx/graphs';
import { makeTempDir } from '../../support/tempDir';

function paper(id: string, title: string, abstract: string, extra: Partial<Paper> = {}): Paper {
  return { id, title, abstract, authors: [], ...extra };
}

describe('score fusion', () => {
  // Lexically a > b > c; by meaning c > a > d. Each side's z-scores: ±√1.5 and 0.
  const lexical = [
    { id: 'a', score: 3 },
    { id: 'b', score: 2 },
    { id: 'c', score: 1 },
  ];
  const dense = [
    { id: 'c', score: 0.9 },
    { id: 'a', score: 0.5 },
    { id: 'd', score: 0.1 },
  ];
  const z = Math.sqrt(1.5);

  function assertRanking(actual: readonly { id: string; score: number }[], expected: readonly [string, number][]): void {
    assert.deepEqual(
      actual.map((r) => r.id),
      expected.map(([id]) => id),
    );
    actual.forEach((r, at) => assert.ok(Math.abs(r.score - expected[at][1]) < 1e-12, `${r.id}: ${r.score} is not ${expected[at][1]}`));
  }

  it('mixes the standardised scores by the weight, a paper one side lacks counting as its weakest candidate there', () => {
    assertRanking(standardisedFusion(lexical, dense, 0.7), [
      ['c', 0.3 * -z + 0.7 * z],
      ['a', 0.3 * z],
      ['b', 0.7 * -z],
      ['d', 0.3 * -z + 0.7 * -z],
    ]);
    assert.deepEqual(
      standardisedFusion(lexical, dense, 0.3).map((r) => r.id),
      ['a', 'b', 'c', 'd'],
    );
  });

  it('does not let the size of BM25 scores outweigh cosines', () => {
    const louder = lexical.map(({ id, score }) => ({ id, score: 40 * score + 7 }));
    assert.deepEqual(standardisedFusion(louder, dense, 0.7), standardisedFusion(lexical, dense, 0.7));
  });

  it('ranks by the other side when one side has no candidates or no spread, ties in the lexical order', () => {
    assertRanking(standardisedFusion([], dense, 0.7), [
      ['c', 0.7 * z],
      ['a', 0],
      ['d', 0.7 * -z],
    ]);
    const flat = [
      { id: 'x', score: 0.4 },
      { id: 'y', score: 0.4 },
    ];
    assert.deepEqual(
      standardisedFusion(lexical, flat, 0.7).map((r) => r.id),
      ['a', 'b', 'c', 'x', 'y'],
    );
  });
});

describe('the dense index', () => {
  it('ranks by cosine, scaling vectors to unit length, ties to the paper added first', async () => {
    const index = new DenseIndex(2);
    index.add('long', Float32Array.from([30, 40]));
    index.add('east', Float32Array.from([1, 0]));
    index.add('same', Float32Array.from([0.6, 0.8]));
    index.add('west', Float32Array.from([-2, 0]));
    const hits = await index.search(Float32Array.from([3, 4]), 3);
    assert.deepEqual(
      hits.map((h) => h.id),
      ['long', 'same', 'east'],
    );
    assert.ok(Math.abs(hits[0].score - 1) < 1e-6 && Math.abs(hits[2].score - 0.6) < 1e-6);
    assert.deepEqual(
      (await index.search(Float32Array.from([-1, 0]), 1)).map((h) => h.id),
      ['west'],
    );

    const twins = new DenseIndex(2);
    for (let row = 0; row < 5000; row++) twins.add(`t${row}`, Float32Array.from([1, row % 2]));
    assert.deepEqual(
      (await twins.search(Float32Array.from([1, 1]), 4)).map((h) => h.id),
      ['t1', 't3', 't5', 't7'],
    );
    assert.deepEqual(
      (await twins.search(Float32Array.from([1, -1]), 3)).map((h) => h.id),
      ['t0', 't2', 't4'],
    );
  });

  it('replaces a vector added again, and comes back whole from its data', async () => {
    const index = new DenseIndex(3);
    for (let i = 0; i < 40; i++) index.add(`p${i}`, Float32Array.from([1, i, 0]));
    index.add('p0', Float32Array.from([0, 0, 5]));
    assert.equal(index.size, 40);
    const copy = new DenseIndex(3);
    copy.addAll(index.toData());
    assert.deepEqual(await copy.search(Float32Array.from([0, 0, 1]), 2), await index.search(Float32Array.from([0, 0, 1]), 2));
    assert.equal((await copy.search(Float32Array.from([0, 0, 1]), 1))[0].id, 'p0');
    assert.throws(() => index.add('bad', Float32Array.from([1, 2])), /3 dimensions, got 2/);
  });

  it('takes rows read from disk as they are, a repeated id keeping its last vector', async () => {
    const rows = Float32Array.from([1, 0, 0, 1, 0.6, 0.8]);
    const adopted = DenseIndex.adopt(2, { ids: ['a', 'b', 'c'], vectors: rows });
    assert.deepEqual(
      (await adopted.search(Float32Array.from([0, 1]), 3)).map((h) => h.id),
      ['b', 'c', 'a'],
    );
    adopted.add('d', Float32Array.from([-1, 0]));
    assert.deepEqual(adopted.vector('d'), Float32Array.from([-1, 0]));
    assert.deepEqual(rows, Float32Array.from([1, 0, 0, 1, 0.6, 0.8]), 'growing copies the rows rather than writing past them');

    const repeated = DenseIndex.adopt(2, { ids: ['a', 'b', 'a'], vectors: rows });
    assert.equal(repeated.size, 2);
    assert.deepEqual(repeated.vector('a'), Float32Array.from([0.6, 0.8]));
    assert.deepEqual(
      (await repeated.search(Float32Array.from([1, 0]), 2)).map((h) => h.id),
      ['a', 'b'],
    );
    assert.throws(() => DenseIndex.adopt(2, { ids: ['a'], vectors: rows }), /1 vectors of 2 dimensions need 2 floats, not 6/);
  });

  it('takes the vectors of a library of a million papers', async () => {
    const count = 1_000_000;
    const ids = Array.from({ length: count }, (_, at) => `p${at}`);
    const vectors = new Float32Array(count);
    vectors.fill(-1);
    vectors[count - 1] = 1;
    const adopted = DenseIndex.adopt(1, { ids, vectors });
    assert.equal(adopted.size, count);
    assert.deepEqual(
      (await adopted.search(Float32Array.from([1]), 1)).map((h) => h.id),
      [`p${count - 1}`],
    );
  });

  it('scores every paper of a library of thousands exactly, whichever way its vectors came in', async () => {
    let seed = 11;
    const random = (): number => (seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5;
    const dimension = 24;
    const vectors = Array.from({ length: 5000 }, () => Float32Array.from({ length: dimension }, random));
    const index = new DenseIndex(dimension);
    const bulk = new DenseIndex(dimension);
    vectors.slice(0, 3000).forEach((v, row) => bulk.add(`p${row}`, v));
    index.addAll(bulk.toData());
    vectors.slice(3000).forEach((v, at) => index.add(`p${3000 + at}`, v));
    // A paper of the second block turns into the query's twin.
    const query = Float32Array.from({ length: dimension }, random);
    vectors[2500] = query.map((x) => x * 3);
    index.add('p2500', vectors[2500]);

    const unit = (v: Float32Array): number[] => {
      const norm = Math.hypot(...v);
      return [...v].map((x) => x / norm);
    };
    const q = unit(query);
    const expected = new Map(vectors.map((v, row) => [`p${row}`, unit(v).reduce((sum, x, d) => sum + x * q[d], 0)]));
    const hits = await index.search(query, 50);
    // Summed in float32, a cosine may differ from the double-precision one in its last digits, and so may the order of near-ties.
    assert.equal(hits.length, 50);
    hits.forEach((hit, at) => {
      assert.ok(Math.abs(hit.score - (expected.get(hit.id) ?? NaN)) < 1e-5, `${hit.id}: ${hit.score} against ${expected.get(hit.id)}`);
      assert.ok(at === 0 || hits[at - 1].score >= hit.score, `${hit.id} is out of order`);
    });
    const returned = new Set(hits.map((h) => h.id));
    assert.ok(
      [...expected].every(([id, score]) => returned.has(id) || score <= hits[49].score + 1e-5),
      'a paper left out scores higher than one returned',
    );
    assert.equal(hits[0].id, 'p2500');
    assert.deepEqual(
      [...(index.vector('p4999') ?? [])].map((x) => x.toFixed(5)),
      unit(vectors[4999]).map((x) => x.toFixed(5)),
    );
    const copy = new DenseIndex(dimension);
    copy.addAll(index.toData());
    assert.deepEqual(await copy.search(query, 50), hits);
    assert.deepEqual(await new DenseIndex(dimension).search(query, 5), []);
  });
});

describe('hybrid ranking over fixed vectors', () => {
  // Lexically: p1 matches best, then p2, then p4; p3 shares no word with the query.
  const papers = [
    paper('p1', 'Aspirin lowers stroke risk', 'Daily aspirin lowered the risk of stroke in a large trial of aspirin.'),
    paper('p2', 'Aspirin and stroke', 'Outcomes after aspirin.'),
    paper('p3', 'Platelet inhibition in cerebral infarction', 'Antiplatelet drugs prevent infarcts.'),
    paper('p4', 'A stroke registry', 'A registry of patients.'),
  ];
  const query = { text: 'aspirin stroke risk', vector: Float32Array.from([1, 0, 0]) };
  // By meaning: p2, then p3, then p1, then p4.
  const vectors: Record<string, number[]> = { p1: [0.6, 0.8, 0], p2: [1, 0, 0], p3: [0.8, 0.6, 0], p4: [0, 1, 0] };

  function indexes(): { lexical: LexicalIndex; dense: DenseIndex } {
    const lexical = new LexicalIndex();
    const dense = new DenseIndex(3);
    for (const p of papers) {
      lexical.add(p);
      dense.add(p.id, Float32Array.from(vectors[p.id]));
    }
    return { lexical, dense };
  }

  it('ranks each side as its index does, and fuses their scores', async () => {
    const both = indexes();
    assert.deepEqual(
      (await rankPapers(both, query, 'lexical', 10)).map((r) => r.id),
      ['p1', 'p2', 'p4'],
    );
    assert.deepEqual(
      (await rankPapers(both, query, 'dense', 10)).map((r) => r.id),
      ['p2', 'p3', 'p1', 'p4'],
    );
    const lexical = both.lexical.search(query.text, 10);
    const dense = await both.dense.search(query.vector, 10);
    const fused = standardisedFusion(lexical, dense, FUSION.denseWeight);
    assert.deepEqual(await rankPapers(both, query, 'hybrid', 10), fused);
    // p1 is first by words and third by meaning, p2 second by words and first by meaning: the weight decides between them.
    assert.deepEqual(
      standardisedFusion(lexical, dense, 0.75)
        .map((r) => r.id)
        .slice(0, 2),
      ['p2', 'p1'],
    );
    assert.deepEqual(
      standardisedFusion(lexical, dense, 0.25)
        .map((r) => r.id)
        .slice(0, 2),
      ['p1', 'p2'],
    );
    // p3, which shares no word with the query, still ranks by meaning.
    assert.ok(fused.some((r) => r.id === 'p3'));
  });

  it('fuses at least FUSION.depth candidates a side, so the first results do not depend on how many are asked for', async () => {
    assert.deepEqual(await rankPapers(indexes(), query, 'hybrid', 1), (await rankPapers(indexes(), query, 'hybrid', 10)).slice(0, 1));
  });
});

describe('the paper library', () => {
  let dir: string;
  let remove: () => Promise<void>;
  const embedders: OnnxEmbedder[] = [];

  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir());
  });
  afterEach(async () => {
    for (const embedder of embedders.splice(0)) await embedder.dispose();
    await remove();
  });

  async function lexicalLibrary(options: ConstructorParameters<typeof PaperLibrary>[1] = {}): Promise<PaperLibrary> {
    const { library } = await PaperLibrary.open(path.join(dir, 'library'), options);
    await library.add(await corpus());
    return library;
  }

  async function encoder(): Promise<OnnxEmbedder> {
    const model = await writeModelFolder(path.join(dir, 'model'), {
      model: encoderGraph(),
      config: { model_type: 'bert', _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2', max_position_embeddings: 512, pad_token_id: 0 },
    });
    const embedder = await OnnxEmbedder.load(model, { threads: 1 });
    embedders.push(embedder);
    return embedder;
  }

  describe('without an encoder', () => {
    it('ranks by words, shows the best sentence of each abstract, and says why it is lexical', async () => {
      const library = await lexicalLibrary();
      const found = await library.find({ text: 'Aspirin lowers the risk of stroke.', limit: 2 });
      assert.equal(found.mode, 'lexical');
      assert.deepEqual(found.notes, [NO_ENCODER_NOTE]);
      assert.match(NO_ENCODER_NOTE, /no sentence encoder is configured \(attest\.retrieval\.encoder\.model\)/);
      assert.deepEqual(
        found.results.map((r) => [r.paper.id, r.sentence]),
        [
          ['aspirin-stroke', 'Daily low-dose aspirin reduced the risk of ischaemic stroke by a fifth.'],
          ['aspirin-bleeding', 'Aspirin use doubled the rate of gastrointestinal bleeding in older adults.'],
        ],
      );
      assert.deepEqual(
        found.results.map((r) => r.score),
        library.store.lexical.search('Aspirin lowers the risk of stroke.', 2).map((h) => h.score),
      );
    });

    it('says when the configured encoder is only not downloaded yet, and how to get it', async () => {
      const library = await lexicalLibrary({ missingEncoder: 'not-downloaded' });
      const found = await library.find({ text: 'Aspirin lowers the risk of stroke.', limit: 2 });
      assert.deepEqual(found.notes, [ENCODER_NOT_DOWNLOADED_NOTE]);
      assert.match(ENCODER_NOT_DOWNLOADED_NOTE, /not downloaded yet \(Attest: Download the Sentence Encoder\)/);
    });

    it('keeps only open-access papers when asked, searching deeper for them', async () => {
      const library = await lexicalLibrary();
      // 150 closed papers that match better than the one open-access paper that matches at all.
      const closed = Array.from({ length: 150 }, (_, i) => paper(`closed-${i}`, `Aspirin and bleeding, cohort ${i}`, 'Aspirin raised the risk of bleeding.'));
      await library.add([...closed, paper('open', 'Bleeding', 'A short note.', { openAccessUrl: 'https://example.org/open.pdf' })]);
      const all = await library.find({ text: 'aspirin bleeding', limit: 200 });
      assert.ok(all.results.findIndex((r) => r.paper.id === 'open') > 100, 'the open-access paper ranks below the first hundred');
      const open = await library.find({ text: 'aspirin bleeding', limit: 2, openAccessOnly: true });
      assert.deepEqual(
        open.results.map((r) => r.paper.id),
        ['open'],
      );
    });

    it('lists a work found through two sources once, where it ranks best, and fills the list from further down', async () => {
      const library = await lexicalLibrary();
      const abstract = 'Low-dose aspirin halved the risk of stroke in adults over seventy.';
      await library.add([
        paper('doi:10.1/halved', 'Aspirin halves stroke risk', abstract, { doi: '10.1/HALVED', year: 2020 }),
        paper('semanticscholar:abc', 'Aspirin Halves Stroke Risk.', abstract, { year: 2021 }),
        paper('arxiv:2001.00001', 'Aspirin halves stroke risk', abstract, { doi: '10.48550/arXiv.2001.00001', year: 2020 }),
        // The same title, years apart, is another work (a reply, a second edition).
        paper('doi:10.1/reply', 'Aspirin halves stroke risk', abstract, { doi: '10.1/reply', year: 2024 }),
      ]);
      const found = await library.find({ text: 'Aspirin halves the risk of stroke.', limit: 3 });
      const ids = found.results.map((r) => r.paper.id);
      assert.deepEqual(ids.filter((id) => id !== 'doi:10.1/reply' && !id.startsWith('aspirin-')).length, 1, ids.join(', '));
      assert.ok(ids.includes('doi:10.1/reply'), ids.join(', '));
      assert.equal(ids.length, 3, 'the place of the copies is taken by the next works');
    });

    it('refuses a dense or hybrid mode it cannot keep to', () => {
      assert.throws(() => new PaperLibrary({} as PaperStore, { mode: 'dense' }), /needs a sentence encoder \(attest\.retrieval\.encoder\.model\)/);
    });
  });

  describe('with live sources', () => {
    it('searches them for the claim and keeps what they find in the library, for later searches too', async () => {
      const source = new FakeSource('OpenAlex', async () => [FOUND]);
      const library = await lexicalLibrary({ liveSources: [source] });
      const found = await library.find({ text: 'Does aspirin prevent stroke?', limit: 3 });
      assert.deepEqual(source.queries, ['Does aspirin prevent stroke?']);
      assert.equal(found.results[0].paper.id, 'doi:10.1056/found');
      assert.equal(found.results[0].sentence, FOUND.abstract);
      assert.equal(found.results[0].paper.source?.id, 'openalex');
      const { store } = await PaperStore.open(path.join(dir, 'library'));
      assert.equal(store.get('doi:10.1056/found')?.title, FOUND.title);
    });

    it('notes a source that failed and still answers from the library', async () => {
      const broken = new FakeSource('Semantic Scholar', async () => {
        throw new SourceError('rate-limited', 'Semantic Scholar asked to slow down (HTTP 429).', 'semanticscholar');
      });
      const library = await lexicalLibrary({ liveSources: [broken, new FakeSource('OpenAlex', async () => [FOUND])] });
      const found = await library.find({ text: 'aspirin stroke', limit: 3 });
      assert.ok(found.notes.includes('Semantic Scholar could not be searched: Semantic Scholar asked to slow down (HTTP 429).'), found.notes.join('\n'));
      assert.ok(found.results.some((r) => r.paper.id === 'doi:10.1056/found'));
      assert.ok(found.results.some((r) => r.paper.id === 'aspirin-stroke'));
    });

    it('does not let a record without an abstract replace a paper that has one', async () => {
      const bare = { ...FOUND, id: 'W2', abstract: undefined };
      const library = await lexicalLibrary({ liveSources: [new FakeSource('OpenAlex', async () => [FOUND]), new FakeSource('Crossref', async () => [bare])] });
      await library.find({ text: 'aspirin stroke', limit: 3 });
      assert.equal(library.store.get('doi:10.1056/found')?.abstract, FOUND.abstract);
    });

    it("lists the library's papers while a source is searched, then the list with what it found, scoring no paper twice", async () => {
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const source = new FakeSource('OpenAlex', async () => (await answered, [FOUND]));
      const scored: string[] = [];
      const reranker: Reranker = {
        depth: 20,
        weight: 0.4,
        score: async (_claim, passages) => (scored.push(...passages), passages.map((passage) => passage.length)),
        dispose: async () => undefined,
      };
      const library = await lexicalLibrary({ liveSources: [source], reranker: async () => reranker });
      const firsts: EvidenceResults[] = [];
      const found = await library.find({
        text: 'Does aspirin prevent stroke?',
        limit: 3,
        // The source answers only once the first list is in.
        onLibraryResults: (results) => (firsts.push(results), answer()),
      });
      assert.equal(firsts.length, 1);
      const first = firsts[0].results.map((r) => r.paper.id);
      assert.ok(first.includes('aspirin-stroke') && !first.includes('doi:10.1056/found'), first.join(', '));
      assert.ok(
        found.results.some((r) => r.paper.id === 'doi:10.1056/found'),
        'the final list has what the source found',
      );
      assert.ok(scored.length > first.length);
      assert.deepEqual(scored, [...new Set(scored)], 'the papers of both lists scored once each');
    });

    it("hands over the first list in the ranking's order without waiting for the reranker, which scores the library's papers while the source is searched", async () => {
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const source = new FakeSource('OpenAlex', async () => (await answered, [FOUND]));
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const calls: string[][] = [];
      let called = (): void => undefined;
      const nextCall = (): Promise<void> => new Promise<void>((resolve) => (called = resolve));
      const reranker: Reranker = {
        depth: 20,
        weight: 1,
        // Held until released; the shortest passage first, the reverse of what the words rank first here.
        score: async (_claim, passages) => (calls.push([...passages]), called(), await released, passages.map((passage) => -passage.length)),
        dispose: async () => undefined,
      };
      const library = await lexicalLibrary({ liveSources: [source], reranker: async () => reranker });
      const byWords = library.store.lexical.search('aspirin stroke', 3).map((hit) => hit.id);
      let first: string[] = [];
      const libraryScored = nextCall();
      const searching = library.find({ text: 'aspirin stroke', limit: 3, onLibraryResults: (results) => (first = results.results.map((r) => r.paper.id)) });
      await libraryScored;
      assert.deepEqual(first, byWords, 'the first list came before any score, in the order of the words');
      // The final ranking asks only for what the source found, while the library's scores are still under way.
      const foundScored = nextCall();
      answer();
      await foundScored;
      release();
      const found = await searching;
      assert.equal(calls.length, 2);
      assert.deepEqual(calls.flat(), [...new Set(calls.flat())], 'each passage scored once');
      const lengths = found.results.map((r) => passageText(r.paper).length);
      assert.deepEqual(
        lengths,
        [...lengths].sort((a, b) => a - b),
        "the final list in the reranker's order",
      );
      assert.ok(found.results.some((r) => r.paper.id === 'doi:10.1056/found'));
    });

    it("scores the library's papers again for the final list when their scoring for the first list failed", async () => {
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const source = new FakeSource('OpenAlex', async () => (await answered, [FOUND]));
      // Each call held until its own gate opens, or fails.
      const gates: { open: () => void; fail: (error: Error) => void }[] = [];
      let called = (): void => undefined;
      const nextCall = (): Promise<void> => new Promise<void>((resolve) => (called = resolve));
      const reranker: Reranker = {
        depth: 20,
        weight: 1,
        score: async (_claim, passages) => {
          await new Promise<void>((open, fail) => (gates.push({ open, fail }), called()));
          return passages.map((passage) => -passage.length);
        },
        dispose: async () => undefined,
      };
      const library = await lexicalLibrary({ liveSources: [source], reranker: async () => reranker });
      const libraryScored = nextCall();
      const searching = library.find({ text: 'aspirin stroke', limit: 3, onLibraryResults: () => undefined });
      await libraryScored;
      const foundScored = nextCall();
      answer();
      await foundScored;
      // The library's scoring fails while the final ranking still scores what the source found.
      const retried = nextCall();
      gates[0].fail(new Error('the reranker’s worker restarted'));
      await new Promise((resolve) => setTimeout(resolve, 10));
      gates[1].open();
      await Promise.race([retried, searching]);
      gates[2]?.open();
      const found = await searching;
      assert.equal(gates.length, 3, 'the failed scores asked for again');
      assert.ok(!found.notes.some((note) => note.startsWith("The papers are in the search's own order")), found.notes.join('\n'));
      const lengths = found.results.map((r) => passageText(r.paper).length);
      assert.deepEqual(
        lengths,
        [...lengths].sort((a, b) => a - b),
        "the final list in the reranker's order",
      );
      assert.ok(
        found.results.every((r) => Number.isFinite(r.score) && r.score !== 0),
        found.results.map((r) => r.score).join(', '),
      );
    });

    it('gives no first list without live sources, nor an empty one', async () => {
      const firsts: EvidenceResults[] = [];
      await (await lexicalLibrary()).find({ text: 'aspirin stroke', limit: 3, onLibraryResults: (results) => firsts.push(results) });
      const { library: empty } = await PaperLibrary.open(path.join(dir, 'empty'), { liveSources: [new FakeSource('OpenAlex', async () => [FOUND])] });
      const found = await empty.find({ text: 'aspirin stroke', limit: 3, onLibraryResults: (results) => firsts.push(results) });
      assert.deepEqual(
        found.results.map((r) => r.paper.id),
        ['doi:10.1056/found'],
      );
      assert.deepEqual(firsts, []);
    });

    it('stops with the signal’s reason when cancelled during the search', async () => {
      const waiting = new FakeSource('OpenAlex', (_, options) => new Promise((_, reject) => options?.signal?.addEventListener('abort', () => reject(options.signal?.reason))));
      const library = await lexicalLibrary({ liveSources: [waiting] });
      const controller = new AbortController();
      const search = library.find({ text: 'aspirin', limit: 3, signal: controller.signal });
      const reason = new Error('the user moved on');
      controller.abort(reason);
      await assert.rejects(search, (error) => error === reason);
      await assert.rejects(library.find({ text: 'aspirin', limit: 3, signal: controller.signal }), (error) => error === reason);
    });
  });

  describe('with the sentence encoder the tests build', () => {
    /** What the library should rank by meaning, computed here from the encoder's own vectors. */
    async function byMeaning(embedder: OnnxEmbedder, papers: readonly Paper[], text: string): Promise<{ id: string; score: number }[]> {
      const [query] = await embedder.embed([text], 'query');
      const vectors = await embedder.embed(
        papers.map((p) => `${p.title} ${p.abstract ?? ''}`.trim()),
        'passage',
      );
      const cosine = (v: Float32Array) => v.reduce((sum, x, d) => sum + x * query[d], 0);
      return papers.map((p, i) => ({ id: p.id, score: cosine(vectors[i]) })).sort((a, b) => b.score - a.score);
    }

    it('embeds the papers it adds, keeps their vectors, and ranks by meaning and by both', async () => {
      const embedder = await encoder();
      const papers = await corpus();
      const { library } = await PaperLibrary.open(path.join(dir, 'library'), { encoder: { model: 'all-MiniLM-L6-v2', embedder } });
      await library.add(papers);
      const claim = 'Aspirin lowers the risk of stroke.';
      const expected = await byMeaning(embedder, papers, claim);

      const dense = new PaperLibrary(library.store, { encoder: { model: 'all-MiniLM-L6-v2', embedder }, mode: 'dense' });
      const byDense = await dense.find({ text: claim, limit: papers.length });
      assert.equal(byDense.mode, 'dense');
      assert.deepEqual(byDense.notes, []);
      assert.deepEqual(
        byDense.results.map((r) => r.paper.id),
        expected.map((r) => r.id),
      );

      const hybrid = await library.find({ text: claim, limit: 3 });
      assert.equal(hybrid.mode, 'hybrid');
      const fused = standardisedFusion(library.store.lexical.search(claim, FUSION.depth), expected, FUSION.denseWeight);
      assert.deepEqual(
        hybrid.results.map((r) => r.paper.id),
        fused.slice(0, 3).map((r) => r.id),
      );

      const { store } = await PaperStore.open(path.join(dir, 'library'));
      assert.deepEqual(store.encoder, { model: 'all-MiniLM-L6-v2', dimension: 4 });
      assert.deepEqual(store.withoutVectors('all-MiniLM-L6-v2'), []);
    });

    it('ranks by words, saying so, until the papers are embedded; then embeds the ones missing', async () => {
      const embedder = await encoder();
      await lexicalLibrary();
      const { library } = await PaperLibrary.open(path.join(dir, 'library'), { encoder: { model: 'all-MiniLM-L6-v2', embedder } });
      const before = await library.find({ text: 'stroke', limit: 3 });
      assert.equal(before.mode, 'lexical');
      assert.deepEqual(before.notes, ['Ranked by words alone: no paper of the library is embedded with all-MiniLM-L6-v2 yet.']);

      await library.add([paper('new', 'A new paper on stroke', 'Stroke care improved.')]);
      const partly = await library.find({ text: 'stroke', limit: 3 });
      assert.equal(partly.mode, 'hybrid');
      assert.deepEqual(partly.notes, ['6 of 7 papers are not embedded with all-MiniLM-L6-v2 yet; they are ranked by their words alone.']);

      const progress: string[] = [];
      assert.equal(await library.embedMissing({ onProgress: (done, total) => progress.push(`${done}/${total}`) }), 6);
      assert.deepEqual(progress, ['0/6', '6/6'], 'the size of the work first, before the first chunk is embedded');
      assert.deepEqual((await library.find({ text: 'stroke', limit: 3 })).notes, []);
      assert.equal(await library.embedMissing(), 0);
    });

    it("embeds a source's papers while a slower source is awaited, and keeps the vector of each paper's final text", async () => {
      const embedder = await encoder();
      const asked: string[][] = [];
      const watched = {
        embed: async (texts: readonly string[], kind: 'query' | 'passage') => (kind === 'passage' && asked.push([...texts]), embedder.embed(texts, kind)),
        dispose: async () => undefined,
      };
      let answerSlow!: () => void;
      const slowAnswered = new Promise<void>((resolve) => (answerSlow = resolve));
      const fuller = { ...FOUND, id: 'W3', doi: '10.1056/other', title: 'Aspirin and stroke, again', abstract: undefined };
      const slow = new FakeSource('Crossref', async () => {
        await slowAnswered;
        return [{ ...fuller, abstract: 'A fuller record of the same paper, with its abstract.' }];
      });
      const fast = new FakeSource('OpenAlex', async () => [FOUND, fuller]);
      const { library } = await PaperLibrary.open(path.join(dir, 'library'), { encoder: { model: 'all-MiniLM-L6-v2', embedder: watched }, liveSources: [fast, slow] });
      const searching = library.find({ text: 'aspirin stroke', limit: 3 });
      try {
        for (let waited = 0; asked.length === 0 && waited < 2_000; waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
        assert.deepEqual(
          asked[0],
          ['Aspirin for the primary prevention of stroke Aspirin prevented stroke in adults without vascular disease.', 'Aspirin and stroke, again'],
          'embedded before the slower source answered',
        );
      } finally {
        answerSlow();
        await searching;
      }
      const [expected] = await embedder.embed(['Aspirin and stroke, again A fuller record of the same paper, with its abstract.'], 'passage');
      const stored = (await library.store.dense())?.vector('doi:10.1056/other');
      assert.ok(stored);
      assert.ok(
        stored.every((x, i) => Math.abs(x - expected[i]) < 1e-6),
        'the vector of the fuller record, which replaced the first',
      );
      assert.deepEqual(library.store.withoutVectors('all-MiniLM-L6-v2'), []);
    });

    it('embeds the claim once for both lists of a search with live sources', async () => {
      const embedder = await encoder();
      const asked: TextKind[] = [];
      const watched = { embed: (texts: readonly string[], kind: TextKind) => (asked.push(kind), embedder.embed(texts, kind)), dispose: async () => undefined };
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const source = new FakeSource('OpenAlex', async () => (await answered, [FOUND]));
      const { library } = await PaperLibrary.open(path.join(dir, 'library'), { encoder: { model: 'all-MiniLM-L6-v2', embedder: watched }, liveSources: [source] });
      await library.add(await corpus());
      let first: EvidenceResults | undefined;
      const found = await library.find({ text: 'aspirin stroke', limit: 3, onLibraryResults: (results) => ((first = results), answer()) });
      assert.equal(first?.mode, 'hybrid');
      assert.equal(found.mode, 'hybrid');
      assert.equal(asked.filter((kind) => kind === 'query').length, 1);
    });

    it('embeds the claim again for the final list when its embedding failed for the first', async () => {
      const embedder = await encoder();
      let failures = 1;
      const flaky = {
        embed: async (texts: readonly string[], kind: TextKind) => {
          if (kind === 'query' && failures-- > 0) throw new Error('the encoder’s worker restarted');
          return embedder.embed(texts, kind);
        },
        dispose: async () => undefined,
      };
      let answer!: () => void;
      const answered = new Promise<void>((resolve) => (answer = resolve));
      const source = new FakeSource('OpenAlex', async () => (await answered, [FOUND]));
      const { library } = await PaperLibrary.open(path.join(dir, 'library'), { encoder: { model: 'all-MiniLM-L6-v2', embedder: flaky }, liveSources: [source] });
      await library.add(await corpus());
      setTimeout(answer, 50);
      const found = await library.find({ text: 'aspirin stroke', limit: 3, onLibraryResults: () => undefined });
      assert.equal(found.mode, 'hybrid');
      assert.equal(failures, -1, 'asked twice');
    });

    it('ranks by words, saying why, when the search by meaning fails', async () => {
      const embedder = await encoder();
      const { library } = await PaperLibrary.open(path.join(dir, 'library'), { encoder: { model: 'all-MiniLM-L6-v2', embedder } });
      await library.add(await corpus());
      // The encoder's folder now holds a model of another size than the one that embedded the library.
      const resized = { embed: async (texts: readonly string[]) => texts.map(() => new Float32Array(3).fill(1)), dispose: async () => undefined };
      const found = await new PaperLibrary(library.store, { encoder: { model: 'all-MiniLM-L6-v2', embedder: resized } }).find({
        text: 'Aspirin lowers the risk of stroke.',
        limit: 2,
      });
      assert.equal(found.mode, 'lexical');
      assert.deepEqual(found.notes, ['Ranked by words alone: the search by meaning failed (expected a vector of 4 dimensions, got 3).']);
      assert.deepEqual(
        found.results.map((r) => r.paper.id),
        library.store.lexical.search('Aspirin lowers the risk of stroke.', 2).map((h) => h.id),
      );
    });

    it('saves nothing more once stopped, not even the vectors that came in while the chunk before was saved', async () => {
      const embedder = await encoder();
      const { library } = await PaperLibrary.open(path.join(dir, 'library'));
      // Three chunks of the library's embedding (512 papers each).
      await library.add(Array.from({ length: 1_100 }, (_, i) => paper(`p${i}`, `Paper ${i} on stroke`, `Stroke care study ${i}.`)));
      // Its vectors come back whatever the stop, as those already on their way from the extension host do.
      const deaf = { embed: (texts: readonly string[], kind: TextKind) => embedder.embed(texts, kind), dispose: async () => undefined };
      const encoding = new PaperLibrary(library.store, { encoder: { model: 'all-MiniLM-L6-v2', embedder: deaf } });
      const stop = new AbortController();
      // Stopped as the first chunk's save ends, while the second chunk is embedded.
      const stopping = encoding.embedMissing({ signal: stop.signal, onProgress: (done) => done > 0 && stop.abort(new Error('Stopped.')) });
      await assert.rejects(stopping, /Stopped\./);
      assert.equal(library.store.countWithoutVectors('all-MiniLM-L6-v2'), 1_100 - 512);
      const { store } = await PaperStore.open(path.join(dir, 'library'));
      assert.equal(store.countWithoutVectors('all-MiniLM-L6-v2'), 1_100 - 512, 'as saved');
    });

    it('embeds every paper again for another encoder, whose vectors replace the old ones', async () => {
      const embedder = await encoder();
      const { library } = await PaperLibrary.open(path.join(dir, 'library'), { encoder: { model: 'all-MiniLM-L6-v2', embedder } });
      await library.add(await corpus());
      const other = new PaperLibrary(library.store, { encoder: { model: 'bge-small-en-v1.5', embedder } });
      assert.equal(other.store.withoutVectors('bge-small-en-v1.5').length, 6);
      assert.equal(await other.embedMissing(), 6);
      const { store } = await PaperStore.open(path.join(dir, 'library'));
      assert.deepEqual(store.encoder, { model: 'bge-small-en-v1.5', dimension: 4 });
    });
  });
});
