import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { asRecord } from '../../../../src/core/bibliography/citing';
import { citationKeyFor } from '../../../../src/core/bibliography/generate';
import { PaperLibrary } from '../../../../src/core/index/library';
import { LibraryThread } from '../../../../src/core/index/libraryThread';
import { PaperStore } from '../../../../src/core/index/store/store';
import { builtInRerankerFolder } from '../../../../src/core/models/builtIn';
import { OnnxReranker } from '../../../../src/core/models/reranker';
import type { Paper } from '../../../../src/core/papers/paper';
import type { Embedder, TextKind } from '../../../../src/core/models/embedder';
import { corpus, FakeSource, FOUND } from '../../support/paperSources';
import { REPO_ROOT } from '../../support/helpers';
import { makeTempDir } from '../../support/tempDir';

/** Vectors from letter counts: enough to rank by, the same in both threads. */
class LetterEmbedder implements Embedder {
  readonly asked: TextKind[] = [];
  async embed(texts: readonly string[], kind: TextKind): Promise<Float32Array[]> {
    this.asked.push(kind);
    return texts.map((text) => {
      const vector = new Float32Array(26);
      for (const c of text.toLowerCase()) if (c >= 'a' && c <= 'z') vector[c.charCodeAt(0) - 97]++;
      return vector;
    });
  }
  async dispose(): Promise<void> {}
}

/** What `ask` answers once it is not empty: the worker indexes for completion in the background. */
async function until<T>(ask: () => Promise<readonly T[]>): Promise<readonly T[]> {
  for (let tries = 0; ; tries++) {
    const answer = await ask();
    if (answer.length > 0) return answer;
    if (tries === 200) throw new Error('Nothing after 200 tries.');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the paper library in a worker thread', () => {
  let dir: string;
  let remove: () => Promise<void>;
  let thread: LibraryThread;
  beforeEach(async () => {
    ({ dir, remove } = await makeTempDir());
    thread = new LibraryThread();
  });
  afterEach(async () => {
    await thread.dispose();
    await remove();
  });

  it('finds what the library finds in this thread, by words and by the host’s encoder, with the best sentences', async () => {
    const papers = await corpus();
    const embedder = new LetterEmbedder();
    const encoder = { model: 'letters', embedder };
    assert.deepEqual(await thread.setUp({ dir: path.join(dir, 'there'), encoder }), []);
    assert.equal(await thread.add(papers), papers.length);
    const { library } = await PaperLibrary.open(path.join(dir, 'here'), { encoder });
    await library.add(papers);
    for (const text of ['Aspirin lowers the risk of stroke.', 'protein folding']) {
      const there = await thread.find({ text, limit: 4 });
      assert.equal(there.mode, 'hybrid');
      assert.deepEqual(there, await library.find({ text, limit: 4 }));
    }
    assert.ok(embedder.asked.includes('query') && embedder.asked.includes('passage'));
  });

  it('reorders each search with the reranker folder it is set up with, loaded in the worker, and says so when it cannot be loaded', async () => {
    const papers = await corpus();
    const builtIn = await builtInRerankerFolder([REPO_ROOT]);
    assert.ok(builtIn);
    await thread.setUp({ dir: path.join(dir, 'there'), reranker: { dir: builtIn, threads: 1 } });
    await thread.add(papers);
    const reranker = await OnnxReranker.load(builtIn, { threads: 1 });
    const { library } = await PaperLibrary.open(path.join(dir, 'here'), { reranker: async () => reranker });
    await library.add(papers);
    const text = 'Aspirin lowers the risk of stroke in older adults.';
    const there = await thread.find({ text, limit: 3 });
    assert.deepEqual(there, await library.find({ text, limit: 3 }));
    await reranker.dispose();

    await thread.setUp({ dir: path.join(dir, 'there'), reranker: { dir: path.join(dir, 'no-reranker') } });
    const without = await thread.find({ text, limit: 3 });
    assert.ok(
      without.notes.some((note) => /own order: the reranker could not be loaded \(The model folder .*no-reranker does not exist/.test(note)),
      without.notes.join('\n'),
    );
  });

  it('lets a search begun before the reranker was turned off finish reordered by it, and searches after without it', async () => {
    const papers = await corpus();
    const builtIn = await builtInRerankerFolder([REPO_ROOT]);
    assert.ok(builtIn);
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const slow = new FakeSource('OpenAlex', async () => {
      await held;
      return [];
    });
    await thread.setUp({ dir: path.join(dir, 'there'), liveSources: [slow], reranker: { dir: builtIn, threads: 1 } });
    await thread.add(papers);
    const reranker = await OnnxReranker.load(builtIn, { threads: 1 });
    const { library } = await PaperLibrary.open(path.join(dir, 'here'), { reranker: async () => reranker });
    await library.add(papers);
    const text = 'Aspirin lowers the risk of stroke in older adults.';
    const expected = await library.find({ text, limit: 3 });
    await reranker.dispose();

    const begun = thread.find({ text, limit: 3 });
    await until(async () => slow.queries);
    await thread.setUp({ dir: path.join(dir, 'there'), liveSources: [] });
    answer();
    const during = await begun;
    assert.deepEqual(during.results, expected.results, 'reordered by the reranker it began with');
    assert.ok(!during.notes.some((note) => /own order/.test(note)), during.notes.join('\n'));
    const byWords = await (await PaperLibrary.open(path.join(dir, 'here'))).library.find({ text, limit: 3 });
    assert.deepEqual((await thread.find({ text, limit: 3 })).results, byWords.results, 'then in the search’s own order');
  });

  it('adds only the papers it lacks when asked so, and keeps them on disk', async () => {
    const papers = await corpus();
    await thread.setUp({ dir });
    assert.equal(await thread.add(papers.slice(0, 2)), 2);
    assert.equal(await thread.add(papers, { onlyNew: true }), papers.length - 2);
    assert.equal(await thread.add(papers, { onlyNew: true }), 0);
    const { library } = await PaperLibrary.open(dir);
    assert.equal(library.store.size, papers.length);
  });

  it("completes citations from the store's papers in its thread, each with its key, and finds papers added later", async () => {
    const papers = await corpus();
    await thread.setUp({ dir });
    await thread.add(papers);
    await thread.dispose();
    thread = new LibraryThread();
    await thread.setUp({ dir });
    const first = papers[0];
    const typed = first.title.split(' ').slice(0, 2).join(' ');
    // The first completion starts indexing and answers from what is indexed: soon, every paper.
    const [match] = await until(async () => (await thread.complete(typed, 10)).filter((m) => m.paper.id === first.id));
    assert.deepEqual(match.paper, first);
    assert.equal(match.key, citationKeyFor(asRecord(first), new Set()));
    await thread.add([{ id: 'doi:10.1/later', title: 'Zebrafish fin regeneration', authors: [{ family: 'Jumper' }], year: 2021 }]);
    const [later] = await until(() => thread.complete('zebraf regen', 10));
    assert.equal(later.key, 'jumper2021zebrafish');
  });

  it('drops a completion whose signal is aborted, with its reason, and answers the next one', async () => {
    await thread.setUp({ dir });
    await thread.add(await corpus());
    const controller = new AbortController();
    const asked = thread.complete('aspirin', 10, controller.signal);
    controller.abort(new Error('A newer keystroke.'));
    await assert.rejects(asked, /A newer keystroke/);
    await assert.rejects(thread.complete('aspirin', 10, controller.signal), /A newer keystroke/, 'aborted before it is asked');
    assert.ok((await until(() => thread.complete('aspirin', 10))).length > 0);
  });

  it('searches the host’s live sources, adding what they find and noting a failure', async () => {
    const failing = new FakeSource('OpenAlex', async () => {
      throw new Error('OpenAlex asked to slow down (HTTP 429).');
    });
    await thread.setUp({ dir, liveSources: [new FakeSource('OpenAlex', async () => [FOUND]), failing] });
    const found = await thread.find({ text: 'Does aspirin prevent stroke?', limit: 3 });
    assert.equal(found.results[0].paper.id, 'doi:10.1056/found');
    assert.ok(found.notes.includes('OpenAlex could not be searched: OpenAlex asked to slow down (HTTP 429).'), found.notes.join('\n'));
    assert.equal((await PaperStore.open(dir)).store.get('doi:10.1056/found')?.title, FOUND.title);
  });

  it('sends a first list from the library while the host’s live sources are searched', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    await thread.setUp({ dir, liveSources: [new FakeSource('OpenAlex', async () => (await answered, [FOUND]))] });
    await thread.add(await corpus());
    const firsts: string[][] = [];
    const found = await thread.find({
      text: 'Does aspirin prevent stroke?',
      limit: 3,
      onLibraryResults: (results) => (firsts.push(results.results.map((r) => r.paper.id)), answer()),
    });
    assert.equal(firsts.length, 1);
    assert.ok(firsts[0].includes('aspirin-stroke') && !firsts[0].includes('doi:10.1056/found'), firsts[0].join(', '));
    assert.ok(found.results.some((r) => r.paper.id === 'doi:10.1056/found'));
  });

  it('stops a search with the signal’s reason at once, and answers the next one', async () => {
    const waiting = new FakeSource('OpenAlex', (_, options) => new Promise((_, reject) => options?.signal?.addEventListener('abort', () => reject(options.signal?.reason))));
    await thread.setUp({ dir, liveSources: [waiting] });
    await thread.add(await corpus());
    const controller = new AbortController();
    const search = thread.find({ text: 'aspirin', limit: 3, signal: controller.signal });
    const reason = new Error('the user moved on');
    setTimeout(() => controller.abort(reason), 50);
    await assert.rejects(search, (error) => error === reason);
    await thread.setUp({ dir });
    assert.equal((await thread.find({ text: 'aspirin stroke', limit: 1 })).results[0].paper.id, 'aspirin-stroke');
  });

  it('imports a file in the worker, counting the records it could not read, and says why a file is not text', async () => {
    await thread.setUp({ dir });
    const file = path.join(dir, 'papers.jsonl');
    await fs.writeFile(file, `${JSON.stringify({ id: 'a', title: 'Aspirin', abstract: 'Aspirin helps.' })}\nnot json\n`);
    const progress: string[] = [];
    const summary = await thread.importFile(file, 'jsonl', { onProgress: (done, total) => progress.push(`${done}/${total}`) });
    assert.deepEqual({ ...summary, problems: undefined }, { added: 1, problemCount: 1, problems: undefined });
    assert.ok('problems' in summary && summary.problems[0].line === 2);
    assert.deepEqual(progress, ['1/1']);
    const binary = path.join(dir, 'binary.ris');
    await fs.writeFile(binary, Buffer.from([0, 1, 2, 0, 255]));
    const refused = await thread.importFile(binary, 'ris');
    assert.ok('unreadable' in refused && refused.unreadable.includes('binary.ris'), JSON.stringify(refused));
  });

  it('never saves vectors of a new encoder under the old one’s name: the old setup’s embedding is refused', async () => {
    await thread.setUp({ dir });
    const papers = Array.from({ length: 600 }, (_, i): Paper => ({ id: `p${i}`, title: `Paper ${i}`, abstract: 'Aspirin and stroke.', authors: [] }));
    await thread.add(papers);
    const letters = new LetterEmbedder();
    let resetting: Promise<readonly string[]> | undefined;
    const first: Embedder = {
      embed: async (texts, kind) => {
        // The settings change while the first chunk is embedded: the next chunk's call comes after.
        resetting ??= thread.setUp({ dir, encoder: { model: 'letters', embedder: letters } });
        return letters.embed(texts, kind);
      },
      dispose: async () => undefined,
    };
    await thread.setUp({ dir, encoder: { model: 'first', embedder: first } });
    await assert.rejects(thread.embedMissing(), /set up again with other settings/);
    await resetting;
    assert.equal(await thread.embedMissing(), 600);
    const { store } = await PaperStore.open(dir);
    assert.deepEqual(store.encoder?.model, 'letters');
    assert.deepEqual(store.withoutVectors('letters'), []);
  });

  it('adds papers to embed later without asking the encoder, searches them by words meanwhile, and embeds them when asked', async () => {
    const letters = new LetterEmbedder();
    await thread.setUp({ dir, encoder: { model: 'letters', embedder: letters } });
    await thread.add(await corpus());
    const asked = letters.asked.length;
    const bibliography: Paper[] = [{ id: 'bib:lee', title: 'Aspirin after a stroke', abstract: 'Aspirin after a first stroke prevents a second.', authors: [] }];
    assert.equal(await thread.add(bibliography, { onlyNew: true, embedLater: true }), 1);
    assert.equal(letters.asked.length, asked, 'the encoder was not asked for the new paper');
    const meanwhile = await thread.find({ text: 'aspirin after a stroke', limit: 7 });
    assert.equal(meanwhile.mode, 'hybrid');
    assert.deepEqual(meanwhile.notes, ['1 of 7 papers are not embedded with letters yet; they are ranked by their words alone.']);
    assert.ok(
      meanwhile.results.some((r) => r.paper.id === 'bib:lee'),
      'found by its words',
    );
    assert.equal(await thread.embedMissing(), 1);
    assert.deepEqual((await thread.find({ text: 'aspirin after a stroke', limit: 3 })).notes, []);
  });

  it('imports a file to embed later: searched by words at once, embedded when asked', async () => {
    const letters = new LetterEmbedder();
    await thread.setUp({ dir, encoder: { model: 'letters', embedder: letters } });
    const file = path.join(dir, 'papers.jsonl');
    await fs.writeFile(file, ['a', 'b', 'c'].map((id) => JSON.stringify({ id, title: `Aspirin ${id}`, abstract: 'Aspirin and stroke.' })).join('\n'));
    const summary = await thread.importFile(file, 'jsonl', { embedLater: true });
    assert.equal('added' in summary && summary.added, 3);
    assert.deepEqual(letters.asked, [], 'the encoder was not asked during the import');
    assert.deepEqual((await thread.find({ text: 'aspirin', limit: 3 })).notes, ['Ranked by words alone: no paper of the library is embedded with letters yet.']);
    assert.equal(await thread.embedMissing(), 3);
    assert.deepEqual((await thread.find({ text: 'aspirin', limit: 3 })).notes, []);
  });

  it('embeds at once, even when asked to embed later, a paper whose text changed, and never saves a vector of text it no longer holds', async () => {
    const letters = new LetterEmbedder();
    await thread.setUp({ dir, encoder: { model: 'letters', embedder: letters } });
    await thread.add([{ id: 'p', title: 'Aspirin', abstract: 'Aspirin and stroke.', authors: [] }]);
    const { store: before } = await PaperStore.open(dir);
    assert.deepEqual(before.withoutVectors('letters'), []);
    // Imported again with another abstract: the vector of the old one would rank it by text it no longer has.
    const file = path.join(dir, 'again.jsonl');
    await fs.writeFile(file, JSON.stringify({ id: 'p', title: 'Aspirin', abstract: 'Glaciers and summers.' }));
    await thread.importFile(file, 'jsonl', { embedLater: true });
    const { store } = await PaperStore.open(dir);
    const vector = (await store.dense())?.vector('p');
    const [now, old] = await letters.embed(['Aspirin Glaciers and summers.', 'Aspirin Aspirin and stroke.'], 'passage');
    assert.ok(vector, 'the changed paper has a vector');
    const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i], 0) / Math.hypot(...a) / Math.hypot(...b);
    assert.ok(cosine(vector, now) > 0.999, `of its new text (${cosine(vector, now)})`);
    assert.ok(cosine(vector, old) < 0.9, 'not of its old one');
  });

  it('keeps no vector of old text when a paper is replaced while the background embedding reads it', async () => {
    await thread.setUp({ dir });
    await thread.add([{ id: 'p', title: 'Aspirin', abstract: 'Aspirin and stroke.', authors: [] }]);
    const letters = new LetterEmbedder();
    let replaced = false;
    const replacing: Embedder = {
      embed: async (texts, kind) => {
        if (!replaced) {
          replaced = true;
          // Imported again with another abstract while the old text is being embedded.
          await thread.add([{ id: 'p', title: 'Aspirin', abstract: 'Glaciers and summers.', authors: [] }], { embedLater: true });
        }
        return letters.embed(texts, kind);
      },
      dispose: async () => undefined,
    };
    await thread.setUp({ dir, encoder: { model: 'letters', embedder: replacing } });
    await thread.embedMissing();
    const { store } = await PaperStore.open(dir);
    const vector = (await store.dense())?.vector('p');
    const [now] = await letters.embed(['Aspirin Glaciers and summers.'], 'passage');
    assert.ok(vector);
    const cosine = [...vector].reduce((sum, x, i) => sum + x * now[i], 0) / Math.hypot(...vector) / Math.hypot(...now);
    assert.ok(cosine > 0.999, `the vector is of the text the library holds (${cosine})`);
  });

  it('answers a search made as its embedding is stopped, keeps what was embedded before the stop, and embeds the rest when asked', async () => {
    // More papers than one chunk of the embedding: the stop comes while the first chunk is saved and the second embedded.
    const papers: Paper[] = Array.from({ length: 600 }, (_, i) => ({ id: `p${i}`, title: `Aspirin trial ${i}`, abstract: 'Aspirin and stroke.', authors: [] }));
    await thread.setUp({ dir });
    await thread.add(papers);
    assert.equal(await thread.unembedded(), undefined, 'without an encoder there is nothing to count');
    const letters = new LetterEmbedder();
    const stop = new AbortController();
    let search: ReturnType<LibraryThread['find']> | undefined;
    const stopped: Embedder = {
      embed: async (texts, kind, signal) => {
        if (kind === 'passage' && letters.asked.includes('passage') && !search) {
          search = thread.find({ text: 'aspirin stroke', limit: 3 });
          stop.abort(new Error('Stopped by the user.'));
          signal?.throwIfAborted();
        }
        return letters.embed(texts, kind);
      },
      dispose: async () => undefined,
    };
    await thread.setUp({ dir, encoder: { model: 'letters', embedder: stopped } });
    await assert.rejects(thread.embedMissing({ signal: stop.signal }), /Stopped by the user/);
    assert.ok(search, 'the embedding reached its second chunk');
    assert.deepEqual((await search).notes, ['88 of 600 papers are not embedded with letters yet; they are ranked by their words alone.']);
    assert.equal(await thread.unembedded(), 88, 'what the stop left, as the message after it says');
    assert.equal(await thread.embedMissing(), 88);
    assert.equal(await thread.unembedded(), 0);
    assert.deepEqual((await thread.find({ text: 'aspirin stroke', limit: 3 })).notes, []);
  });

  it('starts a new thread after the last one was closed, set up as before', async () => {
    await thread.setUp({ dir });
    await thread.add(await corpus());
    await thread.dispose();
    assert.equal((await thread.find({ text: 'aspirin stroke', limit: 1 })).results[0].paper.id, 'aspirin-stroke');
  });

  it('reports a store that cannot be read now, and opens it once it can be', async () => {
    const store = path.join(dir, 'library');
    await fs.writeFile(store, 'not a folder');
    await assert.rejects(thread.setUp({ dir: store }), /could not be read .*left as it is/);
    assert.equal(await fs.readFile(store, 'utf8'), 'not a folder');
    await fs.rm(store);
    await thread.setUp({ dir: store });
    assert.equal(await thread.add(await corpus()), 6);
  });
});
