import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkManuscript, CheckSession } from '../../../../src/core/check';
import { FsWorkspace } from '../../../../src/core/fsWorkspace';
import { decodeText, UnreadableFileError } from '../../../../src/core/text/decode';
import { readTextFile } from '../../../../src/core/text/readFile';
import { asUnprivilegedUser, skipUnlessModesApply } from '../../support/unprivileged';

const MB = 1024 * 1024;

describe('reading a file', function () {
  this.timeout(30_000);
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'attest-read-'));
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  async function refusal(file: string, maxBytes = MB): Promise<string> {
    const error = await readTextFile(file, maxBytes).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof UnreadableFileError, `expected ${file} to be refused`);
    return error.message;
  }

  it('refuses a named pipe at once instead of waiting for a writer', async () => {
    const fifo = path.join(dir, 'refs.bib');
    execFileSync('mkfifo', [fifo]);
    assert.match(await refusal(fifo), /refs\.bib is a named pipe \(FIFO\), not a regular file/);
  });

  it('refuses a folder and a device, saying which', async () => {
    assert.match(await refusal(dir), /is a folder, not a regular file/);
    assert.match(await refusal('/dev/zero'), /\/dev\/zero is a device, not a regular file/);
  });

  it('stops reading a /proc file that claims size 0 once it passes the limit', async () => {
    const before = process.memoryUsage().rss;
    assert.match(await refusal('/proc/self/pagemap', 4 * MB), /over the 4\.0 MB limit/);
    assert.ok(process.memoryUsage().rss - before < 256 * MB);
  });

  it('says a file is missing by returning nothing, and a permission problem by a reason', async function () {
    skipUnlessModesApply(this, require.resolve('../../../../src/core/text/readFile'));
    assert.equal(await readTextFile(path.join(dir, 'absent.bib'), MB), undefined);
    const locked = path.join(dir, 'locked.bib');
    await fs.writeFile(locked, '@misc{a}');
    await fs.chmod(locked, 0o000);
    await fs.chmod(dir, 0o755);
    const message = await asUnprivilegedUser(
      async () => refusal(locked),
      `require(${JSON.stringify(require.resolve('../../../../src/core/text/readFile'))}).readTextFile(${JSON.stringify(locked)}, 1024).catch((e) => process.stdout.write(e.message))`,
    );
    assert.match(message, /locked\.bib could not be read: permission denied/);
  });

  it('reads a bibliography inside the limit whatever size the file system reports', async () => {
    const file = path.join(dir, 'refs.bib');
    await fs.writeFile(file, '@misc{a, title={Über}}');
    assert.deepEqual(await readTextFile(file, MB), { text: '@misc{a, title={Über}}', encoding: 'utf-8', bomLength: 0 });
  });

  it('reports special files named by a manuscript as findings with the reason', async () => {
    const fifo = path.join(dir, 'pipe.bib');
    execFileSync('mkfifo', [fifo]);
    await fs.writeFile(path.join(dir, 'm.tex'), `\\addbibresource{${fifo}}\\addbibresource{/proc/self/pagemap}\\addbibresource{${dir}}`);
    const result = await checkManuscript(path.join(dir, 'm.tex'), new FsWorkspace(MB), new CheckSession());
    const messages = result?.findings.filter((f) => f.code === 'bib-parse-error').map((f) => f.message);
    assert.equal(messages?.length, 3);
    assert.match(messages?.[0] ?? '', /named pipe/);
    assert.match(messages?.[1] ?? '', /over the 1\.0 MB limit/);
    assert.match(messages?.[2] ?? '', /is a folder/);
  });
});

describe('decoding a file', () => {
  it('replaces only a bad byte in a UTF-8 file, keeping its other characters and columns', () => {
    const bytes = Buffer.concat([Buffer.from('@misc{m, author={Müller}, note={'), Buffer.from([0xff]), Buffer.from('}}')]);
    assert.equal(decodeText(bytes, 'refs.bib'), '@misc{m, author={Müller}, note={\uFFFD}}');
  });

  it('reads a file that is mostly Latin-1 as Latin-1', () => {
    const text = '@misc{m, author={Müller and Gödel}, note={¡ünïcode}}';
    assert.equal(decodeText(Buffer.from(text, 'latin1'), 'refs.bib'), text);
  });

  it('keeps a real replacement character a UTF-8 file holds', () => {
    const bytes = Buffer.from('title={\uFFFD}, author={Ünal}');
    assert.equal(decodeText(bytes, 'refs.bib'), 'title={\uFFFD}, author={Ünal}');
  });

  it('reads UTF-16 with a byte-order mark, both byte orders, instead of calling it binary', () => {
    const text = '@misc{k, author={Müller}}';
    const little = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const big = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    assert.equal(decodeText(little, 'a.bib'), text);
    assert.equal(decodeText(big, 'b.bib'), text);
  });

  it('still calls a file with NUL bytes and no byte-order mark binary', () => {
    assert.throws(() => decodeText(Buffer.from([0x50, 0x4b, 3, 4, 0, 0]), 'x.bib'), /x\.bib is a binary file/);
  });
});
