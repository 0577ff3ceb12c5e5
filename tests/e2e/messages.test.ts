/**
 * `POST /v1/messages` and `/v1/messages/count_tokens` end to end (docs/messages.md): svir in
 * front of the per-server fakes, a client speaking Anthropic's API by fetch. The answer in both
 * modes, what reached the chat server, max_tokens lowered to the backend's context, the errors
 * in Anthropic's shape, count_tokens from the server's tokenizer or an estimate, the Anthropic
 * model list, keepalive pings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema } from '../../src/config/schema.js';
import { buildServer } from '../../src/server.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startVllmServer } from '../fakes/vllm-server.js';
import { expectMessagesStream, parseMessagesEvents } from '../messages/expect-messages-stream.js';

const KEY = 'sk-svir-messages-e2e';
const LOCKER_TOOL = { name: 'open_locker', description: 'Open a locker.', input_schema: { type: 'object', properties: { number: { type: 'number' } }, required: ['number'] } };

let llama: ScriptedUpstream;
let vllm: ScriptedUpstream;
let ollama: ScriptedUpstream;
let slow: ScriptedUpstream;
let app: ReturnType<typeof buildServer>;
let url: string;

beforeAll(async () => {
  llama = await startLlamaCppServer({ nCtx: 3000 });
  vllm = await startVllmServer({ maxModelLen: 40960 });
  ollama = await startOllamaServer();
  slow = await startScriptedUpstream();
  const config = configSchema.parse({
    server: { host: '127.0.0.1', port: 0, apiKeys: [KEY], logLevel: 'silent', keepaliveMs: 50 },
    backends: [
      { name: 'llama', type: 'llamacpp', url: llama.url, models: ['glimmer'] },
      { name: 'vllm', type: 'vllm', url: vllm.baseUrl },
      { name: 'ollama', type: 'ollama', url: ollama.baseUrl },
      { name: 'slow', type: 'openai', url: slow.baseUrl, models: ['slow-model'], maxConcurrent: 1, maxQueue: 0 },
      { name: 'gone', type: 'openai', url: 'http://127.0.0.1:9/v1', models: ['gone-model'], timeouts: { connectMs: 500 } },
    ],
  });
  app = buildServer(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir has no TCP address');
  url = `http://127.0.0.1:${address.port}`;
  await app.svir.registry.refresh();
});
afterAll(async () => {
  await app.close();
  for (const upstream of [llama, vllm, ollama, slow]) await upstream.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function post(path: string, body: unknown, headers: Record<string, string> = { 'x-api-key': KEY }): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const message = z.looseObject({
  type: z.literal('message'),
  id: z.string().regex(/^msg_/),
  model: z.string(),
  content: z.array(z.looseObject({ type: z.string() })),
  stop_reason: z.string(),
  usage: z.looseObject({ input_tokens: z.number(), output_tokens: z.number() }),
});

const errorBody = z.strictObject({ type: z.literal('error'), error: z.strictObject({ type: z.string(), message: z.string() }), request_id: z.string() });

function expectError(answer: Answer, status: number, type: string): string {
  expect(answer.status, answer.text).toBe(status);
  const body = errorBody.parse(JSON.parse(answer.text));
  expect(body.error.type).toBe(type);
  expect(answer.headers.get('request-id')).toBe(body.request_id);
  return body.error.message;
}

function received(upstream: ScriptedUpstream, n: number): Record<string, unknown> {
  return z.record(z.string(), z.unknown()).parse(upstream.requestsTo('POST', '/v1/chat/completions')[n]?.body);
}

describe('answers', () => {
  it('stream: false: one message with the thinking and the text; the server got one system message first and no Anthropic field', async () => {
    const before = llama.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await post('/v1/messages?beta=true', {
      model: 'glimmer',
      max_tokens: 200,
      system: [{ type: 'text', text: 'x-anthropic-billing-header: cc_version=1;' }, { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: 'Say hello' }, { role: 'system', content: 'The user is kind.' }],
      metadata: { user_id: 'u' },
    }, { 'x-api-key': KEY, 'anthropic-beta': 'claude-code-20250219' });
    expect(answer.status, answer.text).toBe(200);
    const body = message.parse(JSON.parse(answer.text));
    expect(body.content).toEqual([{ type: 'thinking', thinking: 'A greeting is enough.', signature: '' }, { type: 'text', text: 'Hello!' }]);
    expect(body.stop_reason).toBe('end_turn');
    expect(body.model).toBe('glimmer');
    const sent = received(llama, before);
    expect(sent['messages']).toEqual([{ role: 'system', content: 'Be brief.\n\nThe user is kind.' }, { role: 'user', content: 'Say hello' }]);
    for (const field of ['metadata', 'system', 'thinking', 'stop_sequences']) expect(sent).not.toHaveProperty(field);
    const changes = answer.headers.get('x-svir-changes') ?? '';
    expect(changes).toContain('x-anthropic-billing-header system block dropped');
    expect(changes).toContain('metadata dropped');
    expect(changes).toContain('anthropic-beta not honoured: claude-code-20250219');
  });

  it.each(['llama', 'vllm', 'ollama'])('stream: true on %s: the Messages events, every rule kept, the same answer', async (backend) => {
    const model = backend === 'llama' ? 'glimmer' : backend === 'vllm' ? 'qwen3.8' : 'qwen3:8b';
    const answer = await post('/v1/messages', { model, max_tokens: 200, stream: true, messages: [{ role: 'user', content: 'Say hello' }] });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = parseMessagesEvents(answer.text);
    expectMessagesStream(events);
    const text = events.flatMap((e) => (e.type === 'content_block_delta' ? [z.looseObject({ delta: z.looseObject({ text: z.string().optional() }) }).parse(e).delta.text ?? ''] : [])).join('');
    expect(text).toContain('Hello!');
  });

  it('a tool call streams as a tool_use block whose input_json_delta pieces join to the arguments, stop_reason tool_use; its result goes back as a tool message', async () => {
    const answer = await post('/v1/messages', { model: 'glimmer', max_tokens: 200, stream: true, tools: [LOCKER_TOOL], messages: [{ role: 'user', content: 'Open locker 4' }] });
    const events = parseMessagesEvents(answer.text);
    expectMessagesStream(events);
    const start = events.find((e) => e.type === 'content_block_start' && JSON.stringify(e).includes('tool_use'));
    const call = z.looseObject({ index: z.number(), content_block: z.looseObject({ id: z.string(), name: z.string(), input: z.unknown() }) }).parse(start);
    expect(call.content_block).toMatchObject({ name: 'open_locker', input: {} });
    const json = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => z.looseObject({ index: z.number(), delta: z.looseObject({ partial_json: z.string().optional() }) }).parse(e))
      .filter((e) => e.index === call.index)
      .map((e) => e.delta.partial_json ?? '')
      .join('');
    expect(JSON.parse(json)).toEqual({ number: 4 });
    expect(events.at(-2)).toMatchObject({ type: 'message_delta', delta: { stop_reason: 'tool_use' } });

    const before = llama.requestsTo('POST', '/v1/chat/completions').length;
    const second = await post('/v1/messages', {
      model: 'glimmer',
      max_tokens: 200,
      tools: [LOCKER_TOOL],
      messages: [
        { role: 'user', content: 'Open locker 4' },
        { role: 'assistant', content: [{ type: 'tool_use', id: call.content_block.id, name: 'open_locker', input: { number: 4 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.content_block.id, content: 'opened' }, { type: 'text', text: 'Say hello' }] },
      ],
    });
    expect(second.status, second.text).toBe(200);
    const sent = received(llama, before);
    expect(sent['messages']).toEqual([
      { role: 'user', content: 'Open locker 4' },
      { role: 'assistant', content: null, tool_calls: [{ id: call.content_block.id, type: 'function', function: { name: 'open_locker', arguments: '{"number":4}' } }] },
      { role: 'tool', tool_call_id: call.content_block.id, content: 'opened' },
      { role: 'user', content: 'Say hello' },
    ]);
  });

  it('max_tokens 32000 is lowered to what the backend\'s context (learned from the server) can hold, and said', async () => {
    const before = llama.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await post('/v1/messages', { model: 'glimmer', max_tokens: 32000, messages: [{ role: 'user', content: 'Say hello' }] });
    expect(answer.status, answer.text).toBe(200);
    const sent = received(llama, before);
    expect(sent['max_tokens']).toBeLessThan(3000);
    expect(sent['max_tokens']).toBeGreaterThan(2000);
    expect(answer.headers.get('x-svir-changes')).toMatch(/max_tokens 32000 lowered to \d+ \(the backend's context is 3000 tokens/);
  });

  it('keepalives while the first token is awaited are `event: ping`', async () => {
    slow.chat({
      kind: 'sse',
      pieces: [
        { delayMs: 300 },
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Late."},"finish_reason":"stop"}]}\n\n',
        'data: [DONE]\n\n',
      ],
    });
    const answer = await post('/v1/messages', { model: 'slow-model', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    const events = parseMessagesEvents(answer.text);
    expect(events[0]?.type).toBe('ping');
    expectMessagesStream(events);
  });

  it('pings committed the stream, then the backend failed: Anthropic\'s event: error, not the chat error event', async () => {
    slow.chat({ kind: 'sse', pieces: [{ delayMs: 300 }], finish: 'destroy' });
    const answer = await post('/v1/messages', { model: 'slow-model', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    expect(answer.status).toBe(200);
    const events = parseMessagesEvents(answer.text);
    expect(events[0]?.type).toBe('ping');
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { type: 'api_error' }, request_id: expect.any(String) as unknown });
    // By type, so that a failure shows which events came (once, under load, two did).
    expect(events.filter((e) => e.type !== 'ping').map((e) => e.type)).toEqual(['error']);
  });

  it('a failure after the first event closes the open block, then one event: error in Anthropic\'s shape', async () => {
    slow.chat({
      kind: 'sse',
      // The cut comes well after the first words, which svir has sent by then.
      pieces: ['data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"Half"},"finish_reason":null}]}\n\n', { delayMs: 300 }],
      finish: 'destroy',
    });
    const answer = await post('/v1/messages', { model: 'slow-model', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    const events = parseMessagesEvents(answer.text);
    expectMessagesStream(events);
    expect(events.at(-2)).toEqual({ type: 'content_block_stop', index: 0 });
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { type: 'api_error' }, request_id: expect.any(String) as unknown });
  });
});

describe('errors in Anthropic\'s shape, with request-id', () => {
  it('no key: 401 authentication_error; the key as x-api-key or Bearer both pass', async () => {
    expectError(await post('/v1/messages', { model: 'glimmer', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }, {}), 401, 'authentication_error');
    expectError(await post('/v1/messages/count_tokens', { model: 'glimmer', messages: [] }, { 'x-api-key': 'wrong' }), 401, 'authentication_error');
    expect((await post('/v1/messages', { model: 'glimmer', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }, { authorization: `Bearer ${KEY}` })).status).toBe(200);
  });

  it('a bad body, bad JSON, an unknown model, an unknown path', async () => {
    expect(expectError(await post('/v1/messages', { model: 'glimmer', messages: [] }), 400, 'invalid_request_error')).toContain('max_tokens');
    const bad = await fetch(`${url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: '{"model":' });
    expectError({ status: bad.status, headers: bad.headers, text: await bad.text() }, 400, 'invalid_request_error');
    expectError(await post('/v1/messages', { model: 'nobody-serves-this', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), 404, 'not_found_error');
    expectError(await post('/v1/messages/batches', {}), 404, 'not_found_error');
  });

  it('a prompt over the context: 400 "prompt is too long: N tokens > M maximum"', async () => {
    const message = expectError(await post('/v1/messages', { model: 'glimmer', max_tokens: 10, messages: [{ role: 'user', content: 'x'.repeat(5000) }] }), 400, 'invalid_request_error');
    expect(message).toMatch(/^prompt is too long: \d+ tokens > 3000 maximum$/);
  });

  it('a backend nobody answers: 529 overloaded_error with retry-after', async () => {
    const answer = await post('/v1/messages', { model: 'gone-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    expectError(answer, 529, 'overloaded_error');
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('count_tokens', () => {
  const body = { model: 'glimmer', system: 'Be brief.', messages: [{ role: 'user', content: 'Say hello' }], tools: [LOCKER_TOOL] };

  it('from llama.cpp\'s template and tokenizer, never through the chat route', async () => {
    const chats = llama.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await post('/v1/messages/count_tokens?beta=true', body);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.headers.get('x-svir-token-count')).toBe('tokenizer');
    const rendered = z.looseObject({ prompt: z.string() }).parse(JSON.parse(await (await fetch(`${llama.url}/apply-template`, { method: 'POST', body: JSON.stringify({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Say hello' }] }) })).text()));
    expect(JSON.parse(answer.text)).toEqual({ input_tokens: rendered.prompt.length });
    expect(llama.requestsTo('POST', '/apply-template').at(-2)?.body).toMatchObject({ tools: [{ type: 'function', function: { name: 'open_locker' } }] });
    expect(llama.requestsTo('POST', '/v1/chat/completions')).toHaveLength(chats);
  });

  it('from vLLM\'s /tokenize', async () => {
    const answer = await post('/v1/messages/count_tokens', { ...body, model: 'qwen3.8' });
    expect(answer.headers.get('x-svir-token-count')).toBe('tokenizer');
    expect(JSON.parse(answer.text)).toEqual({ input_tokens: 'Be brief.\nSay hello'.length });
  });

  it('an estimate that errs high where the server has no tokenizer, and said', async () => {
    const answer = await post('/v1/messages/count_tokens', { ...body, model: 'qwen3:8b' });
    expect(answer.headers.get('x-svir-token-count')).toBe('estimate');
    const { input_tokens: tokens } = z.object({ input_tokens: z.number() }).parse(JSON.parse(answer.text));
    expect(tokens).toBeGreaterThan('Be brief. Say hello'.length / 4);
  });

  it('two dozen at once, while the backend\'s one slot is taken and its queue full: all answered', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    slow.chat({ kind: 'sse', pieces: [{ waitFor: held }, 'data: [DONE]\n\n'] });
    const generating = post('/v1/messages', { model: 'slow-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] });
    await slow.waitForRequest('POST', '/v1/chat/completions', slow.requestsTo('POST', '/v1/chat/completions').length);
    expectError(await post('/v1/messages', { model: 'slow-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), 529, 'overloaded_error');
    const counts = await Promise.all(Array.from({ length: 24 }, () => post('/v1/messages/count_tokens', { ...body, model: 'slow-model' })));
    expect(counts.map((c) => c.status)).toEqual(Array.from({ length: 24 }, () => 200));
    release();
    await generating;
  });
});

describe('GET /v1/models', () => {
  it('in Anthropic\'s list shape when the request carries anthropic-version, OpenAI\'s without', async () => {
    const anthropic = await fetch(`${url}/v1/models?limit=1000`, { headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01' } });
    const list = z
      .strictObject({
        data: z.array(z.strictObject({ type: z.literal('model'), id: z.string(), display_name: z.string(), created_at: z.string() })),
        has_more: z.literal(false),
        first_id: z.string().nullable(),
        last_id: z.string().nullable(),
      })
      .parse(await anthropic.json());
    expect(list.data.map((m) => m.id)).toContain('glimmer');
    expect(list.first_id).toBe(list.data[0]?.id);
    expect(Number.isNaN(Date.parse(list.data[0]?.created_at ?? ''))).toBe(false);
    const openai = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(await openai.json()).toMatchObject({ object: 'list' });
  });
});
