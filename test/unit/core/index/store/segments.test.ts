import assert from 'node:assert/strict';
import * as nodeFs from 'node:fs';
import * as path from 'node:path';
import { main } from '../../../../../src/cli/main';
import { LexicalIndex } from '../../../../../src/core/index/lexical';
import { PaperStore, STORE_VERSION } from '../../../../../src/core/index/store/store';
import type { Paper } from '../../../../../src/core/papers/paper';
import { makeTempDir, snapshot } from '../../../support/tempDir';

const fs = nodeFs.promises;

const WORDS = 'aspirin stroke statin liver glacier alpine coffee sleep memory exercise cohort trial risk dose'.split(' ');

/** Paper `i`: words drawn by its number, so that papers share terms in different measure. */
function paper(i: number, tag = ''): Paper {
  const words = (n: number, salt: number): string => Array.from({ length: n }, (_, k) => WORDS[(i * 7 + k * (salt + (i % 5)) + (k >> 2)) % WORDS.length]).join(' ');
  return { id: `p${i}`, title: `${words(4, 3)} ${tag}`.trim(), authors: [{ family: 'Doe' }], abstract: `${words(20, 1)}. ${words(12, 2)} ${tag}.` };
}

const QUERIES = ['aspirin stroke', 'glacier memory exercise', 'coffee', 'statin liver dose risk', 'revised', 'nothing matches this'];

describe('the paper store, read a segment at a time', () => {
  const originalRename = fs.rename;
  let temp: Awaited<ReturnType<typeof makeTempDir>>;
  let dir: string;
  beforeEach(async () => {
    temp = await makeTempDir();
    dir = path.join(temp.dir, 'library');
  });
  afterEach(async () => {
    fs.rename = originalRename;
    await temp.remove();
  });

  /** What one index in memory of the same papers, added in the same order, answers. */
  function eager(batches: readonly (readonly Paper[])[]): LexicalIndex {
    const index = new LexicalIndex();
    for (const batch of batches) for (const p of batch) index.add(p);
    return index;
  }

  it('ranks as one index of the same papers would, with papers replaced by later segments left out', async () => {
    const batches = [
      Array.from({ length: 120 }, (_, i) => paper(i)),
      Array.from({ length: 60 }, (_, i) => paper(120 + i)),
      // Papers of both earlier segments again, revised: their first rows must neither rank nor count.
      [paper(3, 'revised'), paper(130, 'revised'), paper(77, 'revised')],
      [paper(200)],
    ];
    const { store: writer } = await PaperStore.open(dir);
    for (const batch of batches) await writer.add(batch);
    const { store, messages } = await PaperStore.open(dir);
    assert.deepEqual(messages, []);
    const index = eager(batches);
    assert.equal(store.size, index.size);
    for (const query of QUERIES) {
      assert.deepEqual(store.lexical.search(query, 15), index.search(query, 15), query);
      assert.deepEqual(writer.lexical.search(query, 15), index.search(query, 15), `${query}, in the writer`);
    }
    const abstract = paper(5).abstract as string;
    assert.deepEqual(store.lexical.bestSentence('glacier alpine', abstract), index.bestSentence('glacier alpine', abstract));
    assert.equal(store.get('p130')?.title, paper(130, 'revised').title);
    assert.deepEqual([...store.papers()].map((p) => p.id).sort(), [...new Set(batches.flat().map((p) => p.id))].sort());
  });

  it('still ranks as one index would after its segments are merged', async () => {
    const { store: writer } = await PaperStore.open(dir);
    const batches = [Array.from({ length: 50 }, (_, i) => paper(i)), ...Array.from({ length: 40 }, (_, i) => [paper(50 + i), paper(i * 2, 'revised')])];
    for (const batch of batches) await writer.add(batch);
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as { segments: unknown[] };
    assert.ok(manifest.segments.length <= 32, `${manifest.segments.length} segments`);
    const { store } = await PaperStore.open(dir);
    const index = eager(batches);
    for (const query of QUERIES) assert.deepEqual(store.lexical.search(query, 20), index.search(query, 20), query);
  });

  it('finds terms of any script in a segment, as one index would', async () => {
    // With terms that begin others (il, il6; p53, p530; 19, 190), which a search by halves must tell apart.
    const words = ['naïve', 'zürich', 'ﬁbrosis', '𝛼-synuclein', '日本', 'ωmega', 'aspirin', 'émigré', '𠀋字', 'IL-6', 'p53', 'p530', 'covid-19', '190'];
    const batch = words.flatMap((word, i) => [
      { id: `w${i}`, title: `${word} ${words[(i + 1) % words.length]}`, authors: [], abstract: `On ${word} and more.` },
      { id: `x${i}`, title: `Also ${word}`, authors: [], abstract: `${words[(i + 3) % words.length]} ${word} ${word}.` },
    ]);
    const { store: writer } = await PaperStore.open(dir);
    await writer.add(batch);
    const { store } = await PaperStore.open(dir);
    const index = eager([batch]);
    for (const word of words) {
      const found = store.lexical.search(word, 5);
      assert.ok(found.length > 0, word);
      assert.deepEqual(found, index.search(word, 5), word);
    }
    for (const absent of ['absent', 'aaa', 'zzzz', 'covid1', 'il6x', 'p5', '1']) assert.deepEqual(store.lexical.search(absent, 5), index.search(absent, 5), absent);
  });

  for (const { kind, saysOrdered } of [
    { kind: 'segments written before their terms were put in order', saysOrdered: false },
    { kind: 'a segment whose terms are out of the order its header gives', saysOrdered: true },
  ]) {
    it(`ranks as one index would from ${kind}`, async () => {
      const batches = [Array.from({ length: 80 }, (_, i) => paper(i)), Array.from({ length: 40 }, (_, i) => paper(80 + i))];
      const { store: writer } = await PaperStore.open(dir);
      for (const batch of batches) await writer.add(batch);
      const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as { segments: { lexical: string }[] };
      for (const { lexical } of manifest.segments) await reverseTerms(path.join(dir, lexical), saysOrdered);
      const { store, messages } = await PaperStore.open(dir);
      assert.deepEqual(messages, []);
      const index = eager(batches);
      for (const query of QUERIES) assert.deepEqual(store.lexical.search(query, 15), index.search(query, 15), query);
    });
  }

  it('reads a segment whose header claims more terms than its list has room for as damaged, asking for no memory, and keeps its papers', async () => {
    const papers = Array.from({ length: 30 }, (_, i) => paper(i));
    const { store: writer } = await PaperStore.open(dir);
    await writer.add(papers);
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as { segments: { lexical: string }[] };
    await editHeader(path.join(dir, manifest.segments[0].lexical), (header) => ({ ...header, terms: 1e10 }));
    const { store, messages } = await PaperStore.open(dir);
    assert.equal(messages.length, 1, messages.join('\n'));
    assert.match(messages[0], /does not list 10000000000 terms/);
    // Rebuilt from the papers file, which is whole.
    assert.equal(store.size, papers.length);
    assert.deepEqual(store.lexical.search('aspirin stroke', 5), eager([papers]).search('aspirin stroke', 5));
  });

  /** Rewrites a lexical file's header, whose room is the same whatever its length. */
  async function editHeader(file: string, edit: (header: Record<string, unknown>) => Record<string, unknown>): Promise<Buffer> {
    const bytes = await fs.readFile(file);
    const headerLength = bytes.readUInt32LE(8);
    const edited = Buffer.from(JSON.stringify(edit(JSON.parse(bytes.subarray(12, 12 + headerLength).toString('utf8')) as Record<string, unknown>)));
    bytes.writeUInt32LE(edited.length, 8);
    edited.copy(bytes, 12);
    await fs.writeFile(file, bytes);
    return bytes;
  }

  /**
   * Lists a segment's terms, and their rows of its table, last first, as a writer that kept no order
   * might have; and takes the order out of its header unless `saysOrdered`.
   */
  async function reverseTerms(file: string, saysOrdered: boolean): Promise<void> {
    let sections: Record<'terms' | 'table', [number, number]> | undefined;
    const bytes = await editHeader(file, ({ termOrder, ...header }) => {
      assert.equal(termOrder, 'utf8');
      sections = header.sections as typeof sections;
      return saysOrdered ? { ...header, termOrder } : header;
    });
    assert.ok(sections);
    const [termsAt, termsLength] = sections.terms;
    const terms = bytes
      .subarray(termsAt, termsAt + termsLength)
      .toString('utf8')
      .split('\n');
    assert.ok(terms.length > 2, 'terms to reorder');
    bytes.write(terms.reverse().join('\n'), termsAt, 'utf8');
    const [tableAt] = sections.table;
    // Each term's row: two fields, each a start and a length.
    const row = 4 * 4;
    const table = Buffer.from(bytes.subarray(tableAt, tableAt + terms.length * row));
    for (let t = 0; t < terms.length; t++) table.copy(bytes, tableAt + (terms.length - 1 - t) * row, t * row, (t + 1) * row);
    await fs.writeFile(file, bytes);
  }

  describe('a library saved by the earlier format', () => {
    const first = Array.from({ length: 40 }, (_, i) => paper(i));
    const tail = [paper(40), paper(7, 'revised')];

    /** Format version 1 as Attest wrote it: papers files, a lexical snapshot over the first, vectors. */
    async function writeEarlierLibrary(): Promise<void> {
      await fs.mkdir(dir, { recursive: true });
      const lines = (papers: readonly Paper[]): string => papers.map((p) => `${JSON.stringify(p)}\n`).join('');
      await fs.writeFile(path.join(dir, 'g000002-00000001.papers.jsonl'), lines(first));
      await fs.writeFile(path.join(dir, 'g000002-00000002.papers.jsonl'), lines(tail));
      const data = eager([first]).toJSON();
      const lexical = [
        JSON.stringify({ ids: data.ids }),
        ...data.fields.flatMap((f) => [JSON.stringify({ lengths: f.lengths }), ...Object.entries(f.postings).map((entry) => JSON.stringify(entry))]),
      ];
      await fs.writeFile(path.join(dir, 'g000001-00000003.lexical.jsonl'), `${lexical.join('\n')}\n`);
      const vectors = Buffer.alloc(2 * 2 * 4);
      [1, 0, 0, 1].forEach((x, at) => vectors.writeFloatLE(x, at * 4));
      await fs.writeFile(path.join(dir, 'g000001-00000004.vectors.f32'), vectors);
      await fs.writeFile(path.join(dir, 'g000001-00000004.vector-ids.json'), JSON.stringify(['p1', 'p2']));
      const manifest = {
        format: 'attest-paper-store',
        version: 1,
        generation: 2,
        papers: [
          { file: 'g000002-00000001.papers.jsonl', count: first.length },
          { file: 'g000002-00000002.papers.jsonl', count: tail.length },
        ],
        lexical: { file: 'g000001-00000003.lexical.jsonl', segments: 1 },
        vectors: { model: 'tiny', dimension: 2, segments: [{ file: 'g000001-00000004.vectors.f32', ids: 'g000001-00000004.vector-ids.json', count: 2 }] },
      };
      await fs.writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    }

    it('is read whole without writing anything, and saved in the current format, vectors kept, by the next add', async () => {
      await writeEarlierLibrary();
      const before = await snapshot(dir);
      const { store, messages } = await PaperStore.open(dir);
      assert.equal(messages.length, 1);
      assert.match(messages[0], /saved by an earlier Attest: it was read whole.*saved in the current format.*when papers are next added/);
      assert.deepEqual(await snapshot(dir), before, 'opening wrote nothing');
      const index = eager([first, tail]);
      assert.equal(store.size, 41);
      for (const query of QUERIES) assert.deepEqual(store.lexical.search(query, 10), index.search(query, 10), query);
      assert.deepEqual(store.encoder, { model: 'tiny', dimension: 2 });

      await store.add([paper(41)]);
      const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as { version: number; segments: unknown[] };
      assert.equal(manifest.version, STORE_VERSION);
      const { store: again, messages: none } = await PaperStore.open(dir);
      assert.deepEqual(none, []);
      assert.equal(again.size, 42);
      assert.equal(again.get('p7')?.title, paper(7, 'revised').title);
      for (const query of QUERIES) assert.deepEqual(again.lexical.search(query, 10), eager([first, tail, [paper(41)]]).search(query, 10), query);
      assert.deepEqual(
        (await (await again.dense())?.search(Float32Array.from([0, 1]), 2))?.map((hit) => hit.id),
        ['p2', 'p1'],
      );
    });
  });

  it('keeps the batches an interrupted attest index add saved, and a consistent library', async () => {
    const corpus = path.join(path.dirname(dir), 'corpus.jsonl');
    // Over one batch of the import (10,000 papers): the second batch's save is made to fail.
    const count = 10_500;
    await fs.writeFile(corpus, Array.from({ length: count }, (_, i) => JSON.stringify({ id: `c${i}`, title: `Paper ${i} on ${WORDS[i % WORDS.length]}` })).join('\n'));
    let manifests = 0;
    fs.rename = (async (from: nodeFs.PathLike, to: nodeFs.PathLike) => {
      if (String(to).endsWith('manifest.json') && ++manifests === 2) throw Object.assign(new Error('EIO: simulated'), { code: 'EIO', syscall: 'rename' });
      return originalRename(from, to);
    }) as typeof fs.rename;
    let err = '';
    const code = await main(['index', 'add', corpus, '--store', dir], { out: () => undefined, err: (t) => (err += t) });
    assert.equal(code, 2);
    assert.match(err, /could not be saved \(EIO: simulated\); its files hold what they held before/);
    fs.rename = originalRename;

    const { store, messages } = await PaperStore.open(dir);
    assert.deepEqual(messages, []);
    assert.equal(store.size, 10_000);
    assert.equal(store.get('c9999')?.title, `Paper 9999 on ${WORDS[9999 % WORDS.length]}`);
    assert.deepEqual(
      (await fs.readdir(dir)).filter((f) => f.endsWith('.tmp')),
      [],
    );

    let out = '';
    assert.equal(await main(['index', 'add', corpus, '--store', dir], { out: (t) => (out += t), err: () => undefined }), 0);
    assert.match(out, new RegExp(`^Added ${count} papers; the library in .* holds ${count} papers\\.`));
  });
});
