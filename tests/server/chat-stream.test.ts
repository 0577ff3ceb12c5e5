import { afterEach, describe, expect, it } from 'vitest';
import { sse, type ScriptedResponse } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import { errorCodeOf, FIXED_NOW, HELLO, postChat, sseData, startSvir, type SvirUnderTest } from './start-svir.js';

const { chunk, usage } = chatChunkMaker({ id: 'up-1', created: 1_700_000_000, model: 'm1' });
const USAGE = usage({ prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 });

function helloStream(): ScriptedResponse {
  return {
    kind: 'sse',
    pieces: [sse(chunk({ role: 'assistant', content: 'Hel' })), sse(chunk({ content: 'lo' })), sse(chunk({}, 'stop'), USAGE, '[DONE]')],
  };
}

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.close();
  svir = undefined;
});

describe('streamed answers', () => {
  it('sends the clean dialect with the stream headers', async () => {
    svir = await startSvir();
    svir.upstream.chat(helloStream());
    const res = await postChat(svir.url, { ...HELLO, stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-request-id')).toBe('request-1');
    expect(res.headers.get('x-svir-backend')).toBe('fake');
    expect(res.headers.get('x-svir-changes')).toBeNull();
    const data = sseData(res.text);
    expect(data.at(-1)).toBe('[DONE]');
    expect(data.slice(0, -1).map((d) => JSON.parse(d))).toEqual([
      { id: 'up-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm1', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] },
      { id: 'up-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm1', choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: null }] },
      { id: 'up-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm1', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ]);
  });

  it('always asks upstream for a stream with usage, and forwards usage only when the client asked', async () => {
    svir = await startSvir();
    svir.upstream.chat(helloStream());
    const without = await postChat(svir.url, { ...HELLO, stream: true });
    expect(without.text).not.toContain('usage');
    const asked = await postChat(svir.url, { ...HELLO, stream: true, stream_options: { include_usage: true } });
    const last = sseData(asked.text).at(-2);
    expect(JSON.parse(last ?? '')).toMatchObject({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
    for (const request of svir.upstream.requestsTo('POST', '/v1/chat/completions')) {
      expect(request.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    }
  });

  it('makes id and created when the upstream sends none, and names the model as the client did', async () => {
    svir = await startSvir();
    svir.upstream.chat({
      kind: 'sse',
      pieces: [sse({ id: '', created: 0, model: '/models/qwen.gguf', choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }] }, '[DONE]')],
    });
    const res = await postChat(svir.url, { ...HELLO, stream: true });
    const first = JSON.parse(sseData(res.text)[0] ?? '');
    expect(first).toMatchObject({ id: 'completion-1', created: Math.floor(FIXED_NOW / 1000), model: 'm1' });
  });

  it('sends the body with Content-Length, never chunked, with the backend key and never the client key', async () => {
    svir = await startSvir({ backend: { apiKey: 'backend-key-123' }, env: { SVIR_API_KEYS: 'client-key-456' } });
    svir.upstream.chat(helloStream());
    const res = await postChat(svir.url, { ...HELLO, stream: true, user: 'u1', seed: 7 }, { authorization: 'Bearer client-key-456' });
    expect(res.status).toBe(200);
    const sent = svir.upstream.requestsTo('POST', '/v1/chat/completions')[0];
    expect(sent?.headers['content-length']).toBe(String(Buffer.byteLength(sent?.rawBody ?? '')));
    expect(sent?.headers['transfer-encoding']).toBeUndefined();
    expect(sent?.headers.authorization).toBe('Bearer backend-key-123');
    expect(JSON.stringify(sent?.headers)).not.toContain('client-key-456');
    expect(sent?.headers.accept).toBe('text/event-stream');
    // Unknown fields pass through untouched.
    expect(sent?.body).toMatchObject({ model: 'm1', user: 'u1', seed: 7 });
  });

  it('sends no Authorization upstream when the backend has no key, whatever the client sent', async () => {
    svir = await startSvir();
    svir.upstream.chat(helloStream());
    await postChat(svir.url, { ...HELLO, stream: true }, { authorization: 'Bearer sk-client-secret' });
    const sent = svir.upstream.requestsTo('POST', '/v1/chat/completions')[0];
    expect(sent?.headers.authorization).toBeUndefined();
  });

  it('lists what it changed in x-svir-changes', async () => {
    svir = await startSvir();
    svir.upstream.chat(helloStream());
    const res = await postChat(svir.url, { ...HELLO, stream: true, tool_choice: 'auto' });
    expect(res.status).toBe(200);
    const changes = res.headers.get('x-svir-changes') ?? '';
    expect(changes).toMatch(/tool_choice/);
    expect(svir.upstream.requestsTo('POST', '/v1/chat/completions')[0]?.body).not.toHaveProperty('tool_choice');
  });

  it('retries once without an optional field the server rejects, and says so', async () => {
    svir = await startSvir();
    svir.upstream.chat(
      { kind: 'body', status: 400, body: { error: { message: 'Unrecognized request argument supplied: stream_options', type: 'invalid_request_error' } } },
      helloStream(),
    );
    const res = await postChat(svir.url, { ...HELLO, stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-svir-changes')).toMatch(/stream_options/);
    const sent = svir.upstream.requestsTo('POST', '/v1/chat/completions');
    expect(sent).toHaveLength(2);
    expect(sent[0]?.body).toHaveProperty('stream_options');
    expect(sent[1]?.body).not.toHaveProperty('stream_options');
    expect(sent[1]?.body).toMatchObject({ stream: true });
    expect(sseData(res.text).at(-1)).toBe('[DONE]');
  });
});

describe('headers are held until the first chunk: a failure before it is a real status', () => {
  it.each<[string, ScriptedResponse, number, string]>([
    ['HTTP 500', { kind: 'body', status: 500, body: { error: { message: 'boom' } } }, 502, 'upstream_error'],
    ['HTTP 429 with Retry-After', { kind: 'body', status: 429, headers: { 'retry-after': '17' }, body: { error: { message: 'slow down' } } }, 429, 'rate_limit_exceeded'],
    ['HTTP 400 overflow', { kind: 'body', status: 400, body: { error: { message: "This model's maximum context length is 10 tokens", code: 'context_length_exceeded' } } }, 400, 'context_length_exceeded'],
    ['event: error before any chunk', { kind: 'sse', pieces: ['event: error\ndata: {"error":{"message":"model crashed"}}\n\n'] }, 502, 'upstream_error'],
    ['error chunk before any chunk', { kind: 'sse', pieces: [sse({ error: { code: 500, message: 'failed to load', type: 'server_error' } })] }, 502, 'upstream_error'],
    ['role-only first chunk then an error chunk', { kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: null }), { error: { message: 'died' } })] }, 502, 'upstream_error'],
    ['200 that is not a stream', { kind: 'body', status: 200, body: { id: 'x', choices: [] } }, 502, 'upstream_error'],
    ['stream cut before any chunk', { kind: 'sse', pieces: [': keepalive\n\n'], finish: 'destroy' }, 502, 'upstream_error'],
    ['stream that ends without a chunk or [DONE]', { kind: 'sse', pieces: [] }, 502, 'upstream_error'],
  ])('%s', async (_name, response, status, code) => {
    svir = await startSvir();
    svir.upstream.chat(response);
    const res = await postChat(svir.url, { ...HELLO, stream: true });
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-svir-error-source')).toBe('upstream');
    expect(res.headers.get('x-svir-backend')).toBe('fake');
    expect(res.headers.get('x-request-id')).toBe('request-1');
    const body = JSON.parse(res.text);
    expect(body.error.code).toBe(code);
    expect(body.error.message).toContain('fake');
    if (status === 429) expect(res.headers.get('retry-after')).toBe('17');
  });

  it('answers a 401 from a server that stalls its body quickly, as 502', async () => {
    svir = await startSvir();
    svir.upstream.chat({ kind: 'body', status: 401, stall: true });
    const res = await postChat(svir.url, { ...HELLO, stream: true });
    expect(res.status).toBe(502);
    expect(errorCodeOf(JSON.parse(res.text))).toBe('upstream_auth_failed');
  });

  it('reads an endless error body only up to a bound (an HTML page that never ends), as 502', async () => {
    svir = await startSvir();
    svir.upstream.chat({ kind: 'sse', status: 500, headers: { 'content-type': 'text/html' }, pieces: [`<html>${'x'.repeat(200_000)}`], finish: 'hang' });
    const res = await postChat(svir.url, { ...HELLO, stream: true });
    expect(res.status).toBe(502);
    expect(errorCodeOf(JSON.parse(res.text))).toBe('upstream_error');
    expect(res.text).not.toContain('<html>');
  });

  it('answers an unreachable backend with 503 and Retry-After', async () => {
    svir = await startSvir({ backend: { url: 'http://127.0.0.1:9/v1', models: ['m1'] } });
    const res = await postChat(svir.url, { ...HELLO, stream: true });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).not.toBeNull();
    expect(errorCodeOf(JSON.parse(res.text))).toBe('backend_unavailable');
  });
});

describe('a failure after the headers', () => {
  it.each<[string, ScriptedResponse]>([
    ['an error chunk', { kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'partial' })), sse({ error: { code: 500, message: 'peg format', type: 'server_error' } })] }],
    ['event: error', { kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'partial' })), 'event: error\ndata: {"error":{"message":"gone"}}\n\n'] }],
    ['a stream that ends without [DONE]', { kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'partial' }), chunk({}, 'stop'))] }],
  ])('%s ends the stream with one error event and no [DONE]', async (_name, response) => {
    svir = await startSvir();
    svir.upstream.chat(response);
    const res = await postChat(svir.url, { ...HELLO, stream: true });
    expect(res.status).toBe(200);
    const data = sseData(res.text);
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data[0] ?? '')).toMatchObject({ choices: [{ delta: { content: 'partial' } }] });
    const last = JSON.parse(data.at(-1) ?? '');
    expect(Object.keys(last)).toEqual(['error']);
    expect(last.error).toMatchObject({ code: 'upstream_error', type: 'upstream_error', param: null });
    expect(last.error.message).toContain('fake');
    expect(data.filter((d) => d.includes('"error"'))).toHaveLength(1);
    const line = svir.requestLines()[0];
    expect(line).toMatchObject({ status: 200, backend: 'fake', error: { code: 'upstream_error' } });
  });

  it('a connection reset ends the stream with one error event and no [DONE]', async () => {
    svir = await startSvir();
    let firstChunkRead!: () => void;
    const gate = new Promise<void>((resolve) => (firstChunkRead = resolve));
    svir.upstream.chat({
      kind: 'sse',
      pieces: [sse(chunk({ role: 'assistant', content: 'partial' })), { waitFor: gate }],
      finish: 'destroy',
    });
    const response = await fetch(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...HELLO, stream: true }),
    });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    if (reader === undefined) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('partial')) {
      const read = await reader.read();
      if (read.done) break;
      text += decoder.decode(read.value, { stream: true });
    }
    firstChunkRead();
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      text += decoder.decode(read.value, { stream: true });
    }
    const data = sseData(text);
    expect(data).not.toContain('[DONE]');
    expect(JSON.parse(data.at(-1) ?? '').error).toMatchObject({ code: 'upstream_error' });
    expect(JSON.parse(data.at(-1) ?? '').error.message).toMatch(/fake.*cut/);
  });
});

describe('stream: false', () => {
  it('folds the clean stream into one chat.completion, with the svir headers', async () => {
    svir = await startSvir();
    svir.upstream.chat({
      kind: 'sse',
      pieces: [
        sse(
          chunk({ role: 'assistant', reasoning_content: 'think' }),
          chunk({ content: 'Hello' }),
          chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":' } }] }),
          chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
          chunk({}, 'tool_calls'),
          USAGE,
          '[DONE]',
        ),
      ],
    });
    const res = await postChat(svir.url, { ...HELLO, tools: [{ type: 'function', function: { name: 'f' } }] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('x-request-id')).toBe('request-1');
    expect(res.headers.get('x-svir-backend')).toBe('fake');
    expect(JSON.parse(res.text)).toEqual({
      id: 'up-1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'm1',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Hello',
            refusal: null,
            reasoning_content: 'think',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 },
    });
    expect(svir.upstream.requestsTo('POST', '/v1/chat/completions')[0]?.body).toMatchObject({ stream: true });
  });

  it('answers an upstream failure midway with an HTTP error, not a partial answer', async () => {
    svir = await startSvir();
    svir.upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'partial' }))], finish: 'destroy' });
    const res = await postChat(svir.url, HELLO);
    expect(res.status).toBe(502);
    expect(res.text).not.toContain('partial');
    expect(errorCodeOf(JSON.parse(res.text))).toBe('upstream_error');
  });
});

describe('requests svir refuses itself', () => {
  it('400 invalid_request naming the field', async () => {
    svir = await startSvir();
    const res = await postChat(svir.url, { model: 'm1', messages: [{ content: 'no role' }] });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-svir-error-source')).toBe('proxy');
    const { error } = JSON.parse(res.text);
    expect(error).toMatchObject({ code: 'invalid_request', type: 'invalid_request_error', param: 'messages[0].role' });
    expect(error.message).toContain('messages[0].role');
    const n = await postChat(svir.url, { ...HELLO, n: 2 });
    expect(JSON.parse(n.text).error).toMatchObject({ code: 'invalid_request', param: 'n' });
    expect(svir.upstream.requestsTo('POST', '/v1/chat/completions')).toHaveLength(0);
  });

  it('400 invalid_json for bad or empty JSON, 415 for another content type', async () => {
    svir = await startSvir();
    const bad = await postChat(svir.url, '{"model": ');
    expect(bad.status).toBe(400);
    expect(errorCodeOf(JSON.parse(bad.text))).toBe('invalid_json');
    const empty = await postChat(svir.url, '');
    expect(empty.status).toBe(400);
    expect(errorCodeOf(JSON.parse(empty.text))).toBe('invalid_json');
    const poisoned = await postChat(svir.url, '{"model":"m1","messages":[{"role":"user","content":"x"}],"__proto__":{"admin":true}}');
    expect(poisoned.status).toBe(400);
    const text = await fetch(`${svir.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(text.status).toBe(415);
    expect(errorCodeOf(await text.json())).toBe('unsupported_media_type');
  });

  it('413 request_too_large past the body limit', async () => {
    svir = await startSvir({ server: { bodyLimitBytes: 1024 } });
    const res = await postChat(svir.url, { ...HELLO, messages: [{ role: 'user', content: 'x'.repeat(4096) }] });
    expect(res.status).toBe(413);
    expect(errorCodeOf(JSON.parse(res.text))).toBe('request_too_large');
  });

  it('404 model_not_found for a model no backend serves, after asking the backends again', async () => {
    svir = await startSvir();
    const res = await postChat(svir.url, { ...HELLO, model: 'nope', stream: true });
    expect(res.status).toBe(404);
    expect(JSON.parse(res.text).error).toMatchObject({ code: 'model_not_found', param: 'model' });
    expect(svir.upstream.requestsTo('GET', '/v1/models').length).toBeGreaterThanOrEqual(1);
    expect(svir.upstream.requestsTo('POST', '/v1/chat/completions')).toHaveLength(0);
  });

  it('404 and 405 in the one shape, with x-request-id', async () => {
    svir = await startSvir();
    const missing = await fetch(`${svir.url}/v2/nothing`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).not.toBeNull();
    expect(errorCodeOf(await missing.json())).toBe('not_found');
    const wrong = await fetch(`${svir.url}/v1/chat/completions`);
    expect(wrong.status).toBe(405);
    expect(errorCodeOf(await wrong.json())).toBe('method_not_allowed');
  });

  it('401 invalid_api_key with svir keys configured; health stays open', async () => {
    svir = await startSvir({ env: { SVIR_API_KEYS: 'svir-key-1' } });
    svir.upstream.chat(helloStream());
    const none = await postChat(svir.url, HELLO);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(errorCodeOf(JSON.parse(none.text))).toBe('invalid_api_key');
    const wrong = await postChat(svir.url, HELLO, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    const right = await postChat(svir.url, HELLO, { authorization: 'Bearer svir-key-1' });
    expect(right.status).toBe(200);
    expect((await fetch(`${svir.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${svir.url}/v1/models`)).status).toBe(401);
  });
});

describe('GET /v1/models and /healthz', () => {
  it('lists the models in OpenAI shape; a down backend does not fail the list', async () => {
    svir = await startSvir({
      extraBackends: [
        { name: 'down', type: 'openai', url: 'http://127.0.0.1:9/v1' },
        { name: 'configured', type: 'vllm', url: 'http://127.0.0.1:9', models: ['c1'] },
      ],
    });
    const res = await fetch(`${svir.url}/v1/models`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      object: 'list',
      data: [
        { id: 'm1', object: 'model', created: 1_700_000_000, owned_by: 'fake' },
        { id: 'c1', object: 'model', created: Math.floor(FIXED_NOW / 1000), owned_by: 'configured' },
      ],
    });
    const one = await fetch(`${svir.url}/v1/models/m1`);
    expect(await one.json()).toEqual({ id: 'm1', object: 'model', created: 1_700_000_000, owned_by: 'fake' });
    expect((await fetch(`${svir.url}/v1/models/zzz`)).status).toBe(404);
  });

  it('/healthz answers ok', async () => {
    svir = await startSvir();
    const res = await fetch(`${svir.url}/healthz`);
    expect(await res.json()).toEqual({ status: 'ok' });
  });
});
