import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  /** Path and query, as the client sent them. */
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
}

/** Answers one request; `index` counts requests from 0, so a script can change its answer over time. */
export type Handler = (request: http.IncomingMessage, response: http.ServerResponse, index: number) => void | Promise<void>;

/**
 * A server on 127.0.0.1 that answers as a test scripts it, and remembers what it was asked and how
 * many requests it held at once.
 */
export class ScriptedServer {
  readonly requests: RecordedRequest[] = [];
  private inFlight = 0;
  maxInFlight = 0;

  private constructor(
    private readonly server: http.Server,
    handler: Handler,
  ) {
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
      const index = this.requests.length;
      this.requests.push({ url: request.url ?? '', headers: request.headers });
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      response.on('close', () => this.inFlight--);
      Promise.resolve(handler(request, response, index)).catch((error: unknown) => {
        response.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  }

  static async start(handler: Handler): Promise<ScriptedServer> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new ScriptedServer(server, handler);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The paths asked for, query included. */
  get urls(): string[] {
    return this.requests.map((r) => r.url);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function sendJson(response: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  sendText(response, status, JSON.stringify(body), { 'content-type': 'application/json', ...headers });
}

export function sendText(response: http.ServerResponse, status: number, body: string, headers: http.OutgoingHttpHeaders = {}): void {
  response.writeHead(status, { 'content-type': 'text/plain', ...headers });
  response.end(body);
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
