/**
 * What the Responses store keeps, end to end (docs/responses.md, "The store"):
 * - a response stays usable while it is itself stored: after DELETE of the response it
 *   continued, it is still read and continued whole;
 * - one rule for every way a response ends: kept when the client was told its id (a stream's
 *   first event), whatever the end (failed after the first event, the client leaving
 *   mid-stream); a `stream: false` answer that fails is an HTTP error and nothing is kept;
 * - a response that is not kept says `store: false` in its final object or event, and
 *   `x-svir-changes` says why when its headers are still unsent.
 */
import type { FastifyInstance } from 'fastify';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { buildServer } from '../../src/server.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';

const KEY = 'sk-store-rules';
const MODEL = 'scripted-model';
let upstream: ScriptedUpstream;
let app: FastifyInstance;
let url: string;
let next = 0;

const { chunk } = chatChunkMaker({ id: 'c1', created: 1_790_000_000, model: 'x' });

const answer = (text: string): string => sse(chunk({ role: 'assistant', content: text }), chunk({}, 'stop'), '[DONE]');

async function start(store: { maxResponses: number; maxBytes?: number }): Promise<FastifyInstance> {
  const config = configSchema.parse({
    server: { host: '127.0.0.1', port: 0, apiKeys: [KEY], logLevel: 'silent', keepaliveMs: 0 },
    backends: [{ name: 'scripted', type: 'openai', url: upstream.baseUrl, models: [MODEL] }],
    responses: { store },
  });
  // Known response ids: a response the client was never told of can still be looked for.
  const server = buildServer(config, { makeResponsesId: (kind) => `${kind === 'response' ? 'resp' : kind}_${String(++next).padStart(6, '0')}` });
  await server.listen({ host: '127.0.0.1', port: 0 });
  return server;
}

function urlOf(server: FastifyInstance): string {
  const address = server.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  app = await start({ maxResponses: 100 });
  url = urlOf(app);
});
afterAll(async () => {
  await app.close();
  await upstream.close();
});

const headers = { 'content-type': 'application/json', authorization: `Bearer ${KEY}` };

async function post(body: Record<string, unknown>, base = url): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${base}/v1/responses`, { method: 'POST', headers, body: JSON.stringify({ model: MODEL, ...body }) });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function get(id: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/v1/responses/${id}`, { headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The data of each event of a Responses stream. */
function events(text: string): Record<string, unknown>[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => JSON.parse(block.split('\n')[1]?.slice('data: '.length) ?? '') as Record<string, unknown>);
}

function lastResponse(text: string): Record<string, unknown> {
  const response = events(text).at(-1)?.['response'];
  if (response === null || typeof response !== 'object') throw new Error('no final response');
  return response as Record<string, unknown>;
}

describe('a response stays usable while it is stored', () => {
  it('after DELETE of the response it continued, it is read and continued whole', async () => {
    upstream.chat({ kind: 'sse', pieces: [answer('one')] }, { kind: 'sse', pieces: [answer('two')] }, { kind: 'sse', pieces: [answer('three')] });
    const first = JSON.parse((await post({ input: 'q1' })).text) as { id: string };
    const second = JSON.parse((await post({ input: 'q2', previous_response_id: first.id })).text) as { id: string };
    expect((await fetch(`${url}/v1/responses/${first.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${KEY}` } })).status).toBe(200);
    expect((await get(second.id)).status).toBe(200);
    const before = upstream.requestsTo('POST', '/v1/chat/completions').length;
    const third = await post({ input: 'q3', previous_response_id: second.id, stream: true });
    expect(third.status).toBe(200);
    expect(lastResponse(third.text)).toMatchObject({ status: 'completed', previous_response_id: second.id });
    const sent = upstream.requestsTo('POST', '/v1/chat/completions')[before]?.body as { messages: { role: string; content: string }[] };
    expect(sent.messages.map((message) => message.content)).toEqual(['q1', 'one', 'q2', 'two', 'q3']);
    // The deleted one is gone: continuing from it is 404.
    expect((await post({ input: 'q', previous_response_id: first.id })).status).toBe(404);
  });
});

describe('one rule: kept when the client was told its id', () => {
  it('a stream that fails after its first event is kept as failed', async () => {
    upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'Par' })), sse({ error: { message: 'boom', type: 'server_error' } })] });
    const streamed = await post({ input: 'q', stream: true });
    const final = lastResponse(streamed.text);
    expect(final).toMatchObject({ status: 'failed', store: true });
    const stored = await get(String(final['id']));
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual(final);
  });

  it('a stream: false answer that fails part-way is an HTTP error, and nothing is kept', async () => {
    upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'Par' })), sse({ error: { message: 'boom', type: 'server_error' } })] });
    const before = next;
    const folded = await post({ input: 'q' });
    expect(folded.status).toBe(502);
    // Every response id svir made for it (the attempts' ids) is unknown to the store.
    const made: string[] = [];
    for (let n = before + 1; n <= next; n++) made.push(`resp_${String(n).padStart(6, '0')}`);
    expect(made.length).toBeGreaterThan(0);
    for (const id of made) expect((await get(id)).status).toBe(404);
  });

  it('a client that leaves mid-stream leaves the response kept as failed (client_closed)', async () => {
    upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'Par' }))], finish: 'hang' });
    // A client of its own connection, which it destroys mid-stream.
    const { text, leave } = await new Promise<{ text: string; leave(): void }>((resolve, reject) => {
      const req = request(`${url}/v1/responses`, { method: 'POST', headers, agent: false }, (res) => {
        let seen = '';
        res.on('data', (data: Buffer) => {
          seen += data.toString();
          if (seen.includes('response.output_text.delta')) resolve({ text: seen, leave: () => req.destroy() });
        });
      });
      req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
      req.end(JSON.stringify({ model: MODEL, input: 'q', stream: true }));
    });
    const id = String((events(text)[0]?.['response'] as Record<string, unknown>)['id']);
    leave();
    let stored = await get(id);
    for (let i = 0; i < 100 && stored.status === 404; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stored = await get(id);
    }
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ id, status: 'failed', error: { code: 'client_closed' } });
  });
});

describe('a response that is not kept says so', () => {
  it('store: false in the final object and a note in x-svir-changes; store: false in the final event', async () => {
    const keepsNone = await start({ maxResponses: 0 });
    try {
      upstream.chat({ kind: 'sse', pieces: [answer('hi')] });
      const folded = await post({ input: 'q' }, urlOf(keepsNone));
      expect(folded.status).toBe(200);
      expect(JSON.parse(folded.text)).toMatchObject({ status: 'completed', store: false });
      expect(folded.headers.get('x-svir-changes')).toContain('store: nothing was kept');
      const streamed = await post({ input: 'q', stream: true }, urlOf(keepsNone));
      expect(lastResponse(streamed.text)).toMatchObject({ status: 'completed', store: false });
      // Only the final object changes: the events before it still echo the request's store.
      expect(events(streamed.text)[0]).toMatchObject({ type: 'response.created', response: { store: true } });
    } finally {
      await keepsNone.close();
    }
  });
});
