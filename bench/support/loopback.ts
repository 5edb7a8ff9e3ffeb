import type * as http from 'node:http';
import { ScriptedServer } from '../../test/unit/support/server';

/** A stand-in service on a free port of 127.0.0.1, the tests' own server; subclasses answer its requests. */
export abstract class LoopbackServer {
  private server?: ScriptedServer;

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;

  /** Resolves to the base URL. */
  async start(): Promise<string> {
    this.server = await ScriptedServer.start((req, res) => this.handle(req, res));
    return this.server.baseUrl;
  }

  /** Closes at once, dropping connections still open (requests a cancelled check left behind). */
  async stop(): Promise<void> {
    await this.server?.close();
  }
}
