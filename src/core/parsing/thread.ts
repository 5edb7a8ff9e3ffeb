import * as path from 'node:path';
import type { Bibliography } from '../bibliography/types';
import { unpackSource } from '../manuscript/packed';
import type { ParsedSource } from '../manuscript/types';
import { OnDemandWorker } from '../onDemandWorker';
import type { Parsers } from './parsers';
import type { ParseReply, ParseRequest } from './protocol';

type Pending = { readonly resolve: (reply: ParseReply) => void; readonly reject: (error: Error) => void };

/**
 * Parsers that run in a worker thread of their own, started on first use. A worker that dies takes
 * its pending files with it (they reject) and the next file starts a new one.
 */
export class ParserThread implements Parsers {
  private readonly worker = new OnDemandWorker<Pending>(path.join(__dirname, 'parserWorker.js'), 'The parser thread', (worker) =>
    worker.on('message', (reply: ParseReply) => this.worker.settle(reply.id)?.resolve(reply)),
  );
  private nextId = 1;

  async source(file: string, text: string, macros?: ReadonlyMap<string, string>): Promise<ParsedSource> {
    const reply = await this.send({ id: this.nextId++, type: 'source', file, text, macros });
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
      this.worker.wait(request.id, { resolve, reject }).postMessage(request);
    });
  }

  dispose(): Promise<void> {
    return this.worker.dispose();
  }
}
