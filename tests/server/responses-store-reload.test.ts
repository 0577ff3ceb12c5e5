/**
 * The Responses store's bounds follow a config reload: a reload to `maxResponses: 0` empties it
 * and keeps nothing after; one back to a bound keeps responses again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { configSchema, type Config } from '../../src/config/schema.js';
import { buildServer } from '../../src/server.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';

let upstream: ScriptedUpstream;
let app: FastifyInstance;

const config = (maxResponses: number): Config =>
  configSchema.parse({
    server: { logLevel: 'silent', keepaliveMs: 0 },
    responses: { store: { maxResponses } },
    backends: [{ name: 'b', type: 'openai', url: upstream.baseUrl, models: ['m'] }],
  });

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  upstream.chat({
    kind: 'sse',
    pieces: [
      sse(
        { id: 'c', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] },
        { id: 'c', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        '[DONE]',
      ),
    ],
  });
  app = buildServer(config(10));
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await upstream.close();
});

async function create(): Promise<string> {
  const answer = await app.inject({ method: 'POST', url: '/v1/responses', payload: { model: 'm', input: 'x' } });
  expect(answer.statusCode).toBe(200);
  return String(answer.json<{ id: string }>().id);
}

const status = async (id: string): Promise<number> => (await app.inject({ method: 'GET', url: `/v1/responses/${id}` })).statusCode;

describe('the Responses store across a reload', () => {
  it('takes the new bounds at once', async () => {
    const kept = await create();
    expect(await status(kept)).toBe(200);
    app.svir.reload(config(0));
    expect(await status(kept)).toBe(404);
    expect(await status(await create())).toBe(404);
    app.svir.reload(config(10));
    expect(await status(await create())).toBe(200);
  });
});
