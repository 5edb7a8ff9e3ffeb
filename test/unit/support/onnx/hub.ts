import { createHash } from 'node:crypto';
import type * as http from 'node:http';

/**
 * The Hugging Face hub's download layout, as a test server plays it: `/{repo}/resolve/{revision}/{file}`
 * answers a small file itself with its git blob sha1 as ETag, and a large (LFS) file with a 302 to
 * a CDN, announcing its sha256 in X-Linked-Etag; the CDN honours Range and sends an ETag of its own
 * that is no content hash.
 */
export interface HubFile {
  readonly content: Buffer;
  /** Served through the CDN, as the hub serves LFS files. */
  readonly lfs?: boolean;
  /** What the hub announces instead of the true hash, to play a damaged transfer. */
  readonly announcedHash?: string;
}

export function sha256(content: Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export function gitBlobSha1(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** Answers hub requests for `files` of `repo` at `main`; LFS files redirect to `cdnBase/cdn/{sha256}`. */
export function hubHandler(repo: string, files: Readonly<Record<string, HubFile>>, cdnBase: () => string) {
  return (request: http.IncomingMessage, response: http.ServerResponse): void => {
    const prefix = `/${repo}/resolve/main/`;
    const url = request.url ?? '';
    const file = url.startsWith(prefix) ? files[decodeURIComponent(url.slice(prefix.length))] : undefined;
    if (!file) {
      response.writeHead(404, { 'x-error-code': 'EntryNotFound' });
      response.end('Entry not found');
      return;
    }
    if (file.lfs) {
      response.writeHead(302, {
        location: `${cdnBase()}/cdn/${sha256(file.content)}`,
        'x-linked-etag': `"${file.announcedHash ?? sha256(file.content)}"`,
        'x-linked-size': String(file.content.length),
        etag: 'W/"1a-redirect"',
      });
      response.end();
      return;
    }
    sendRange(request, response, file.content, `"${file.announcedHash ?? gitBlobSha1(file.content)}"`);
  };
}

/** Answers `content`, or the part a `Range: bytes=N-` asks for. */
export function sendRange(request: http.IncomingMessage, response: http.ServerResponse, content: Buffer, etag: string): void {
  const range = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
  const start = range ? Number(range[1]) : 0;
  if (start >= content.length && range) {
    response.writeHead(416, { 'content-range': `bytes */${content.length}` });
    response.end();
    return;
  }
  const headers = { etag, 'content-type': 'application/octet-stream', 'content-length': String(content.length - start) };
  if (range) response.writeHead(206, { ...headers, 'content-range': `bytes ${start}-${content.length - 1}/${content.length}` });
  else response.writeHead(200, headers);
  response.end(content.subarray(start));
}

/** Sends the first `bytes` of `content` as if all of it were coming, and drops the connection once `cut` settles. */
export async function sendCutOff(response: http.ServerResponse, content: Buffer, bytes: number, cut: Promise<void>): Promise<void> {
  response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(content.length) });
  response.write(content.subarray(0, bytes));
  await cut;
  response.socket?.destroy();
}
