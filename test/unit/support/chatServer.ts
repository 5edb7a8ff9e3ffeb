/**
 * A local server that speaks OpenAI's chat-completions API as a test scripts it: a JSON completion
 * or, when the request asks to stream, server-sent events (`data: {chunk}` … `data: [DONE]`); an
 * HTTP error; silence; or a stream that breaks off.
 */
import type * as http from 'node:http';
import { delay, ScriptedServer, sendJson } from './server';

export interface ChatRequest {
  readonly model: string;
  readonly messages: readonly { readonly role: string; readonly content: string }[];
  readonly stream?: boolean;
  readonly temperature?: number;
  readonly max_tokens?: number;
}

export interface ReceivedChat {
  readonly body: ChatRequest;
  readonly headers: http.IncomingHttpHeaders;
}

export type ChatReply =
  /** The reply, whole or streamed in pieces of `piece` characters (7 by default), ending with `finish` ('stop' by default). */
  | { readonly text: string; readonly finish?: string; readonly piece?: number }
  /** An error status with OpenAI's error body; 429 and 5xx ask the client to retry after 1 ms. */
  | { readonly status: number; readonly message?: string }
  /** Never answers. */
  | { readonly silent: true }
  /**
   * Answers 200 and then never finishes: every `everyMs` it sends `repeat`, a string into a whole
   * reply's JSON body, or a streamed reply's next chunk's `delta`.
   */
  | { readonly repeat: string | object; readonly everyMs: number }
  /**
   * Streams the first half of `text`, then: `drop` destroys the connection, `end` ends the response
   * without a finish reason or [DONE], `stall` keeps it open and sends nothing more.
   */
  | { readonly text: string; readonly breaks: 'drop' | 'end' | 'stall' };

/** The reply to the request, given what the request holds and how many came before it. */
export type ChatScript = (request: ReceivedChat, index: number) => ChatReply;

export class ChatServer {
  readonly received: ReceivedChat[] = [];

  private constructor(private readonly server: ScriptedServer) {}

  /** Replies in order (the last repeats), or as a function decides. */
  static async start(script: ChatScript | readonly ChatReply[]): Promise<ChatServer> {
    const next: ChatScript = typeof script === 'function' ? script : (_, i) => script[Math.min(i, script.length - 1)];
    let chat: ChatServer | undefined;
    const server = await ScriptedServer.start(async (request, response) => {
      const text = await readBody(request);
      if (request.method !== 'POST' || !request.url?.endsWith('/chat/completions')) return sendJson(response, 404, { error: { message: 'no such route' } });
      const received: ReceivedChat = { body: JSON.parse(text) as ChatRequest, headers: request.headers };
      chat?.received.push(received);
      await answer(response, received.body, next(received, (chat?.received.length ?? 1) - 1));
    });
    chat = new ChatServer(server);
    return chat;
  }

  /** The base URL to give the client. */
  get baseUrl(): string {
    return `${this.server.baseUrl}/v1`;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}

async function answer(response: http.ServerResponse, body: ChatRequest, reply: ChatReply): Promise<void> {
  if ('silent' in reply) return;
  if ('repeat' in reply) return repeatForever(response, body, reply.repeat, reply.everyMs);
  if ('status' in reply) {
    const retry = reply.status === 429 || reply.status >= 500 ? { 'retry-after-ms': '1' } : {};
    return sendJson(response, reply.status, { error: { message: reply.message ?? `status ${reply.status}`, type: 'error' } }, retry);
  }
  const breaks = 'breaks' in reply ? reply.breaks : undefined;
  const finish = 'finish' in reply && reply.finish ? reply.finish : 'stop';
  if (!body.stream) {
    const completion = JSON.stringify({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 0,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: reply.text }, finish_reason: finish }],
    });
    response.writeHead(200, { 'content-type': 'application/json' });
    if (!breaks) return void response.end(completion);
    response.write(completion.slice(0, completion.length >> 1));
    // Long enough for the client to have the headers: the reply breaks while its body arrives.
    await delay(20);
    return breakOff(response, breaks);
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (delta: object, finishReason: string | null): void => sendChunk(response, body, delta, finishReason);
  const text = breaks ? reply.text.slice(0, reply.text.length >> 1) : reply.text;
  send({ role: 'assistant', content: '' }, null);
  const size = 'piece' in reply && reply.piece ? reply.piece : 7;
  for (let at = 0; at < text.length; at += size) {
    const piece = text.slice(at, at + size);
    send({ content: piece }, null);
    // Separate writes, so the client reads the reply in several network chunks as it would a model's.
    await delay(0);
  }
  if (breaks) return breakOff(response, breaks);
  send({}, finish);
  response.end('data: [DONE]\n\n');
}

function sendChunk(response: http.ServerResponse, body: ChatRequest, delta: object, finishReason: string | null): void {
  response.write(
    `data: ${JSON.stringify({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
  );
}

function repeatForever(response: http.ServerResponse, body: ChatRequest, repeat: string | object, everyMs: number): void {
  response.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
  const timer = setInterval(() => {
    if (typeof repeat === 'string') response.write(repeat);
    else sendChunk(response, body, repeat, null);
  }, everyMs);
  response.on('close', () => clearInterval(timer));
}

function breakOff(response: http.ServerResponse, how: 'drop' | 'end' | 'stall'): void {
  if (how === 'drop') response.socket?.destroy();
  else if (how === 'end') response.end();
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}
