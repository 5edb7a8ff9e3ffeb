import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
// The module itself, not a copy of its properties: the store opens segments with its openSync.
import nodeFs = require('node:fs');
import * as path from 'node:path';
import { promisify } from 'node:util';
import { main } from '../../../../../src/cli/main';
import { PaperStore, StoreReadError, StoreWriteError } from '../../../../../src/core/index/store/store';
import type { Paper } from '../../../../../src/core/papers/paper';
import { makeTempDir, snapshot } from '../../../support/tempDir';
import { asUnprivilegedUser, skipUnlessModesApply } from '../../../support/unprivileged';

const fs = nodeFs.promises;
const STORE_MODULE = require.resolve('../../../../../src/core/index/store/store');

function papers(prefix: string, count: number): Paper[] {
  return Array.from({ length: count }, (_, i) => ({ id: `${prefix}-${i}`, title: `Paper ${i} of ${prefix}`, authors: [], abstract: `Findings number ${i}.` }));
}

/** A separate Node process that opens the store and adds `batches` batches of `size` papers, one save each. */
function writerProcess(dir: string, prefix: string, batches: number, size: number): Promise<unknown> {
  const script = `
    const { PaperStore } = require(${JSON.stringify(STORE_MODULE)});
    (async () => {
      const { store } = await PaperStore.open(${JSON.stringify(dir)});
      for (let b = 0; b < ${batches}; b++) {
        const batch = Array.from({ length: ${size} }, (_, i) => ({ id: '${prefix}-' + (b * ${size} + i), title: 'Paper ' + i, authors: [] }));
        await store.add(batch);
      }
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return promisify(execFile)(process.execPath, ['-e', script]);
}

describe('a paper store shared by several writers', function () {
  this.timeout(120_000);
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => {
    const temp = await makeTempDir();
    remove = temp.remove;
    dir = path.join(temp.dir, 'library');
  });
  afterEach(async () => remove());

  it('keeps every paper two processes add at the same time, trial after trial', async () => {
    for (let trial = 0; trial < 3; trial++) {
      await Promise.all([writerProcess(dir, `a${trial}`, 10, 20), writerProcess(dir, `b${trial}`, 10, 20)]);
      const { store, messages } = await PaperStore.open(dir);
      assert.deepEqual(messages, []);
      assert.equal(store.size, 400 * (trial + 1), `after trial ${trial}`);
    }
  });

  it('lets the thread run other work while it indexes a large import', async () => {
    const { store } = await PaperStore.open(dir);
    const seen: number[] = [];
    const tick = setInterval(() => seen.push(store.size), 0);
    await store.add(papers('import', 5000));
    clearInterval(tick);
    assert.ok(
      seen.some((size) => size > 0 && size < 5000),
      `sizes seen between turns: ${[...new Set(seen)].join(', ')}`,
    );
    assert.equal(store.size, 5000);
  });

  it('builds on what another writer saved since it opened the store', async () => {
    const { store: first } = await PaperStore.open(dir);
    const { store: second } = await PaperStore.open(dir);
    await first.add(papers('first', 5));
    await second.add(papers('second', 7));
    await first.add(papers('third', 1));
    assert.equal(first.size, 13);
    const { store } = await PaperStore.open(dir);
    assert.equal(store.size, 13);
    assert.deepEqual(store.lexical.search('findings', 20).length, 13);
  });

  describe('when the disk fails for a while', () => {
    const realOpen = fs.open;
    const realOpenSync = nodeFs.openSync;
    afterEach(() => {
      fs.open = realOpen;
      nodeFs.openSync = realOpenSync;
    });

    /** Makes opening the store's papers files, read whole or a line at a time, fail with `code` until `heal` is called. */
    function failPapersFiles(code: string): () => void {
      let failing = true;
      const fail = (file: unknown): void => {
        if (failing && String(file).endsWith('.papers.jsonl')) throw Object.assign(new Error(`${code}: simulated`), { code, syscall: 'open' });
      };
      fs.open = (async (...args: Parameters<typeof realOpen>) => {
        fail(args[0]);
        return realOpen(...args);
      }) as typeof fs.open;
      nodeFs.openSync = ((...args: Parameters<typeof realOpenSync>) => {
        fail(args[0]);
        return realOpenSync(...args);
      }) as typeof nodeFs.openSync;
      return () => {
        failing = false;
      };
    }

    for (const code of ['EMFILE', 'EIO', 'EBUSY', 'EACCES']) {
      it(`reports ${code} on opening as an error, rebuilds nothing, and has every paper once it passes`, async () => {
        const { store: writer } = await PaperStore.open(dir);
        await writer.add(papers('a', 120));
        await writer.add(papers('b', 80));
        const before = await snapshot(dir);
        const heal = failPapersFiles(code);
        await assert.rejects(PaperStore.open(dir), (error: unknown) => error instanceof StoreReadError && error.message.includes(code));
        assert.deepEqual(await snapshot(dir), before);
        heal();
        const { store, messages } = await PaperStore.open(dir);
        assert.deepEqual(messages, []);
        assert.equal(store.size, 200);
      });
    }

    it('makes attest suggest exit 2 with the reason, before asking the model anything', async () => {
      const { store } = await PaperStore.open(dir);
      await store.add(papers('a', 10));
      const before = await snapshot(dir);
      const settings = path.join(path.dirname(dir), 'settings.json');
      await fs.writeFile(settings, JSON.stringify({ 'attest.llm.baseUrl': 'http://127.0.0.1:9/v1', 'attest.llm.model': 'm', 'attest.retrieval.liveSearch': false }));
      const heal = failPapersFiles('EIO');
      let err = '';
      const code = await main(['suggest', '--claim', 'Findings hold.', '--store', dir, '--config', settings], { out: () => undefined, err: (t) => (err += t) });
      heal();
      assert.equal(code, 2);
      assert.match(err, /attest suggest: .*could not be read \(EIO/);
      assert.deepEqual(await snapshot(dir), before);
    });

    it('refuses to save when it cannot read what another writer saved, keeping both', async () => {
      const { store: first } = await PaperStore.open(dir);
      const { store: second } = await PaperStore.open(dir);
      await first.add(papers('first', 30));
      const heal = failPapersFiles('EIO');
      await assert.rejects(second.add(papers('second', 20)), StoreReadError);
      heal();
      await second.add(papers('third', 5));
      const { store } = await PaperStore.open(dir);
      assert.equal(store.size, 55);
    });
  });

  describe('with something other than its files where they should be', () => {
    /** The folder's entries: a regular file by its bytes, anything else by its kind, never opened. */
    async function listing(folder: string): Promise<string[]> {
      const entries = await fs.readdir(folder, { withFileTypes: true });
      return Promise.all(
        entries
          .sort((a, b) => a.name.localeCompare(b.name))
          .map(async (e) =>
            e.isFile()
              ? `${e.name} ${(await fs.readFile(path.join(folder, e.name))).toString('base64')}`
              : `${e.name} (${e.isFIFO() ? 'fifo' : e.isSymbolicLink() ? 'link' : 'other'})`,
          ),
      );
    }

    async function twoSegments(): Promise<{ papersFiles: string[]; lexical: string }> {
      const { store } = await PaperStore.open(dir);
      await store.add(papers('a', 30));
      await store.add(papers('b', 20));
      const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as { segments: { papers: string; lexical: string }[] };
      return { papersFiles: manifest.segments.map((s) => path.join(dir, s.papers)), lexical: path.join(dir, manifest.segments[0].lexical) };
    }

    it('rebuilds from the other files, without waiting, when a papers file is a named pipe', async () => {
      const { papersFiles } = await twoSegments();
      await fs.rm(papersFiles[1]);
      execFileSync('mkfifo', [papersFiles[1]]);
      const before = await listing(dir);
      const { store, messages } = await PaperStore.open(dir);
      assert.match(messages.join('\n'), /could not be read \(.*named pipe.*\); rebuilt its index from 30 papers/);
      assert.equal(store.size, 30);
      assert.deepEqual(await listing(dir), before);
      await store.add(papers('c', 1));
      assert.deepEqual(await listing(path.join(dir, 'damaged')), [`${path.basename(papersFiles[1])} (fifo)`], 'the pipe was not kept in damaged/');
    });

    it('rebuilds from the papers, in bounded memory, when the lexical index links to /dev/zero', async () => {
      const { lexical } = await twoSegments();
      await fs.rm(lexical);
      await fs.symlink('/dev/zero', lexical);
      const { store, messages } = await PaperStore.open(dir);
      assert.match(messages.join('\n'), /a device, not a regular file.*rebuilt its index from 50 papers/);
      assert.equal(store.lexical.search('findings', 100).length, 50);
    });

    it('reads the papers files of the folder when the manifest is a named pipe', async () => {
      await twoSegments();
      await fs.rm(path.join(dir, 'manifest.json'));
      execFileSync('mkfifo', [path.join(dir, 'manifest.json')]);
      const { store, messages } = await PaperStore.open(dir);
      assert.match(messages.join('\n'), /manifest\.json is a named pipe/);
      assert.equal(store.size, 50);
    });

    it('fails at once, naming write.lock, when that is a file of its own and not the lock', async () => {
      await twoSegments();
      const lock = path.join(dir, 'write.lock');
      await fs.writeFile(lock, 'mine');
      const long = new Date(Date.now() - 3_600_000);
      await fs.utimes(lock, long, long);
      const before = await listing(dir);
      const { store } = await PaperStore.open(dir);
      const started = Date.now();
      await assert.rejects(
        store.add(papers('c', 5)),
        (error: unknown) =>
          error instanceof StoreWriteError &&
          /could not be saved \(ENOTDIR.*; its files hold what they held before\. Check that the folder, and its write\.lock, can be written/.test(error.message),
      );
      assert.ok(Date.now() - started < 30_000, 'it did not wait for a lock that is not one');
      assert.deepEqual(await listing(dir), before);
    });
  });

  describe('when the disk is full', () => {
    const realOpen = fs.open;
    afterEach(() => {
      fs.open = realOpen;
    });

    it('says so and what to do, keeps the files as they were, and saves everything once there is room', async () => {
      const { store } = await PaperStore.open(dir);
      await store.add(papers('a', 10));
      const before = await snapshot(dir);
      let full = true;
      fs.open = (async (...args: Parameters<typeof realOpen>) => {
        if (full && args[1] === 'wx') throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
        return realOpen(...args);
      }) as typeof fs.open;
      await assert.rejects(
        store.add(papers('b', 10)),
        (error: unknown) =>
          error instanceof StoreWriteError && /could not be saved \(ENOSPC.*\); its files hold what they held before\. Free some space on its disk/.test(error.message),
      );
      assert.deepEqual(await snapshot(dir), before);
      full = false;
      await store.add(papers('c', 1));
      const { store: reopened } = await PaperStore.open(dir);
      assert.equal(reopened.size, 21);
    });
  });

  describe('with a file it may not read', () => {
    beforeEach(function () {
      skipUnlessModesApply(this, require.resolve('../../../../../src/cli/main'));
    });

    /** A store of 200 papers in two segments, the second unreadable to all but root. */
    async function lockedStore(): Promise<string> {
      const { store } = await PaperStore.open(dir);
      await store.add(papers('kept', 150));
      await store.add(papers('locked', 50));
      const manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as { segments: { papers: string }[] };
      const locked = path.join(dir, manifest.segments[1].papers);
      await fs.chmod(locked, 0o000);
      await fs.chmod(path.dirname(dir), 0o755);
      await fs.chmod(dir, 0o755);
      return locked;
    }

    it('reports the error on opening and changes nothing, so the papers are there once it can be read', async () => {
      const locked = await lockedStore();
      const before = await snapshot(dir);
      const message = await asUnprivilegedUser(
        async () => ((await PaperStore.open(dir).catch((e: unknown) => e)) instanceof StoreReadError ? 'refused' : 'opened'),
        `require(${JSON.stringify(STORE_MODULE)}).PaperStore.open(${JSON.stringify(dir)}).then(() => process.stdout.write('opened'), (e) => process.stdout.write(e.name === 'StoreReadError' ? 'refused: ' + e.message : 'threw ' + e))`,
      );
      assert.match(message, /^refused/);
      if (message !== 'refused') assert.match(message, /could not be read \(EACCES.*\); it was left as it is/);
      assert.deepEqual(await snapshot(dir), before);
      await fs.chmod(locked, 0o644);
      const { store, messages } = await PaperStore.open(dir);
      assert.deepEqual(messages, []);
      assert.equal(store.size, 200);
    });

    it('makes attest search exit 2 with the reason, deleting nothing', async () => {
      await lockedStore();
      const before = await snapshot(dir);
      if (process.getuid?.() === 0) {
        const { stderr } = await promisify(execFile)(process.execPath, ['-e', searchScript(dir)], { uid: 65534, gid: 65534 });
        assert.match(stderr, /^2 attest search: The paper library in .* could not be read \(EACCES/);
      } else {
        let err = '';
        const code = await main(['search', '--store', dir, '--query', 'findings'], { out: () => undefined, err: (t) => (err += t) });
        assert.equal(code, 2);
        assert.match(err, /could not be read \(EACCES/);
      }
      assert.deepEqual(await snapshot(dir), before);
    });
  });
});

/** `attest search` in a child process, printing its exit code and standard error on standard error. */
function searchScript(dir: string): string {
  const cli = require.resolve('../../../../../src/cli/main');
  return `
    let err = '';
    require(${JSON.stringify(cli)}).main(['search', '--store', ${JSON.stringify(dir)}, '--query', 'findings'], { out: () => {}, err: (t) => { err += t; } })
      .then((code) => process.stderr.write(code + ' ' + err));`;
}
