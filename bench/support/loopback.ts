import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A stand-in service on a free port of 127.0.0.1; subclasses answer its requests. */
export abstract class LoopbackServer {
  private readonly server = http.createServer((req, res) => void this.handle(req, res));

  protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;

  /** Resolves to the base URL. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Closes at once, dropping connections still open (requests a cancelled check left behind). */
  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
