import assert from 'node:assert/strict';
import { execFile, execFileSync, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import * as lockfile from 'proper-lockfile';
import { FullTextStore } from '../../../../src/core/fulltext/store';
import type { FullTextResult } from '../../../../src/core/fulltext/types';
import { makeTempDir, snapshot } from '../../support/tempDir';

const STORE_MODULE = require.resolve('../../../../src/core/fulltext/store');

function fullText(name: string, size = 400): FullTextResult {
  return { fullText: { source: 'pdf', location: `/papers/${name}.pdf`, passages: [{ section: 'Results', text: `${name} `.padEnd(size, 'x') }] } };
}

/** A separate Node process that stores `count` full texts named `prefix-0` … under a cap of `maxBytes`. */
function writerProcess(dir: string, prefix: string, count: number, maxBytes: number): Promise<unknown> {
  const script = `
    const { FullTextStore } = require(${JSON.stringify(STORE_MODULE)});
    (async () => {
      const store = new FullTextStore(${JSON.stringify(dir)}, ${maxBytes});
      for (let i = 0; i < ${count}; i++) {
        const name = '${prefix}-' + i;
        await store.set(name, { fullText: { source: 'pdf', location: '/papers/' + name + '.pdf', passages: [{ section: 'Results', text: (name + ' ').padEnd(400, 'x') }] } });
      }
    })().catch((e) => { console.error(e); process.exit(1); });`;
  return promisify(execFile)(process.execPath, ['-e', script]);
}

describe('the full-text store shared by several processes', function () {
  this.timeout(120_000);
  let temp: { dir: string; remove: () => Promise<void> };
  let dir: string;
  beforeEach(async () => {
    temp = await makeTempDir();
    dir = path.join(temp.dir, 'fulltexts');
  });
  afterEach(async () => temp.remove());

  it('keeps every full text two processes store at the same time', async () => {
    await Promise.all([writerProcess(dir, 'a', 40, 10_000_000), writerProcess(dir, 'b', 40, 10_000_000)]);
    const store = new FullTextStore(dir, 10_000_000);
    for (const prefix of ['a', 'b']) {
      for (let i = 0; i < 40; i++) assert.deepEqual(await store.get(`${prefix}-${i}`), fullText(`${prefix}-${i}`), `${prefix}-${i}`);
    }
    const left = (await fs.readdir(dir)).filter((name) => !name.endsWith('.json'));
    assert.deepEqual(left, [], 'no temporary file nor lock is left behind');
  });

  it("makes a writer of another process wait while one holds the store's lock", async () => {
    await fs.mkdir(dir, { recursive: true });
    const release = await lockfile.lock(dir, { lockfilePath: path.join(dir, 'write.lock'), realpath: false });
    const script = `
      const { FullTextStore } = require(${JSON.stringify(STORE_MODULE)});
      const store = new FullTextStore(${JSON.stringify(dir)}, 10000000);
      console.log('writing');
      store.set('late', { reason: 'no open copy' }).then(() => console.log('written'));`;
    const child = spawn(process.execPath, ['-e', script]);
    let output = '';
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => ((output += chunk.toString()), output.includes('writing') && resolve())));
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(await new FullTextStore(dir, 10_000_000).get('late'), undefined, 'written while another held the lock');
    } finally {
      await release();
    }
    await exited;
    assert.match(output, /written/);
    assert.deepEqual(await new FullTextStore(dir, 10_000_000).get('late'), { reason: 'no open copy' });
  });

  it('fills its cap and no more while two processes write to it, evicting only what it must', async () => {
    const cap = 6_000;
    for (let trial = 0; trial < 3; trial++) {
      await Promise.all([writerProcess(dir, `a${trial}`, 30, cap), writerProcess(dir, `b${trial}`, 30, cap)]);
      const names = (await fs.readdir(dir)).filter((name) => name.endsWith('.json'));
      const sizes = await Promise.all(names.map(async (name) => (await fs.stat(path.join(dir, name))).size));
      const total = sizes.reduce((sum, size) => sum + size, 0);
      // Evictions that raced would both drop the same oldest entries and then more, or neither.
      assert.ok(total <= cap && total > cap - Math.max(...sizes), `trial ${trial}: ${total} bytes in ${names.length} entries`);
      const store = new FullTextStore(dir, cap);
      assert.ok((await store.get(`a${trial}-29`)) ?? (await store.get(`b${trial}-29`)), `trial ${trial}: the last full text stored is kept`);
    }
  });

  it('reads without writing: a hit, a miss and a damaged entry leave the folder as it was', async () => {
    const store = new FullTextStore(dir, 10_000_000);
    await store.set('k', fullText('k'));
    await store.set('damaged', fullText('damaged'));
    const files = (await fs.readdir(dir)).filter((name) => name.endsWith('.json'));
    for (const name of files) {
      const body = await fs.readFile(path.join(dir, name), 'utf8');
      if (body.includes('"damaged"')) await fs.writeFile(path.join(dir, name), body.slice(0, 40));
    }
    const old = new Date(Date.now() - 3_600_000);
    for (const name of files) await fs.utimes(path.join(dir, name), old, old);
    const before = await snapshot(dir);
    const times = async (): Promise<number[]> => Promise.all(files.map(async (name) => (await fs.stat(path.join(dir, name))).mtimeMs));
    const timesBefore = await times();

    const reader = new FullTextStore(dir, 10_000_000);
    assert.deepEqual(await reader.get('k'), fullText('k'));
    assert.equal(await reader.get('damaged'), undefined);
    assert.equal(await reader.get('never stored'), undefined);
    assert.deepEqual(await snapshot(dir), before);
    assert.deepEqual(await times(), timesBefore);
  });

  it('takes an entry that is a FIFO, a link to /dev/zero or larger than the store as a miss at once, and replaces it', async () => {
    const store = new FullTextStore(dir, 10_000);
    await store.set('k', fullText('k'));
    const [name] = (await fs.readdir(dir)).filter((entry) => entry.endsWith('.json'));
    const file = path.join(dir, name);
    const damages: Array<[string, () => unknown]> = [
      ['a FIFO', () => execFileSync('mkfifo', [file])],
      ['a link to /dev/zero', () => fs.symlink('/dev/zero', file)],
      ['larger than the store', () => fs.writeFile(file, Buffer.alloc(10_001, 0x20))],
    ];
    for (const [what, damage] of damages) {
      await fs.rm(file);
      await damage();
      assert.equal(await new FullTextStore(dir, 10_000).get('k'), undefined, what);
      await store.set('k', fullText('k'));
      assert.ok((await fs.lstat(file)).isFile(), `${what} was not replaced`);
      assert.deepEqual(await new FullTextStore(dir, 10_000).get('k'), fullText('k'), what);
    }
  });

  it('does not keep a reason that may pass', async () => {
    const store = new FullTextStore(dir, 10_000_000);
    await store.set('busy', { reason: 'paper.pdf cannot be read (EBUSY)', transient: true });
    await store.set('locked', { reason: 'paper.pdf: the PDF is encrypted with a password' });
    assert.equal(await store.get('busy'), undefined);
    assert.deepEqual(await store.get('locked'), { reason: 'paper.pdf: the PDF is encrypted with a password' });
  });
});
