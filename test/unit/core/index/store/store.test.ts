import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../../../src/cli/main';
import { NewerStoreError, PaperStore, STORE_VERSION, type VectorBatch } from '../../../../../src/core/index/store/store';
import type { Paper } from '../../../../../src/core/papers/paper';
import { makeTempDir, snapshot } from '../../../support/tempDir';

const fs = nodeFs.promises;

function paper(id: string, title: string, abstract?: string): Paper {
  return { id, title, authors: [{ family: 'Doe', given: 'Jane' }], ...(abstract !== undefined && { abstract }), year: 2020 };
}

const FIRST = [
  paper('doi:10.1/aspirin', 'Daily aspirin and the risk of stroke', 'Daily aspirin reduced the risk of stroke by a fifth.'),
  paper('doi:10.1/statins', 'Statins and liver enzymes', 'Statins raised liver enzymes in few patients.'),
  paper('local-3', 'Glacier retreat in the Alps', 'Alpine glaciers lost a third of their volume.'),
];
const SECOND = [paper('doi:10.1/coffee', 'Evening coffee and sleep', 'Caffeine before bed shortened sleep.'), paper('local-5', 'Aerobic exercise and memory')];

function vectors(model: string, entries: Record<string, number[]>): VectorBatch {
  return { model, ids: Object.keys(entries), vectors: Object.values(entries).map((v) => Float32Array.from(v)) };
}

interface Manifest {
  version: number;
  generation: number;
  segments: { papers: string; lexical: string; count: number }[];
  vectors?: { model: string; dimension: number; segments: { file: string; ids: string; count: number }[] };
}

describe('the paper store', () => {
  let dir: string;
  let remove: () => Promise<void>;
  const originalRename = fs.rename;
  const originalReadFile = fs.readFile;
  const originalOpen = fs.open;

  beforeEach(async () => {
    const temp = await makeTempDir();
    remove = temp.remove;
    dir = path.join(temp.dir, 'library');
  });
  afterEach(async () => {
    fs.rename = originalRename;
    fs.readFile = originalReadFile;
    fs.open = originalOpen;
    await remove();
  });

  async function manifest(): Promise<Manifest> {
    return JSON.parse(await originalReadFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  }

  async function reopen(): Promise<PaperStore> {
    const { store, messages } = await PaperStore.open(dir);
    assert.deepEqual(messages, []);
    return store;
  }

  async function saved(papers: readonly Paper[], batch?: VectorBatch): Promise<PaperStore> {
    const { store } = await PaperStore.open(dir);
    await store.add(papers, batch);
    return store;
  }

  it('opens a folder that does not exist as an empty store, and writes nothing until papers are added', async () => {
    const { store, messages } = await PaperStore.open(dir);
    assert.equal(store.size, 0);
    assert.deepEqual(messages, []);
    await assert.rejects(fs.stat(dir), { code: 'ENOENT' });
  });

  it('gives back after a restart the papers, the lexical ranking and the vectors it saved', async () => {
    const before = await saved(FIRST, vectors('tiny-encoder', { 'doi:10.1/aspirin': [1, 0, 0], 'doi:10.1/statins': [0, 2, 0], 'local-3': [0.6, 0.8, 0] }));
    const after = await reopen();
    assert.deepEqual([...after.papers()], FIRST);
    assert.deepEqual(after.lexical.search('aspirin stroke liver', 10), before.lexical.search('aspirin stroke liver', 10));
    assert.deepEqual(
      after.lexical.search('aspirin stroke liver', 10).map((h) => h.id),
      ['doi:10.1/aspirin', 'doi:10.1/statins'],
    );
    assert.deepEqual(after.encoder, { model: 'tiny-encoder', dimension: 3 });
    const query = Float32Array.from([1, 0.1, 0]);
    assert.deepEqual(await (await after.dense())?.search(query, 3), await (await before.dense())?.search(query, 3));
    assert.deepEqual((await after.dense())?.vector('doi:10.1/statins'), Float32Array.from([0, 1, 0]));
    const m = await manifest();
    assert.equal(m.version, STORE_VERSION);
    assert.deepEqual(m.vectors && { model: m.vectors.model, dimension: m.vectors.dimension }, { model: 'tiny-encoder', dimension: 3 });
    const bytes = await fs.stat(path.join(dir, m.vectors?.segments[0].file ?? ''));
    assert.equal(bytes.size, 3 * 3 * 4);
  });

  it('adds papers as a new segment, leaving the segments saved before as they were', async () => {
    const store = await saved(FIRST);
    const first = await manifest();
    await store.add(SECOND);
    const second = await manifest();
    assert.equal(second.generation, first.generation + 1);
    assert.deepEqual(second.segments.slice(0, 1), first.segments);
    assert.deepEqual(second.segments[1].count, 2);
    const after = await reopen();
    assert.equal(after.size, 5);
    assert.deepEqual(
      after.lexical.search('caffeine sleep', 5).map((h) => h.id),
      ['doi:10.1/coffee'],
    );
    assert.deepEqual(
      after.lexical.search('aerobic exercise', 5).map((h) => h.id),
      ['local-5'],
    );
  });

  it('replaces a paper added again with the same id, on disk as in memory', async () => {
    const store = await saved(FIRST);
    await store.add([paper('local-3', 'Ice sheets of Greenland', 'Greenland lost ice.')]);
    for (const s of [store, await reopen()]) {
      assert.equal(s.size, 3);
      assert.equal(s.get('local-3')?.title, 'Ice sheets of Greenland');
      assert.deepEqual(
        s.lexical.search('greenland', 5).map((h) => h.id),
        ['local-3'],
      );
      assert.deepEqual(s.lexical.search('alpine glaciers', 5), []);
    }
  });

  it('compacts its segments into one once there are many, keeping every paper', async () => {
    const store = await saved(FIRST);
    for (let i = 0; i < 40; i++) await store.add([paper(`extra-${i}`, `Extra paper number ${i}`, `About topic${i}.`)]);
    const m = await manifest();
    assert.ok(m.segments.length <= 32, `${m.segments.length} segments`);
    const after = await reopen();
    assert.equal(after.size, 43);
    assert.deepEqual(
      after.lexical.search('topic39', 5).map((h) => h.id),
      ['extra-39'],
    );
    const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.papers.jsonl'));
    assert.ok(files.length <= m.segments.length + 2, `${files.length} papers files left on disk`);
  });

  it('keeps vectors of papers added before and after, and drops another encoder’s vectors for the new one’s', async () => {
    const store = await saved(FIRST, vectors('encoder-a', { 'doi:10.1/aspirin': [1, 0] }));
    await store.add(SECOND, vectors('encoder-a', { 'doi:10.1/coffee': [0, 1] }));
    assert.deepEqual(
      store.withoutVectors('encoder-a').map((p) => p.id),
      ['doi:10.1/statins', 'local-3', 'local-5'],
    );
    let after = await reopen();
    assert.deepEqual(
      (await (await after.dense())?.search(Float32Array.from([0, 1]), 5))?.map((h) => h.id),
      ['doi:10.1/coffee', 'doi:10.1/aspirin'],
    );
    await after.add([], vectors('encoder-b', { 'local-3': [1, 0, 0] }));
    after = await reopen();
    assert.deepEqual(after.encoder, { model: 'encoder-b', dimension: 3 });
    assert.deepEqual(after.withoutVectors('encoder-b').length, 4);
    assert.equal(after.withoutVectors('encoder-a').length, 5);
  });

  it('ranks a paper embedded again by its last vector only, whether or not the papers without vectors were counted first', async () => {
    const store = await saved(FIRST, vectors('encoder-a', { 'doi:10.1/aspirin': [1, 0], 'doi:10.1/statins': [0.6, 0.8] }));
    await store.add([], vectors('encoder-a', { 'doi:10.1/aspirin': [0, -1] }));
    assert.equal((await manifest()).vectors?.segments.length, 2, 'the new vector is a segment of its own');
    for (const countFirst of [true, false]) {
      const after = await reopen();
      if (countFirst) assert.equal(after.countWithoutVectors('encoder-a'), FIRST.length - 2);
      const hits = (await (await after.dense())?.search(Float32Array.from([1, 0]), 5)) ?? [];
      assert.deepEqual(
        hits.map((h) => h.id),
        ['doi:10.1/statins', 'doi:10.1/aspirin'],
        countFirst ? 'counted first' : 'read at once',
      );
      assert.ok(Math.abs(hits[1].score) < 1e-6, 'the paper is ranked by its new vector');
    }
    const distinct = await reopen();
    distinct.countWithoutVectors('encoder-a');
    await distinct.add([], vectors('encoder-a', { 'local-3': [-1, 0] }));
    assert.deepEqual(
      (await (await distinct.dense())?.search(Float32Array.from([-1, 0]), 1))?.map((h) => h.id),
      ['local-3'],
      'a vector added to an index read without its map of ids',
    );
  });

  it('ranks by meaning the vectors saved while its own were being read, and those added after', async () => {
    await saved(FIRST, vectors('encoder-a', { 'doi:10.1/aspirin': [1, 0], 'doi:10.1/statins': [0.6, 0.8] }));
    const store = await reopen();
    const reading = store.dense();
    await store.add(SECOND, vectors('encoder-a', { 'doi:10.1/coffee': [0, 1] }));
    const dense = await reading;
    assert.deepEqual(
      (await dense?.search(Float32Array.from([0, 1]), 3))?.map((h) => h.id),
      ['doi:10.1/coffee', 'doi:10.1/statins', 'doi:10.1/aspirin'],
    );
    await store.add([], vectors('encoder-a', { 'local-5': [0, -1] }));
    assert.deepEqual(
      (await (await store.dense())?.search(Float32Array.from([0, -1]), 1))?.map((h) => h.id),
      ['local-5'],
    );
  });

  it('reports a vectors file that went bad after it was opened, and reads it again once it is whole', async () => {
    await saved(FIRST, vectors('encoder-a', { 'doi:10.1/aspirin': [1, 0] }));
    const store = await reopen();
    const file = path.join(dir, (await manifest()).vectors?.segments[0].file ?? '');
    const whole = await fs.readFile(file);
    await fs.writeFile(file, whole.subarray(0, 4));
    await assert.rejects(store.dense(), /holds 4 bytes, not 8/);
    await fs.writeFile(file, whole);
    assert.deepEqual(
      (await (await store.dense())?.search(Float32Array.from([1, 0]), 1))?.map((h) => h.id),
      ['doi:10.1/aspirin'],
    );
  });

  it('refuses vectors for papers it does not hold, before changing anything', async () => {
    const store = await saved(FIRST);
    await assert.rejects(store.add([paper('new', 'New')], vectors('e', { nowhere: [1, 0] })), /not in the store/);
    assert.equal(store.get('new'), undefined);
  });

  it('leaves the previous store loadable when a save dies before its manifest is in place', async () => {
    const store = await saved(FIRST);
    const before = await manifest();
    fs.rename = () => Promise.reject(Object.assign(new Error('simulated crash'), { code: 'EIO', syscall: 'rename' }));
    await assert.rejects(store.add(SECOND), /simulated crash/);
    assert.deepEqual(await manifest(), before);
    const survivor = await reopen();
    assert.deepEqual(
      [...survivor.papers()].map((p) => p.id),
      FIRST.map((p) => p.id),
    );
    assert.deepEqual(
      (await fs.readdir(dir)).filter((f) => f.includes('.tmp')),
      [],
    );

    fs.rename = originalRename;
    await store.add([paper('after-crash', 'Written after the crash')]);
    const healed = await reopen();
    assert.deepEqual([...healed.papers()].map((p) => p.id).sort(), [...FIRST, ...SECOND, paper('after-crash', '')].map((p) => p.id).sort());
  });

  describe('when the store on disk cannot be read', () => {
    beforeEach(async () => {
      await saved(FIRST, vectors('encoder-a', { 'doi:10.1/aspirin': [1, 0] }));
    });

    /** Opening only reads: the damaged files stay as they are until a writer saves the rebuilt store. */
    async function rebuilt(pattern: RegExp, size: number): Promise<PaperStore> {
      const before = await snapshot(dir);
      const { store, messages } = await PaperStore.open(dir);
      assert.equal(messages.length, 1, messages.join('\n'));
      assert.match(messages[0], pattern);
      assert.match(messages[0], /The files are repaired when papers are next added\./);
      assert.equal(store.size, size);
      assert.equal(store.encoder, undefined);
      assert.deepEqual(await snapshot(dir), before);
      await store.add([]);
      const again = await reopen();
      assert.equal(again.size, size);
      return store;
    }

    it('rebuilds from the papers file when the manifest is not JSON', async () => {
      await fs.writeFile(path.join(dir, 'manifest.json'), '{"format": "attest-paper-st');
      const store = await rebuilt(/could not be read \(manifest\.json is not JSON\); rebuilt its index from 3 papers\./, 3);
      assert.deepEqual(
        store.lexical.search('glacier', 5).map((h) => h.id),
        ['local-3'],
      );
    });

    it('rebuilds a store of another format version, saying which', async () => {
      const m = await manifest();
      await fs.writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ ...m, version: 0 }));
      await rebuilt(/format version 0; this Attest reads versions 1 and 2\); rebuilt its index from 3 papers/, 3);
    });

    it('leaves a store of a newer format alone, refusing to read or write it, and attest index add exits 2', async () => {
      const m = await manifest();
      await fs.writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ ...m, version: STORE_VERSION + 1, newField: 'kept' }));
      const before = await snapshot(dir);
      await assert.rejects(
        PaperStore.open(dir),
        (error: unknown) =>
          error instanceof NewerStoreError &&
          error.message.includes(`format version ${STORE_VERSION + 1}; this Attest reads version ${STORE_VERSION}); it was left as it is. Update Attest`),
      );
      const papers = path.join(dir, '..', 'more.jsonl');
      await fs.writeFile(papers, `${JSON.stringify({ id: 'new-1', title: 'A new paper', abstract: 'Text.' })}\n`);
      let err = '';
      const code = await main(['index', 'add', papers, '--store', dir], { out: () => undefined, err: (t) => (err += t) });
      assert.equal(code, 2);
      assert.match(err, new RegExp(`attest index: .*format version ${STORE_VERSION + 1}.*Update Attest`));
      assert.deepEqual(await snapshot(dir), before);
    });

    it('does not write over a store a newer Attest saved after this one opened it', async () => {
      const { store } = await PaperStore.open(dir);
      const m = await manifest();
      await fs.writeFile(path.join(dir, 'manifest.json'), JSON.stringify({ ...m, version: STORE_VERSION + 1 }));
      const before = await snapshot(dir);
      await assert.rejects(store.add([paper('late', 'Added late')]), NewerStoreError);
      assert.deepEqual(await snapshot(dir), before);
    });

    it('rebuilds from the readable lines of a truncated papers file', async () => {
      const file = path.join(dir, (await manifest()).segments[0].papers);
      const text = await fs.readFile(file, 'utf8');
      await fs.writeFile(file, text.slice(0, text.length - 20));
      await rebuilt(/its index says\); rebuilt its index from 2 papers, skipping 1 unreadable line\./, 2);
    });

    it('keeps a papers file with a damaged line, byte for byte, in damaged/ when the rebuilt store is written, and says so', async () => {
      const name = (await manifest()).segments[0].papers;
      const file = path.join(dir, name);
      const text = await fs.readFile(file, 'utf8');
      const damaged = text.slice(0, text.length - 20);
      await fs.writeFile(file, damaged);
      const { store, messages } = await PaperStore.open(dir);
      const said = `${name} could not be read in full: it is then kept as it was in ${path.join(dir, 'damaged')}.`;
      assert.ok(messages[0].endsWith(said), messages[0]);
      await assert.rejects(fs.stat(path.join(dir, 'damaged')), 'opening moved nothing');
      await store.add([paper('late', 'Added after the damage')]);
      assert.equal(await fs.readFile(path.join(dir, 'damaged', name), 'utf8'), damaged);
      assert.ok(!(await fs.readdir(dir)).includes(name), 'the damaged file is still among the data files');
      const again = await reopen();
      assert.equal(again.size, 3);
      await again.add([paper('later', 'Added once repaired')]);
      assert.equal(await fs.readFile(path.join(dir, 'damaged', name), 'utf8'), damaged, 'a later save touched the kept file');
    });

    it('rebuilds when the lexical index is gone', async () => {
      await fs.rm(path.join(dir, (await manifest()).segments[0].lexical));
      await rebuilt(/ENOENT.*rebuilt its index from 3 papers/, 3);
    });

    it('rebuilds, without vectors, when the vectors file has the wrong size', async () => {
      const segment = (await manifest()).vectors?.segments[0];
      await fs.writeFile(path.join(dir, segment?.file ?? ''), Buffer.alloc(5));
      await rebuilt(/holds 5 bytes, not 1 vectors of 2 floats/, 3);
    });

    it('rebuilds from the papers files in the folder when the manifest is gone', async () => {
      await fs.rm(path.join(dir, 'manifest.json'));
      await rebuilt(/manifest\.json is missing/, 3);
    });

    it('starts empty, saying so, when no papers file can be read either', async () => {
      for (const file of await fs.readdir(dir)) await fs.rm(path.join(dir, file));
      await fs.writeFile(path.join(dir, 'manifest.json'), 'garbage');
      await rebuilt(/could not be read \(manifest\.json is not JSON\); started empty\./, 0);
    });
  });

  describe('with readers opening it while a save runs', () => {
    /** Runs `during` once, after a reader has read the manifest and before it reads the files it names. */
    function interceptManifestRead(during: () => Promise<void>): void {
      let done = false;
      // Once the manifest is open, later saves replace it and remove the files it names.
      fs.open = (async (...args: Parameters<typeof originalOpen>) => {
        const handle = await originalOpen(...args);
        if (!done && String(args[0]).endsWith('manifest.json')) {
          done = true;
          await during();
        }
        return handle;
      }) as typeof fs.open;
    }

    const bulk = Array.from({ length: 1200 }, (_, i) => paper(`bulk-${i}`, `Bulk paper ${i}`));

    it('loads the generation it read, whose files the next save keeps', async () => {
      const writer = await saved(FIRST);
      await writer.add(bulk);
      interceptManifestRead(() => writer.add(SECOND));
      const { store, messages } = await PaperStore.open(dir);
      assert.deepEqual(messages, []);
      assert.equal(store.size, 3 + 1200);
    });

    it('starts over from the new manifest when later saves removed the files it was about to read', async () => {
      const writer = await saved(bulk);
      await writer.add(FIRST);
      // Past 32 segments the segments after the largest are merged, FIRST's among them, and two saves on its files are gone.
      const more = Array.from({ length: 34 }, (_, i) => paper(`more-${i}`, `One more paper ${i}`));
      interceptManifestRead(async () => {
        for (const one of more) await writer.add([one]);
      });
      const { store, messages } = await PaperStore.open(dir);
      assert.deepEqual(messages, []);
      assert.equal(store.size, 1200 + 3 + 34);
      assert.equal(store.get('doi:10.1/aspirin')?.title, FIRST[0].title);
    });
  });
});
