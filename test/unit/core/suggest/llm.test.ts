import assert from 'node:assert/strict';
import { LlmError, MAX_REPLY_LINE_BYTES, OpenAiLlm, type ChatMessage, type LlmErrorKind, type LlmSettings } from '../../../../src/core/suggest/llm';
import { ChatServer, type ChatReply } from '../../support/chatServer';
import { ScriptedServer } from '../../support/server';

const SECRET = 'sk-proj-very-secret-4f2a9c';
const ASK: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Say hello.' },
];
const LONG = 'Caching cuts latency by forty percent [1]. It also saves memory [2].';

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected the request to fail');
}

async function failsWith(promise: Promise<unknown>, kind: LlmErrorKind): Promise<LlmError> {
  const error = await failure(promise);
  assert.ok(error instanceof LlmError, `expected an LlmError, got ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  return error;
}

describe('the language model client (openai against a local chat-completions server)', () => {
  let server: ChatServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function llmFor(replies: readonly ChatReply[], settings: Partial<LlmSettings> = {}): Promise<OpenAiLlm> {
    server = await ChatServer.start(replies);
    return new OpenAiLlm({ baseUrl: server.baseUrl, model: 'local-model', temperature: 0.2, maxTokens: 300, timeoutMs: 5000, maxRetries: 2, ...settings });
  }

  it('returns a whole reply, sending the model settings and a placeholder key', async () => {
    const llm = await llmFor([{ text: 'Hello.' }]);
    assert.equal(await llm.complete(ASK), 'Hello.');
    const [{ body, headers }] = server?.received ?? [];
    assert.deepEqual(
      { model: body.model, messages: body.messages, temperature: body.temperature, max_tokens: body.max_tokens, stream: body.stream },
      { model: 'local-model', messages: ASK, temperature: 0.2, max_tokens: 300, stream: false },
    );
    assert.equal(headers.authorization, 'Bearer no-key');
  });

  it('streams a reply piece by piece', async () => {
    const llm = await llmFor([{ text: LONG }]);
    const pieces: string[] = [];
    assert.equal(await llm.complete(ASK, { onToken: (p) => pieces.push(p) }), LONG);
    assert.ok(pieces.length > 3);
    assert.equal(pieces.join(''), LONG);
    assert.equal(server?.received[0].body.stream, true);
  });

  it('sends the configured key, never one from OPENAI_* variables, and not the machine it runs on', async () => {
    const planted = { OPENAI_API_KEY: 'sk-env-key-aaaa', OPENAI_ADMIN_KEY: 'sk-admin-key-bbbb', OPENAI_ORG_ID: 'org-env', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' };
    const saved = Object.keys(planted).map((name) => [name, process.env[name]] as const);
    Object.assign(process.env, planted);
    try {
      const withKey = await llmFor([{ text: 'Hi.' }], { apiKey: SECRET });
      await withKey.complete(ASK);
      const local = new OpenAiLlm({ baseUrl: server?.baseUrl ?? '', model: 'm', temperature: 0, maxTokens: 10, timeoutMs: 5000 });
      await local.complete(ASK);
    } finally {
      for (const [name, value] of saved) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
    const [first, second] = server?.received ?? [];
    assert.equal(first.headers.authorization, `Bearer ${SECRET}`);
    assert.equal(second.headers.authorization, 'Bearer no-key');
    for (const { headers } of [first, second]) {
      assert.equal(headers['openai-organization'], undefined);
      assert.equal(headers['x-stainless-os'], undefined);
      assert.equal(headers['x-stainless-runtime-version'], undefined);
    }
  });

  it('without an endpoint or a model, says so and sends nothing', async () => {
    server = await ChatServer.start([{ text: 'never' }]);
    const base = { temperature: 0.2, maxTokens: 300, timeoutMs: 5000 };
    for (const settings of [
      { baseUrl: '', model: 'm' },
      { baseUrl: server.baseUrl, model: ' ' },
      { baseUrl: 'localhost:11434/v1', model: 'm' },
    ]) {
      assert.throws(
        () => new OpenAiLlm({ ...base, ...settings }),
        (e: unknown) => e instanceof LlmError && e.kind === 'not-configured',
      );
    }
    assert.equal(server.received.length, 0);
  });

  it('retries after a 429 and returns the reply that follows', async () => {
    const llm = await llmFor([{ status: 429, message: 'slow down' }, { text: 'Fine.' }]);
    assert.equal(await llm.complete(ASK, { onToken: () => {} }), 'Fine.');
    assert.equal(server?.received.length, 2);
  });

  it('gives up on a 429 that lasts past the retries', async () => {
    const llm = await llmFor([{ status: 429, message: 'Rate limit reached for requests' }], { maxRetries: 1 });
    const error = await failsWith(llm.complete(ASK), 'rate-limited');
    assert.match(error.message, /HTTP 429\) and still was after 1 retry: wait a little and try again\. It said: "Rate limit reached for requests"/);
    assert.equal(server?.received.length, 2);
  });

  it('reports a server error with what the server said', async () => {
    const llm = await llmFor([{ status: 500, message: 'CUDA out of memory' }]);
    const error = await failsWith(llm.complete(ASK, { onToken: () => {} }), 'server');
    assert.match(error.message, /failed \(HTTP 500\) on all 3 attempts\. It said: "CUDA out of memory"/);
  });

  it('times out when the server does not answer', async () => {
    const llm = await llmFor([{ silent: true }], { timeoutMs: 200, maxRetries: 0 });
    const error = await failsWith(llm.complete(ASK), 'timeout');
    assert.match(error.message, /No answer from http:\/\/127\.0\.0\.1:\d+\/v1 within 0\.2 s/);
  });

  it('gives up on a whole reply whose body is still dripping in when the timeout is up', async () => {
    const llm = await llmFor([{ repeat: ' ', everyMs: 20 }], { timeoutMs: 300, maxRetries: 0 });
    const error = await failsWith(llm.complete(ASK), 'timeout');
    assert.match(error.message, /^http:\/\/127\.0\.0\.1:\d+\/v1 did not send its whole reply within 0\.3 s\./);
  });

  it('stops reading a whole reply that grows past the size any reply could need, and says so', async () => {
    const llm = await llmFor([{ text: 'x'.repeat(MAX_REPLY_LINE_BYTES) }]);
    const error = await failsWith(llm.complete(ASK), 'malformed');
    assert.match(error.message, /^The reply from http:\/\/127\.0\.0\.1:\d+\/v1 grew past 0\.5 MB, far longer than any draft; the rest was not read\.$/);
  });

  it('times out when a streamed reply goes quiet', async () => {
    const llm = await llmFor([{ text: LONG, breaks: 'stall' }], { timeoutMs: 200 });
    const error = await failsWith(llm.complete(ASK, { onToken: () => {} }), 'timeout');
    assert.match(error.message, /cut off.*sent no text for 0\.2 s/);
  });

  for (const [name, delta] of [
    ['empty pieces', {}],
    ['tool calls', { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'rm', arguments: '{"path":"/"}' } }] }],
  ] as const) {
    it(`times out when a streamed reply sends ${name} but no text`, async () => {
      const llm = await llmFor([{ repeat: delta, everyMs: 20 }], { timeoutMs: 200 });
      const error = await failsWith(llm.complete(ASK, { onToken: () => {} }), 'timeout');
      assert.match(error.message, /^The reply was cut off: the endpoint sent no text for 0\.2 s in the middle of it\.$/);
    });
  }

  it('ends a streamed reply still arriving, piece by piece in time, after five timeouts', async () => {
    const llm = await llmFor([{ repeat: { content: 'a' }, everyMs: 20 }], { timeoutMs: 100 });
    let received = '';
    const error = await failsWith(llm.complete(ASK, { onToken: (piece) => (received += piece) }), 'timeout');
    assert.match(error.message, /^The reply was cut off: http:\/\/127\.0\.0\.1:\d+\/v1 was still sending it after 0\.5 s\. Try again, or allow more time\.$/);
    assert.match(received, /^a+$/);
  });

  it('stops a streamed piece that grows past the size any reply could need, and says so rather than blaming the network', async () => {
    const llm = await llmFor([{ text: 'x'.repeat(MAX_REPLY_LINE_BYTES), piece: MAX_REPLY_LINE_BYTES }], { timeoutMs: 5000 });
    const error = await failsWith(llm.complete(ASK, { onToken: () => {} }), 'malformed');
    assert.match(error.message, /^The reply from http:\/\/127\.0\.0\.1:\d+\/v1 grew past 0\.5 MB, far longer than any draft; the rest was not read\.$/);
  });

  it('says the reply was cut off when the connection drops mid-stream', async () => {
    const llm = await llmFor([{ text: LONG, breaks: 'drop' }]);
    const error = await failsWith(llm.complete(ASK, { onToken: () => {} }), 'cut-off');
    assert.match(error.message, /^The reply was cut off/);
  });

  it('says the reply was cut off when the stream ends before the reply is finished', async () => {
    const llm = await llmFor([{ text: LONG, breaks: 'end' }]);
    assert.match((await failsWith(llm.complete(ASK, { onToken: () => {} }), 'cut-off')).message, /closed the stream before the reply was finished/);
  });

  it('says the reply was cut off when the connection drops in a whole reply', async () => {
    const llm = await llmFor([{ text: LONG, breaks: 'drop' }]);
    assert.match((await failsWith(llm.complete(ASK), 'cut-off')).message, /^The reply was cut off/);
  });

  it('says the reply was cut off at the token limit', async () => {
    const llm = await llmFor([{ text: 'Caching cuts', finish: 'length' }]);
    assert.match((await failsWith(llm.complete(ASK, { onToken: () => {} }), 'cut-off')).message, /token limit \(300 tokens\)/);
  });

  it('calls an empty reply empty, streamed or whole', async () => {
    const llm = await llmFor([{ text: '  ' }]);
    await failsWith(llm.complete(ASK), 'empty');
    await failsWith(llm.complete(ASK, { onToken: () => {} }), 'empty');
  });

  it('says the server cannot be reached when nothing listens', async () => {
    const closed = await ScriptedServer.start(() => {});
    const baseUrl = `${closed.baseUrl}/v1`;
    await closed.close();
    const llm = new OpenAiLlm({ baseUrl, model: 'm', temperature: 0, maxTokens: 10, timeoutMs: 5000, maxRetries: 0 });
    assert.match((await failsWith(llm.complete(ASK), 'unreachable')).message, /connection refused/);
  });

  it('never repeats the key, even when the server quotes it', async () => {
    const llm = await llmFor([{ status: 401, message: `Incorrect API key provided: ${SECRET}.` }], { apiKey: SECRET });
    const error = await failsWith(llm.complete(ASK), 'auth');
    assert.ok(!error.message.includes(SECRET) && !error.message.includes('very-secret'), error.message);
    assert.equal(server?.received.length, 1);
  });

  it('never repeats the key percent-encoded either, as a proxy echoing a URL would', async () => {
    const key = 'vllm key/with+special=chars';
    const llm = await llmFor([{ status: 401, message: `Refused ${encodeURIComponent(key)} and ${new URLSearchParams({ k: key }).toString()}` }], { apiKey: key });
    const error = await failsWith(llm.complete(ASK), 'auth');
    assert.doesNotMatch(error.message, /vllm|special/, error.message);
  });

  it('never repeats the key JSON-escaped, as a proxy quoting the request body would', async () => {
    const key = 'sk-proj-Qx7/AbCdEf+GhIj';
    const llm = await llmFor([{ status: 401, message: `Refused: {"authorization":"Bearer ${key.replace('/', '\\/')}"}` }], { apiKey: key });
    const error = await failsWith(llm.complete(ASK), 'auth');
    assert.doesNotMatch(error.message, /AbCdEf|GhIj/, error.message);
  });

  it('points at the endpoint and model on a 404', async () => {
    const llm = await llmFor([{ status: 404, message: "model 'local-model' not found" }]);
    assert.match((await failsWith(llm.complete(ASK), 'not-found')).message, /\/v1.*"local-model".*not found/);
  });

  it('stops at once when cancelled mid-stream, with the signal’s reason', async () => {
    const llm = await llmFor([{ text: LONG, breaks: 'stall' }], { timeoutMs: 60_000 });
    const controller = new AbortController();
    const error = await failure(llm.complete(ASK, { signal: controller.signal, onToken: () => controller.abort() }));
    assert.equal((error as Error).name, 'AbortError');
  });

  it('sends nothing when cancelled before it starts', async () => {
    const llm = await llmFor([{ text: 'Hi.' }]);
    await failure(llm.complete(ASK, { signal: AbortSignal.abort() }));
    assert.equal(server?.received.length, 0);
  });
});
