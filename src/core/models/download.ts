/**
 * Downloads a model's files once from the Hugging Face hub (or a mirror with its URL layout,
 * `{base}/{repo}/resolve/{revision}/{file}`) into a folder, the way a user would want a 100 MB
 * download to behave: progress as it goes, cancellable, resumed where it stopped (an HTTP Range
 * request on `file.partial`, within one call after a dropped connection and across calls after a
 * cancellation or a crash), checked against the hash the hub announces, and renamed into place only
 * when whole, so a file at its final path is always complete.
 *
 * The hub answers a large (LFS) file with a redirect to its CDN that carries the file's sha256 in
 * `X-Linked-Etag`; a small file comes straight back with its git blob sha1 as `ETag`. Either is
 * checked when present; the CDN's own `ETag` is not a content hash and is ignored.
 */
import { createHash } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SMALL_FILE_BYTES } from '../text/readFile';
import { refusedHubRedirect } from './hubRedirect';

export interface ModelDownload {
  /** The hub repository, e.g. `Xenova/nli-deberta-v3-xsmall`. */
  readonly repo: string;
  /** Paths inside the repository, e.g. `onnx/model_quantized.onnx`; kept as they are under `destination`. */
  readonly files: readonly string[];
  readonly destination: string;
  /** Default `https://huggingface.co`. */
  readonly baseUrl?: string;
  /** A branch, tag or commit; default `main`. */
  readonly revision?: string;
  /** The setting that takes a model folder downloaded by hand, named when the hub cannot be reached. */
  readonly folderSetting: string;
  readonly onProgress?: (progress: DownloadProgress) => void;
  /** Aborting stops the transfer and keeps what arrived, for the next call to resume; the call rejects with `signal.reason`. */
  readonly signal?: AbortSignal;
  /**
   * How long the hub may take to answer, or to send the next 64 KB of a file, before the transfer
   * counts as broken off; default 30 s.
   */
  readonly idleTimeoutMs?: number;
}

export interface DownloadProgress {
  readonly file: string;
  readonly receivedBytes: number;
  /** Undefined when the server does not say. */
  readonly totalBytes: number | undefined;
}

export type DownloadErrorKind = 'offline' | 'not-found' | 'refused' | 'checksum' | 'interrupted';

export class ModelDownloadError extends Error {
  override readonly name = 'ModelDownloadError';

  constructor(
    readonly kind: DownloadErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_BASE_URL = 'https://huggingface.co';
const MAX_REDIRECTS = 5;
/** Transfers of one file, the first included, before a dropped connection is reported. */
const ATTEMPTS = 3;
const IDLE_TIMEOUT_MS = 30_000;
/** ONNX graphs are protocol buffers, which cannot be larger; bigger models keep their weights in other files. */
const MAX_GRAPH_BYTES = 2 ** 31 - 1;

/**
 * Fetches every file not already at its final path; resolves when all are there. A download that fails
 * takes back the folders it made that are still empty, so that no empty model folder is left looking
 * like a model; a folder holding anything (a part kept for the next download to resume) stays.
 */
export async function downloadModel(download: ModelDownload): Promise<void> {
  const destination = path.resolve(download.destination);
  const made: { readonly deepest: string; readonly first: string }[] = [];
  try {
    for (const file of download.files) {
      const target = path.resolve(destination, file);
      // The files' names are Attest's own; this only keeps a mistake from writing outside the folder.
      if (!target.startsWith(destination + path.sep)) throw new ModelDownloadError('refused', `${file} would be written outside the model folder ${destination}.`);
      if (await exists(target)) continue;
      const first = await fs.mkdir(path.dirname(target), { recursive: true });
      if (first !== undefined) made.push({ deepest: path.dirname(target), first });
      await downloadFile(download, file, target);
    }
  } catch (error) {
    for (const { deepest, first } of made.reverse()) await removeEmptyUpTo(deepest, first);
    throw error;
  }
}

/** Removes `dir` and its parents up to `last` while each is empty; rmdir refuses a folder that is not. */
async function removeEmptyUpTo(dir: string, last: string): Promise<void> {
  for (let folder = dir; ; folder = path.dirname(folder)) {
    if (!(await fs.rmdir(folder).then(() => true, () => false)) || folder === last || path.dirname(folder) === folder) return;
  }
}

interface Expected {
  readonly algorithm: 'sha256' | 'git-sha1';
  readonly hex: string;
}

async function downloadFile(download: ModelDownload, file: string, target: string): Promise<void> {
  const partial = `${target}.partial`;
  let expected: Expected | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      expected = (await transfer(download, file, partial)) ?? expected;
      break;
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error;
      if (attempt === ATTEMPTS) {
        throw new ModelDownloadError(
          'interrupted',
          `The download of ${file} from ${download.repo} broke off ${ATTEMPTS} times (${error.message}). Try again later: it resumes where it stopped.`,
        );
      }
    }
  }
  if (expected) await verify(partial, expected, file);
  await fs.rename(partial, target);
}

/** A connection that dropped mid-transfer: worth resuming. */
class Interrupted extends Error {}

/** Appends the rest of the file to `partial`; resolves with the hash the hub announced, if any. */
async function transfer(download: ModelDownload, file: string, partial: string): Promise<Expected | undefined> {
  const url = `${repoPage(download)}/resolve/${encodeURIComponent(download.revision ?? 'main')}/${file.split('/').map(encodeURIComponent).join('/')}`;
  const offset = await sizeOf(partial);
  const idle = new IdleTimer(download.idleTimeoutMs ?? IDLE_TIMEOUT_MS);
  try {
    return await receive(download, file, partial, url, offset, idle);
  } finally {
    idle.dispose();
  }
}

async function receive(download: ModelDownload, file: string, partial: string, url: string, offset: number, idle: IdleTimer): Promise<Expected | undefined> {
  const { response, expected, announcedSize, answeredBy } = await request(url, offset, download, idle);
  const total = totalSize(response, offset) ?? announcedSize;
  if (response.status === 416 && offset > 0) {
    // What is on disk is not a prefix of this file (or is all of it): start over.
    await fs.rm(partial, { force: true });
    throw new Interrupted('the server refused to resume');
  }
  if (response.status === 404) {
    throw new ModelDownloadError('not-found', `${download.repo} has no ${file} at revision ${download.revision ?? 'main'} (${url} answered 404). Check the repository's name.`);
  }
  if (response.status === 401 || response.status === 403) {
    const where = answeredBy === url ? url : `${answeredBy} (where ${url} redirected)`;
    throw new ModelDownloadError('refused', `${where} answered ${response.status}: the repository is private or gated. Download the model folder by hand and set ${download.folderSetting} to its path.`);
  }
  if (response.status !== 200 && response.status !== 206) {
    throw new ModelDownloadError('offline', `${url} answered ${response.status}. Try again later, or download the model folder by hand and set ${download.folderSetting} to its path.`);
  }
  const encoding = response.headers.get('content-encoding')?.trim().toLowerCase();
  if (encoding && encoding !== 'identity') {
    await response.body?.cancel();
    throw new ModelDownloadError(
      'refused',
      `${url} sent ${file} compressed (Content-Encoding: ${encoding}) though Attest asked for it as it is; a model file is not unpacked. ` +
        `Download the model folder by hand and set ${download.folderSetting} to its path.`,
    );
  }
  const largest = Math.min(total ?? Infinity, maxBytes(file));
  if (total !== undefined && total > maxBytes(file)) {
    await response.body?.cancel();
    await fs.rm(partial, { force: true });
    throw tooLarge(download, file, `${url} announced ${total} bytes`);
  }
  const resumed = response.status === 206;
  if (resumed && contentRangeStart(response) !== offset) {
    await fs.rm(partial, { force: true });
    throw new Interrupted('the server resumed from another byte than asked');
  }
  let received = resumed ? offset : 0;
  let overflowed = false;
  const handle = await fs.open(partial, resumed ? 'a' : 'w');
  try {
    download.onProgress?.({ file, receivedBytes: received, totalBytes: total });
    const reader = response.body?.getReader();
    for (;;) {
      const chunk = await readChunk(reader, download.signal, idle);
      if (!chunk) break;
      idle.arrived(chunk.byteLength);
      received += chunk.byteLength;
      if (received > largest) {
        await reader?.cancel();
        overflowed = true;
        break;
      }
      await handle.write(chunk);
      download.onProgress?.({ file, receivedBytes: received, totalBytes: total });
    }
  } finally {
    await handle.close();
  }
  if (overflowed) {
    await fs.rm(partial, { force: true });
    throw tooLarge(download, file, total === undefined ? `${url} sent more` : `${url} sent more than the ${total} bytes announced`);
  }
  if (total !== undefined && received !== total) throw new Interrupted(`${received} of ${total} bytes arrived`);
  return expected;
}

/** The most a file of this kind can hold: what is larger is not the file Attest asked for. */
function maxBytes(file: string): number {
  return file.endsWith('.onnx') ? MAX_GRAPH_BYTES : SMALL_FILE_BYTES;
}

function tooLarge(download: ModelDownload, file: string, what: string): ModelDownloadError {
  return new ModelDownloadError(
    'refused',
    `${what} for ${file}, which is at most ${Math.round(maxBytes(file) / 1024 / 1024)} MB; nothing of it was kept. ` +
      `Download the model folder by hand and set ${download.folderSetting} to its path.`,
  );
}

function repoPage(download: ModelDownload): string {
  return `${(download.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '')}/${download.repo}`;
}

/** The next piece of the body, or undefined at its end. */
async function readChunk(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, signal: AbortSignal | undefined, idle: IdleTimer): Promise<Uint8Array | undefined> {
  if (!reader) return undefined;
  try {
    const { done, value } = await reader.read();
    return done ? undefined : value;
  } catch (error) {
    signal?.throwIfAborted();
    throw new Interrupted(idle.expired ? `less than ${PROGRESS_BYTES / 1024} KB arrived in ${seconds(idle.ms)}` : (error as Error).message);
  }
}

/** What counts as progress: a hub that sends a byte a second is as stuck as one that sends nothing. */
const PROGRESS_BYTES = 64 * 1024;

/**
 * Aborts its signal once `ms` pass without a restart or PROGRESS_BYTES arriving: a hub that answers
 * and then sends nothing more, or next to nothing (or never answers), would otherwise hold the
 * download until the user cancels it.
 */
class IdleTimer {
  private readonly controller = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private bytes = 0;

  constructor(readonly ms: number) {
    this.restart();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  arrived(bytes: number): void {
    this.bytes += bytes;
    if (this.bytes >= PROGRESS_BYTES) this.restart();
  }

  restart(): void {
    this.bytes = 0;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(), this.ms);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

interface Answer {
  readonly response: Response;
  readonly expected: Expected | undefined;
  /** An LFS file's size, as the hub announces it with the redirect (`X-Linked-Size`). */
  readonly announcedSize: number | undefined;
  /** The URL the response came from, after the redirects. */
  readonly answeredBy: string;
}

/** Follows redirects by hand, so the hub's own headers (the hash, the size) are seen before the CDN's, and each is checked. */
async function request(url: string, offset: number, download: ModelDownload, idle: IdleTimer): Promise<Answer> {
  const hubOrigin = new URL(url).origin;
  let expected: Expected | undefined;
  let announcedSize: number | undefined;
  let current = url;
  for (let redirects = 0; ; redirects++) {
    let response: Response;
    try {
      response = await fetch(current, {
        redirect: 'manual',
        // fetch would unpack a compressed answer: a small one could fill the disk.
        headers: { 'accept-encoding': 'identity', ...(offset > 0 && { range: `bytes=${offset}-` }) },
        signal: download.signal ? AbortSignal.any([download.signal, idle.signal]) : idle.signal,
      });
    } catch (error) {
      download.signal?.throwIfAborted();
      throw unreachable(current, idle.expired ? `no answer within ${seconds(idle.ms)}` : error, download);
    }
    idle.restart();
    const location = response.headers.get('location');
    const redirect = response.status >= 300 && response.status < 400 && location !== null;
    if (!expected) expected = announcedHash(response, !redirect && new URL(current).origin === hubOrigin);
    announcedSize ??= byteCount(response.headers.get('x-linked-size'));
    if (!redirect) return { response, expected, announcedSize, answeredBy: current };
    await response.body?.cancel();
    if (redirects === MAX_REDIRECTS) throw new ModelDownloadError('offline', `${url} redirected more than ${MAX_REDIRECTS} times.`);
    const next = new URL(location, current);
    const refused = await refusedHubRedirect(new URL(url), current, next);
    if (refused) throw new ModelDownloadError('refused', `${refused} Download the model folder by hand and set ${download.folderSetting} to its path.`);
    current = next.href;
  }
}

/** `error` is what fetch threw, or the reason itself. */
function unreachable(url: string, error: unknown, download: ModelDownload): ModelDownloadError {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const reason = typeof error === 'string' ? error : (cause?.code ?? cause?.message ?? (error as Error).message);
  return new ModelDownloadError(
    'offline',
    `Could not reach ${new URL(url).host} (${reason}). Download ${download.files.join(', ')} from ${repoPage(download)} by hand into one folder ` +
      `(keeping their paths) and set ${download.folderSetting} to that folder.`,
  );
}

/** `X-Linked-Etag` (an LFS file's sha256) on any hub answer; `ETag` only on the hub's own final answer. */
function announcedHash(response: Response, fromHub: boolean): Expected | undefined {
  const linked = hexTag(response.headers.get('x-linked-etag'));
  if (linked?.length === 64) return { algorithm: 'sha256', hex: linked };
  if (!fromHub) return undefined;
  const etag = hexTag(response.headers.get('etag'));
  if (etag?.length === 64) return { algorithm: 'sha256', hex: etag };
  if (etag?.length === 40) return { algorithm: 'git-sha1', hex: etag };
  return undefined;
}

/** The hex digits of `"abc…"` or `W/"abc…"`, lower case; undefined when the tag is something else. */
function hexTag(tag: string | null): string | undefined {
  const match = /^(?:W\/)?"?([0-9a-fA-F]+)"?$/.exec(tag?.trim() ?? '');
  return match?.[1].toLowerCase();
}

function totalSize(response: Response, offset: number): number | undefined {
  if (response.status === 206) {
    const total = /\/(\d+)\s*$/.exec(response.headers.get('content-range') ?? '');
    if (total) return Number(total[1]);
  }
  const length = byteCount(response.headers.get('content-length'));
  if (length === undefined) return undefined;
  return response.status === 206 ? offset + length : length;
}

function byteCount(header: string | null): number | undefined {
  return header !== null && /^\s*\d+\s*$/.test(header) ? Number(header) : undefined;
}

function contentRangeStart(response: Response): number | undefined {
  const match = /^bytes\s+(\d+)-/.exec(response.headers.get('content-range') ?? '');
  return match ? Number(match[1]) : undefined;
}

async function verify(partial: string, expected: Expected, file: string): Promise<void> {
  const hash = createHash(expected.algorithm === 'sha256' ? 'sha256' : 'sha1');
  // git names a blob by the sha1 of a header and the content.
  if (expected.algorithm === 'git-sha1') hash.update(`blob ${await sizeOf(partial)}\0`);
  for await (const chunk of createReadStream(partial)) hash.update(chunk as Buffer);
  const actual = hash.digest('hex');
  if (actual !== expected.hex) {
    await fs.rm(partial, { force: true });
    throw new ModelDownloadError(
      'checksum',
      `${file} arrived damaged (${expected.algorithm} ${actual}, the hub announced ${expected.hex}) and was discarded. Try again.`,
    );
  }
}

async function sizeOf(file: string): Promise<number> {
  return (await fs.stat(file).catch(() => undefined))?.size ?? 0;
}

async function exists(file: string): Promise<boolean> {
  return (await fs.stat(file).catch(() => undefined))?.isFile() ?? false;
}
