import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Bibliography } from '../bibliography/types';
import { unpackSource } from '../manuscript/packed';
import type { ParsedSource } from '../manuscript/types';
import type { Parsers } from './parsers';
import type { ParseReply, ParseRequest } from './protocol';

type Pending = { readonly resolve: (reply: ParseReply) => void; readonly reject: (error: Error) => void };

/**
 * Parsers that run in a worker thread of their own, started on first use. A worker that dies takes
 * its pending files with it (they reject) and the next file starts a new one.
 */
export class ParserThread implements Parsers {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  async source(file: string, text: string, rootDir: string, macros?: ReadonlyMap<string, string>): Promise<ParsedSource> {
    const reply = await this.send({ id: this.nextId++, type: 'source', file, text, rootDir, macros });
    if (reply.type !== 'source') throw new Error(`Parsing ${file} failed: ${reply.type === 'failed' ? reply.message : 'unexpected reply'}`);
    return unpackSource(reply.parsed);
  }

  async bibliography(file: string, text: string): Promise<Bibliography> {
    const reply = await this.send({ id: this.nextId++, type: 'bibliography', file, text });
    if (reply.type !== 'bibliography') throw new Error(`Parsing ${file} failed: ${reply.type === 'failed' ? reply.message : 'unexpected reply'}`);
    return reply.parsed;
  }

  private send(request: ParseRequest): Promise<ParseReply> {
    return new Promise((resolve, reject) => {
      const worker = this.started();
      // Only a thread with work pending keeps the process alive.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(request.id, { resolve, reject });
      worker.postMessage(request);
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(path.join(__dirname, 'parserWorker.js'));
    worker.on('message', (reply: ParseReply) => {
      const pending = this.pending.get(reply.id);
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      pending?.resolve(reply);
    });
    const stop = (error: Error): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const pending of this.pending.values()) pending.reject(error);
      this.pending.clear();
    };
    worker.on('error', (error) => stop(new Error(`The parser thread failed: ${error.message}`)));
    worker.on('exit', (code) => stop(new Error(`The parser thread stopped (exit code ${code}).`)));
    this.worker = worker;
    return worker;
  }

  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    for (const pending of this.pending.values()) pending.reject(new Error('The parser thread was closed.'));
    this.pending.clear();
    await worker?.terminate();
  }
}
