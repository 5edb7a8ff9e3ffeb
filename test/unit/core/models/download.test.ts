import assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import type * as http from 'node:http';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { DownloadErrorKind, DownloadProgress, ModelDownload } from '../../../../src/core/models/download';
import { downloadModel, ModelDownloadError } from '../../../../src/core/models/download';
import { OnnxNliModel } from '../../../../src/core/models/nli';
import { MINILM_TOKENIZER, nliConfig } from '../../support/onnx/folders';
import { nliGraph } from '../../support/onnx/graphs';
import type { HubFile } from '../../support/onnx/hub';
import { hubHandler, sendCutOff, sendRange, sha256 } from '../../support/onnx/hub';
import { ScriptedServer } from '../../support/server';
import { listFiles, makeTempDir } from '../../support/tempDir';

const REPO = 'org/tiny-nli';
const FILES = ['config.json', 'tokenizer.json', 'onnx/model_quantized.onnx'];
const TOKENIZER = readFileSync(MINILM_TOKENIZER);

function hubFiles(overrides: Record<string, Partial<HubFile>> = {}): Record<string, HubFile> {
  const files: Record<string, HubFile> = {
    'config.json': { content: Buffer.from(JSON.stringify(nliConfig())) },
    'tokenizer.json': { content: TOKENIZER, lfs: true },
    'onnx/model_quantized.onnx': { content: Buffer.from(nliGraph()), lfs: true },
  };
  for (const [name, override] of Object.entries(overrides)) files[name] = { ...files[name], ...override };
  return files;
}

type CdnHandler = (request: http.IncomingMessage, response: http.ServerResponse, content: Buffer, index: number) => void | Promise<void>;

const serveWhole: CdnHandler = (request, response, content) => sendRange(request, response, content, '"d41d8cd98f00b204e9800998ecf8427e"');

async function failure(promise: Promise<unknown>, kind: DownloadErrorKind): Promise<ModelDownloadError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelDownloadError, `expected a ModelDownloadError, got ${String(error)}`);
    assert.equal(error.kind, kind, error.message);
    return error;
  }
  assert.fail('expected the download to fail');
}

describe('downloading a model from the hub', () => {
  let hub: ScriptedServer;
  let cdn: ScriptedServer;
  let destination: string;
  let remove: () => Promise<void>;
  let cdnHandler: CdnHandler;
  let files: Record<string, HubFile>;

  beforeEach(async () => {
    ({ dir: destination, remove } = await makeTempDir());
    files = hubFiles();
    cdnHandler = serveWhole;
    // A CDN on another origin than the hub, as the hub's large files are.
    cdn = await ScriptedServer.start((request, response, index) => {
      const content = Object.values(files).find((f) => request.url === `/cdn/${sha256(f.content)}`)?.content;
      if (content) return cdnHandler(request, response, content, index);
      response.writeHead(404).end();
    });
    hub = await ScriptedServer.start((request, response) => hubHandler(REPO, files, () => cdn.baseUrl)(request, response));
  });

  afterEach(async () => {
    await hub.close();
    await cdn.close();
    await remove();
  });

  function download(options: Partial<ModelDownload> = {}): Promise<void> {
    return downloadModel({ repo: REPO, files: FILES, destination, baseUrl: hub.baseUrl, folderSetting: 'attest.nli.model', ...options });
  }

  async function assertDownloaded(): Promise<void> {
    for (const name of FILES) assert.deepEqual(await fs.readFile(path.join(destination, name)), files[name].content, name);
    assert.deepEqual((await listFiles(destination)).sort(), [...FILES].sort());
  }

  it('fetches each file from its resolve URL, following the redirect to the CDN, into a folder that loads', async () => {
    const progress: DownloadProgress[] = [];
    await download({ onProgress: (p) => progress.push(p) });
    await assertDownloaded();
    assert.deepEqual(hub.urls, FILES.map((f) => `/${REPO}/resolve/main/${f}`));
    assert.equal(cdn.urls.length, 2);
    const tokenizer = progress.filter((p) => p.file === 'tokenizer.json');
    assert.deepEqual(tokenizer.at(-1), { file: 'tokenizer.json', receivedBytes: TOKENIZER.length, totalBytes: TOKENIZER.length });
    assert.ok(tokenizer.every((p, i) => i === 0 || p.receivedBytes >= tokenizer[i - 1].receivedBytes));
    const model = await OnnxNliModel.load(destination, { preferQuantized: true, threads: 1 });
    await model.dispose();
  });

  it('downloads only once: files already in place are not asked for again', async () => {
    await download();
    const asked = hub.urls.length;
    await download();
    assert.equal(hub.urls.length, asked);
  });

  it('resumes a transfer that broke off with a Range request for the rest', async () => {
    const half = Math.floor(TOKENIZER.length / 2);
    // The connection drops only once the client has taken in the first half, so the resume point is known.
    let halfArrived!: () => void;
    const cut = new Promise<void>((resolve) => (halfArrived = resolve));
    cdnHandler = (request, response, content, index) => (index === 0 ? sendCutOff(response, content, half, cut) : serveWhole(request, response, content, index));
    await download({
      onProgress: (p) => {
        if (p.file === 'tokenizer.json' && p.receivedBytes === half) halfArrived();
      },
    });
    await assertDownloaded();
    assert.equal(cdn.requests[0].headers.range, undefined);
    assert.equal(cdn.requests[1].headers.range, `bytes=${half}-`);
  });

  it('keeps what arrived before a cancellation, and the next download resumes from there', async () => {
    const half = Math.floor(TOKENIZER.length / 2);
    cdnHandler = (request, response, content, index) => {
      if (index > 0) return serveWhole(request, response, content, index);
      response.writeHead(200, { 'content-length': String(content.length) });
      response.write(content.subarray(0, half)); // and then nothing more, until the client gives up
    };
    const controller = new AbortController();
    const onProgress = (p: DownloadProgress) => {
      if (p.file === 'tokenizer.json' && p.receivedBytes > 0) controller.abort();
    };
    await assert.rejects(download({ signal: controller.signal, onProgress }), { name: 'AbortError' });
    const partial = path.join(destination, 'tokenizer.json.partial');
    const kept = (await fs.stat(partial)).size;
    assert.ok(kept > 0 && kept <= half);
    await assert.rejects(fs.stat(path.join(destination, 'tokenizer.json')));

    await download();
    await assertDownloaded();
    assert.equal(cdn.requests.at(-2)?.headers.range, `bytes=${kept}-`);
  });

  it('gives up on a transfer that stops sending, after the retries, keeping what arrived for the next download to resume', async () => {
    cdnHandler = (_, response, content) => {
      response.writeHead(200, { 'content-length': String(content.length) });
      response.write(content.subarray(0, 10)); // and then nothing more
    };
    const error = await failure(download({ idleTimeoutMs: 100 }), 'interrupted');
    assert.equal(error.message, 'The download of tokenizer.json from org/tiny-nli broke off 3 times (less than 64 KB arrived in 0.1 s). Try again later: it resumes where it stopped.');
    assert.deepEqual((await listFiles(destination)).sort(), ['config.json', 'tokenizer.json.partial']);
    assert.equal((await fs.stat(path.join(destination, 'tokenizer.json.partial'))).size, 10);
    assert.equal(cdn.requests.length, 3);
  });

  it('gives up on a transfer that sends next to nothing, a byte at a time', async () => {
    cdnHandler = (_, response, content) => {
      response.writeHead(200, { 'content-length': String(content.length) });
      let sent = 0;
      const timer = setInterval(() => response.write(content.subarray(sent, ++sent)), 5);
      response.on('close', () => clearInterval(timer));
    };
    const error = await failure(download({ idleTimeoutMs: 200 }), 'interrupted');
    assert.match(error.message, /^The download of tokenizer\.json from org\/tiny-nli broke off 3 times \(less than 64 KB arrived in 0\.2 s\)/);
    assert.deepEqual((await listFiles(destination)).sort(), ['config.json', 'tokenizer.json.partial']);
  });

  it('gives up on a hub that never answers, saying how to download the model by hand', async () => {
    const silent = await ScriptedServer.start(() => undefined);
    try {
      const error = await failure(download({ baseUrl: silent.baseUrl, idleTimeoutMs: 100 }), 'offline');
      assert.match(error.message, /^Could not reach 127\.0\.0\.1:\d+ \(no answer within 0\.1 s\)\. Download config\.json, .* by hand/);
      assert.deepEqual(await listFiles(destination), []);
    } finally {
      await silent.close();
    }
  });

  /** Runs `test` with a hub that answers every request as `handler` does. */
  async function withHub(handler: (response: http.ServerResponse) => void, test: (hub: ScriptedServer) => Promise<void>): Promise<void> {
    const other = await ScriptedServer.start((_, response) => handler(response));
    try {
      await test(other);
    } finally {
      await other.close();
    }
  }

  it('asks for files as they are, and refuses one sent compressed, which would be unpacked into something else, writing nothing', async () => {
    const handler = (response: http.ServerResponse) => {
      response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'application/json' });
      response.end(gzipSync(Buffer.alloc(4 << 20)));
    };
    await withHub(handler, async (other) => {
      const error = await failure(download({ baseUrl: other.baseUrl }), 'refused');
      assert.match(error.message, /\/config\.json sent config\.json compressed \(Content-Encoding: gzip\) though Attest asked for it as it is; a model file is not unpacked\. .*attest\.nli\.model/);
      assert.equal(other.requests[0].headers['accept-encoding'], 'identity');
    });
    assert.deepEqual(await listFiles(destination), []);
  });

  it('refuses a file announced larger than its kind can be, before any of it is written', async () => {
    const handler = (response: http.ServerResponse) => {
      response.writeHead(200, { 'content-length': String(100 * 1024 * 1024) });
      response.write('{');
    };
    await withHub(handler, async (other) => {
      const error = await failure(download({ baseUrl: other.baseUrl }), 'refused');
      assert.match(error.message, /\/config\.json announced 104857600 bytes for config\.json, which is at most 64 MB; nothing of it was kept\./);
    });
    assert.deepEqual(await listFiles(destination), []);
  });

  it('stops a file that grows past the size the hub announced, and keeps nothing of it', async () => {
    cdnHandler = (_, response, content) => {
      // No Content-Length: only the hub's X-Linked-Size says how long the file is.
      response.writeHead(200, { 'content-type': 'application/octet-stream' });
      response.write(content);
      response.end(Buffer.alloc(64 * 1024));
    };
    const error = await failure(download(), 'refused');
    assert.match(error.message, new RegExp(`sent more than the ${TOKENIZER.length} bytes announced for tokenizer\\.json, which is at most 64 MB; nothing of it was kept\\.`));
    assert.deepEqual(await listFiles(destination), ['config.json']);
  });

  it('discards a large file whose sha256 is not the one the hub announced, leaving nothing in its place', async () => {
    files = hubFiles({ 'tokenizer.json': { announcedHash: sha256(Buffer.from('another file')) } });
    const error = await failure(download(), 'checksum');
    assert.match(error.message, /tokenizer\.json arrived damaged .* and was discarded\. Try again\./);
    assert.deepEqual(await listFiles(destination), ['config.json']);
  });

  it('checks a small file against the git blob sha1 the hub gives as its ETag', async () => {
    files = hubFiles({ 'config.json': { announcedHash: '0123456789abcdef0123456789abcdef01234567' } });
    const error = await failure(download(), 'checksum');
    assert.match(error.message, /config\.json arrived damaged \(git-sha1 /);
    assert.deepEqual(await listFiles(destination), []);
  });

  it('refuses a redirect to a file: URL, saying so, and writes nothing', async () => {
    const trap = await ScriptedServer.start((_, response) => {
      response.writeHead(302, { location: 'file:///etc/passwd' }).end();
    });
    try {
      const error = await failure(download({ baseUrl: trap.baseUrl }), 'refused');
      assert.match(error.message, /redirected to file:\/\/…, which is not a web address; Attest follows redirects to http and https only\./);
      assert.deepEqual(await listFiles(destination), []);
    } finally {
      await trap.close();
    }
  });

  it('refuses a redirect to a link-local address such as a cloud’s metadata service, naming it, and writes nothing', async () => {
    const handler = (response: http.ServerResponse) => void response.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data/' }).end();
    await withHub(handler, async (other) => {
      const error = await failure(download({ baseUrl: other.baseUrl, idleTimeoutMs: 2000 }), 'refused');
      assert.match(error.message, /Attest refused a redirect to https:\/\/169\.254\.169\.254\/latest\/meta-data\/: a link-local address, which the hub \(127\.0\.0\.1:\d+\) is not\. Download the model folder by hand/);
    });
    assert.deepEqual(await listFiles(destination), []);
  });

  it('refuses a plain-http redirect to another host than the hub’s, without asking it anything', async () => {
    const handler = (response: http.ServerResponse) => void response.writeHead(302, { location: `http://localhost:${new URL(cdn.baseUrl).port}/cdn/file` }).end();
    await withHub(handler, async (other) => {
      const error = await failure(download({ baseUrl: other.baseUrl }), 'refused');
      assert.match(error.message, /refused a redirect to http:\/\/localhost:\d+\/cdn\/file: it follows redirects to https only, or to the hub's own host\./);
    });
    assert.equal(cdn.requests.length, 0);
  });

  it('writes nothing outside the model folder, whatever a file is called', async () => {
    const error = await failure(download({ files: ['../escaped.json'] }), 'refused');
    assert.match(error.message, /would be written outside the model folder/);
    await assert.rejects(fs.stat(path.join(destination, '..', 'escaped.json')));
  });

  it('says which file the repository does not have', async () => {
    const error = await failure(download({ files: ['config.json', 'onnx/model_fp16.onnx'] }), 'not-found');
    assert.match(error.message, /^org\/tiny-nli has no onnx\/model_fp16\.onnx at revision main \(.*answered 404\)/);
  });

  it('leaves no empty model folder behind when the download fails, and keeps a folder that was there before', async () => {
    const gone = await ScriptedServer.start(() => undefined);
    const baseUrl = gone.baseUrl;
    await gone.close();
    const fresh = path.join(destination, 'models', 'org', 'tiny-nli');
    await failure(download({ baseUrl, destination: fresh }), 'offline');
    assert.deepEqual(await fs.readdir(destination), [], 'the folders this download made are gone');
    await failure(download({ baseUrl }), 'offline');
    assert.ok((await fs.stat(destination)).isDirectory(), 'the folder that was there before stays');
  });

  it('when the hub cannot be reached, says how to download the model by hand and which setting takes it', async () => {
    const gone = await ScriptedServer.start(() => undefined);
    const baseUrl = gone.baseUrl;
    await gone.close();
    const error = await failure(download({ baseUrl }), 'offline');
    assert.equal(
      error.message,
      `Could not reach ${new URL(baseUrl).host} (ECONNREFUSED). Download config.json, tokenizer.json, onnx/model_quantized.onnx from ${baseUrl}/${REPO} ` +
        'by hand into one folder (keeping their paths) and set attest.nli.model to that folder.',
    );
  });
});
