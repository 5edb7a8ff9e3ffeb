import assert from 'node:assert/strict';
import { boundedFetch, ReplyOverLimit } from '../../../../src/core/suggest/boundedFetch';
import { delay, ScriptedServer } from '../../support/server';

/** What reading the whole body of `server`'s answer through `boundedFetch` comes to: its text, or why it stopped. */
async function read(server: ScriptedServer, bounds: Parameters<typeof boundedFetch>[0]): Promise<string> {
  const response = await boundedFetch(bounds)(server.baseUrl);
  try {
    return await response.text();
  } catch (error) {
    assert.ok(error instanceof ReplyOverLimit, String(error));
    return `${error.limit} ${error.bytes}`;
  }
}

describe('the language model client’s bounds on a reply’s body', () => {
  let server: ScriptedServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serving(...writes: string[]): Promise<ScriptedServer> {
    server = await ScriptedServer.start(async (_, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const write of writes) {
        response.write(write);
        // Separate network chunks, so lines run across them.
        await delay(5);
      }
      response.end();
    });
    return server;
  }

  it('passes a body within every bound as it came', async () => {
    assert.equal(await read(await serving('data: 1\n\n', 'data: 2', '2\n\n'), { maxBytes: 19, maxLineBytes: 8, withinMs: 5000 }), 'data: 1\n\ndata: 22\n\n');
  });

  it('stops a body of short lines once it grows past the size', async () => {
    assert.equal(await read(await serving(...Array<string>(10).fill('data: 1\n\n')), { maxBytes: 50, maxLineBytes: 10, withinMs: 5000 }), 'size 50');
  });

  it('stops a line that grows past its size across network chunks', async () => {
    assert.equal(await read(await serving('data: 1\n\ndata: ', 'xxxxx', 'xxxxx\n\n'), { maxBytes: 1000, maxLineBytes: 12, withinMs: 5000 }), 'size 12');
  });

  it('stops a long line inside one network chunk', async () => {
    assert.equal(await read(await serving(`data: 1\n${'x'.repeat(30)}\ndata: 2\n`), { maxBytes: 1000, maxLineBytes: 12, withinMs: 5000 }), 'size 12');
  });

  it('stops a body still arriving when the time is up', async () => {
    server = await ScriptedServer.start((_, response) => {
      response.writeHead(200);
      const timer = setInterval(() => response.write(' '), 10);
      response.on('close', () => clearInterval(timer));
    });
    assert.equal(await read(server, { maxBytes: 1000, maxLineBytes: 1000, withinMs: 100 }), 'time 0');
  });
});
