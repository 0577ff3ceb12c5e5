import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkAndRewrite, CleanStream, createContractMinimum } from '../../bench/contract-minimum.js';
import { listenOnLoopback } from '../../bench/listen-on-loopback.js';
import { buildMockStream, DEFAULT_STREAM } from '../../bench/mock-stream.js';
import { createMockUpstream, DEFAULT_MOCK } from '../../bench/mock-upstream.js';
import { chatRequestBody } from '../../bench/request-body.js';
import { BENCH_MODEL } from '../../bench/svir-config.js';

/**
 * contract-minimum, the bench's bound: it streams what the mock sends as clean chunks (the
 * contract's section 2 for an `openai` backend), one log line and one count per request, and a
 * 502 when the upstream cannot be reached.
 */

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

async function start(upstream: string): Promise<{ url: string; lines: string[]; metrics: () => Promise<string> }> {
  const lines: string[] = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      callback();
    },
  });
  const proxy = createContractMinimum({ upstream, model: BENCH_MODEL, logDestination });
  await proxy.app.listen({ host: '127.0.0.1', port: 0 });
  cleanup.push(() => proxy.close());
  const address = proxy.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('not listening');
  return { url: `http://127.0.0.1:${address.port}`, lines, metrics: () => proxy.registry.metrics() };
}

async function startMock(): Promise<string> {
  const server = createMockUpstream(DEFAULT_MOCK);
  const port = await listenOnLoopback(server);
  cleanup.push(() => close(server));
  return `http://127.0.0.1:${port}`;
}

const post = (url: string, body: string): Promise<Response> =>
  fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

function events(text: string): string[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text.slice(0, -2).split('\n\n');
}

const chunkSchema = z.looseObject({
  id: z.string(),
  created: z.number(),
  model: z.string(),
  object: z.string(),
  choices: z.array(z.object({ index: z.number(), delta: z.record(z.string(), z.unknown()), finish_reason: z.string().nullable() })),
  usage: z.unknown().optional(),
});

/** The mock's answer text, read from the bytes it sends. */
function mockText(): string {
  const parts = buildMockStream(DEFAULT_STREAM).map((b) => b.toString('utf8'));
  return parts
    .filter((p) => p.startsWith('data: {'))
    .map((p) => {
      const content = chunkSchema.parse(JSON.parse(p.slice(6))).choices[0]?.delta.content;
      return typeof content === 'string' ? content : '';
    })
    .join('');
}

describe('bench contract-minimum', () => {
  it('streams the mock’s answer as clean chunks: one id and created, the client’s model, role first, finish, usage, [DONE]', async () => {
    const proxy = await start(await startMock());
    const res = await post(proxy.url, chatRequestBody());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-request-id')).not.toBeNull();
    expect(res.headers.get('x-svir-backend')).toBe('mock');
    const list = events(await res.text());
    expect(list.at(-1)).toBe('data: [DONE]');
    const chunks = list.slice(0, -1).map((e) => {
      expect(e.startsWith('data: ')).toBe(true);
      return chunkSchema.parse(JSON.parse(e.slice(6)));
    });
    for (const c of chunks) {
      expect(Object.keys(c).sort()).toEqual(c.usage === undefined ? ['choices', 'created', 'id', 'model', 'object'] : ['choices', 'created', 'id', 'model', 'object', 'usage']);
      expect(c).toMatchObject({ id: chunks[0]?.id, created: chunks[0]?.created, model: BENCH_MODEL, object: 'chat.completion.chunk' });
    }
    const usage = chunks.at(-1);
    expect(usage?.choices).toEqual([]);
    expect(usage?.usage).toEqual({ prompt_tokens: 312, completion_tokens: 64, total_tokens: 376 });
    const choiceChunks = chunks.slice(0, -1);
    expect(choiceChunks[0]?.choices[0]?.delta).toEqual({ role: 'assistant' });
    expect(choiceChunks.at(-1)?.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop' });
    const middle = choiceChunks.slice(1, -1);
    expect(middle).toHaveLength(64);
    for (const c of middle) {
      expect(c.choices).toHaveLength(1);
      expect(c.choices[0]?.finish_reason).toBeNull();
      expect(Object.keys(c.choices[0]?.delta ?? {})).toEqual(['content']);
    }
    expect(middle.map((c) => c.choices[0]?.delta.content).join('')).toBe(mockText());
  });

  it('writes one log line and counts one request per answer', async () => {
    const proxy = await start(await startMock());
    await (await post(proxy.url, chatRequestBody())).text();
    await (await post(proxy.url, chatRequestBody())).text();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(proxy.lines).toHaveLength(2);
    expect(JSON.parse(proxy.lines[0] ?? '{}')).toMatchObject({ msg: 'request', method: 'POST', path: '/v1/chat/completions', status: 200 });
    expect(await proxy.metrics()).toContain('contract_minimum_requests_total{status="200"} 2');
  });

  it('answers 502 in the contract’s error shape when the upstream cannot be reached', async () => {
    const origin = await startMock();
    const proxy = await start(origin.replace(/:\d+$/, ':1'));
    const res = await post(proxy.url, chatRequestBody());
    expect(res.status).toBe(502);
    const body: unknown = await res.json();
    expect(body).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_error', param: null } });
  });

  it('checks the fields the contract checks', async () => {
    const proxy = await start(await startMock());
    const res = await post(proxy.url, JSON.stringify({ model: BENCH_MODEL, stream: true, n: 2, messages: [{ role: 'user', content: 'hi' }] }));
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'invalid_request', param: 'n' } });
    const unknown = await post(proxy.url, JSON.stringify({ model: 'other', stream: true, messages: [{ role: 'user', content: 'hi' }] }));
    expect(unknown.status).toBe(404);
    const malformed = await post(proxy.url, '{"model":');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { code: 'invalid_json' } });
  });

  it('rewrites what every adapter rewrites: text-only parts to a string, tool_choice without tools dropped', () => {
    const { upstream, changes } = checkAndRewrite(
      { model: 'm', stream: true, tool_choice: 'auto', messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }] },
      'm',
    );
    expect(upstream).toEqual({ model: 'm', stream: true, messages: [{ role: 'user', content: 'ab' }] });
    expect(changes).toHaveLength(2);
  });

  it('decodes events split anywhere, CRLF line ends and comments, with the same chunks', () => {
    const bytes = buildMockStream(DEFAULT_STREAM).map((b) => b.toString('utf8')).join('');
    const whole = new CleanStream('m', true);
    const expected = whole.push(bytes) + whole.end();
    for (const step of [1, 7, 33]) {
      const split = new CleanStream('m', true);
      let out = split.push(': keepalive\r\n\r\n');
      for (let i = 0; i < bytes.length; i += step) out += split.push(bytes.slice(i, i + step).replace(/\n/g, '\r\n'));
      out += split.end();
      expect(out).toBe(expected);
    }
  });
});
