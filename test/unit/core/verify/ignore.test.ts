import assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IgnoreList } from '../../../../src/core/verify/ignore';

describe('the ignore list', () => {
  let dir: string;
  let file: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-ignore-'));
    file = path.join(dir, '.attest', 'ignore.json');
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('keeps the fields and entries it does not know when it adds a verdict', async () => {
    const written = {
      version: 1,
      comment: 'reviewed with the co-authors',
      ignored: [{ key: 'a', claim: '0'.repeat(64), text: 'Old.', reviewer: 'kim' }, 'a note the user left', { key: 'half' }],
    };
    await fs.mkdir(path.dirname(file));
    await fs.writeFile(file, JSON.stringify(written));
    const list = await IgnoreList.load(file);
    await list.add({ key: 'b', claim: { text: 'Water boils.' } });
    const after = JSON.parse(await fs.readFile(file, 'utf8')) as typeof written;
    assert.equal(after.comment, written.comment);
    assert.deepEqual(after.ignored.slice(0, 3), written.ignored);
    assert.equal(after.ignored.length, 4);
    assert.ok((await IgnoreList.load(file)).has({ key: 'b', claim: { text: 'Water boils.' } }));
  });

  it('tells a verdict by its key and its sentence among many', async () => {
    const list = await IgnoreList.load(file);
    for (let i = 0; i < 50; i++) await list.add({ key: `k${i}`, claim: { text: `Sentence ${i}.` } });
    const reread = await IgnoreList.load(file);
    assert.ok(reread.has({ key: 'k7', claim: { text: 'Sentence 7.' } }));
    assert.ok(!reread.has({ key: 'k7', claim: { text: 'Sentence 8.' } }));
    assert.ok(!reread.has({ key: 'k7' }));
    assert.ok(!reread.has({ key: 'k77', claim: { text: 'Sentence 7.' } }));
  });

  it('starts an empty list in a new file', async () => {
    const list = await IgnoreList.load(file);
    await list.add({ key: 'x', claim: { text: 'A claim.' } });
    const written = JSON.parse(await fs.readFile(file, 'utf8')) as { version: number; ignored: { key: string; text: string }[] };
    assert.equal(written.version, 1);
    assert.deepEqual(
      written.ignored.map((e) => [e.key, e.text]),
      [['x', 'A claim.']],
    );
  });
});
