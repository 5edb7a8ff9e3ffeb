/**
 * The thread DBLP's dump is indexed in (`indexThread.ts` starts it): some minutes of parsing that must
 * not hold the extension host's thread. It builds the index (`buildDumpIndex`), tells its progress, and
 * stops, leaving the index as it was, when asked.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buildDumpIndex } from './dumpIndex';
import type { CancelRequest, IndexReply, IndexRequest } from './indexProtocol';
import { DblpDumpError } from './xml';

const request = workerData as IndexRequest;
const port = parentPort;
const cancel = new AbortController();
const say = (reply: IndexReply): void => port?.postMessage(reply);

port?.on('message', (message: CancelRequest) => {
  if (message.type === 'cancel') cancel.abort();
});

buildDumpIndex(request.file, request.folder, { signal: cancel.signal, onProgress: (progress) => say({ type: 'progress', progress }) }).then(
  () => say({ type: 'done' }),
  (error: unknown) => {
    const kind = cancel.signal.aborted ? 'cancelled' : error instanceof DblpDumpError ? 'dump' : 'other';
    const code = (error as NodeJS.ErrnoException).code;
    say({ type: 'failed', kind, message: (error as Error).message, ...(code !== undefined && { code }) });
  },
);
