/** The worker thread of `ParserThread` (thread.ts): parses what it is sent, one file at a time. */
import { parentPort } from 'node:worker_threads';
import { readBibliography } from '../bibliography/read';
import { transferablesOf } from '../manuscript/packed';
import { packSource } from './parsers';
import type { ParseReply, ParseRequest } from './protocol';

function answer(request: ParseRequest): ParseReply {
  try {
    if (request.type === 'source') return { id: request.id, type: 'source', parsed: packSource(request.file, request.text, request.macros) };
    return { id: request.id, type: 'bibliography', parsed: readBibliography(request.text, request.file) };
  } catch (error) {
    return { id: request.id, type: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

const port = parentPort;
if (!port) throw new Error('parserWorker.js runs as a worker thread started by thread.ts');
port.on('message', (request: ParseRequest) => {
  const reply = answer(request);
  // A parsed manuscript's arrays are handed over, not copied: the thread that asked only unpacks them.
  port.postMessage(reply, reply.type === 'source' ? transferablesOf(reply.parsed) : []);
});
