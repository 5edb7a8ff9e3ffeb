/**
 * DBLP's dump indexed in a thread of its own (`dblpIndexWorker.ts`): the editor's thread stays free
 * for the minutes a whole dump takes, and the CLI's too. Its errors come back as they were thrown
 * there: `DblpDumpError` for a dump that cannot be read, the file system's code for a folder that
 * cannot be written, an `AbortError` once `signal` aborts (the index then left as it was).
 */
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BuildOptions } from './dumpIndex';
import type { CancelRequest, IndexReply, IndexRequest } from './indexProtocol';
import { DblpDumpError } from './xml';

export function buildInThread(file: string, folder: string, { signal, onProgress }: BuildOptions = {}): Promise<void> {
  signal?.throwIfAborted();
  const request: IndexRequest = { file, folder };
  const worker = new Worker(path.join(__dirname, 'dblpIndexWorker.js'), { workerData: request });
  const cancel = (): void => worker.postMessage({ type: 'cancel' } satisfies CancelRequest);
  signal?.addEventListener('abort', cancel, { once: true });
  return new Promise<void>((resolve, reject) => {
    worker.on('message', (reply: IndexReply) => {
      if (reply.type === 'progress') onProgress?.(reply.progress);
      else if (reply.type === 'done') resolve();
      else reject(errorOf(reply));
    });
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`The thread indexing DBLP's dump ended (exit code ${code}) before it finished.`)));
  }).finally(() => {
    signal?.removeEventListener('abort', cancel);
    void worker.terminate();
  });
}

function errorOf(reply: Extract<IndexReply, { type: 'failed' }>): Error {
  if (reply.kind === 'dump') return new DblpDumpError(reply.message);
  if (reply.kind === 'cancelled') return new DOMException(reply.message, 'AbortError');
  return Object.assign(new Error(reply.message), reply.code !== undefined && { code: reply.code });
}
