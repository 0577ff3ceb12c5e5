/**
 * Several backends behind one svir: each model goes to the server that has it, aliases name
 * models without their paths, GET /v1/models lists exactly the chat models once each, and a
 * backend that is down at start is served as soon as it comes up.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { parseCleanStream } from '../faults/parse-clean-stream.js';
import { answer, chatBody, closedPortUrl, comeUpOn, post, startFleet, until, type Fleet } from './helpers/start-fleet.js';

const modelList = z.object({
  object: z.literal('list'),
  data: z.array(z.object({ id: z.string(), object: z.literal('model'), created: z.number(), owned_by: z.string() }).strict()),
});

async function listModels(url: string): Promise<{ status: number; ids: Record<string, string> }> {
  const response = await fetch(`${url}/v1/models`);
  const parsed = modelList.parse(await response.json());
  const ids: Record<string, string> = {};
  for (const entry of parsed.data) {
    expect(ids[entry.id], `listed twice: ${entry.id}`).toBeUndefined();
    ids[entry.id] = entry.owned_by;
  }
  return { status: response.status, ids };
}

const errorBody = z.object({ error: z.object({ code: z.string().nullable(), message: z.string() }) });

let fleet: Fleet | undefined;
const extras: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
  await Promise.all(extras.splice(0).map((extra) => extra.close()));
});

/** Starts a fake that lists `models` and puts it on `port`, where svir expects a backend. */
async function lateBackend(port: number, models: string[]): Promise<ScriptedUpstream> {
  const upstream = await startScriptedUpstream();
  extras.push(upstream);
  upstream.models(models);
  extras.unshift(await comeUpOn(port, upstream));
  return upstream;
}

function modelsOf(text: string): unknown[] {
  return [...new Set(parseCleanStream(text).chunks.map((chunk) => chunk.model))];
}

describe('routing by model', () => {
  it('sends each model to the backend that lists it, and says which one served', async () => {
    fleet = await startFleet({
      backends: [
        { name: 'lms', listed: ['qwen3.8-27b'] },
        { name: 'llama', listed: ['/models/muse-glimmer-30b-Q4_K_M.gguf'] },
        { name: 'vllm', extra: { models: ['served-name'] } },
      ],
    });
    for (const name of ['lms', 'llama', 'vllm']) fleet.upstream(name).chat(answer([`from ${name}`]));

    const cases = [
      ['qwen3.8-27b', 'lms'],
      ['/models/muse-glimmer-30b-Q4_K_M.gguf', 'llama'],
      ['served-name', 'vllm'],
    ] as const;
    for (const [model, backend] of cases) {
      const reply = await post(fleet.url, chatBody(model, { stream: true }));
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-svir-backend')).toBe(backend);
      const stream = parseCleanStream(reply.text);
      expect(stream.content).toBe(`from ${backend}`);
      expect(modelsOf(reply.text)).toEqual([model]);
    }
    for (const [model, backend] of cases) {
      const sent = fleet.upstream(backend).requestsTo('POST', '/v1/chat/completions');
      expect(sent).toHaveLength(1);
      expect(sent[0]?.body).toMatchObject({ model, stream: true });
    }
  });

  it('answers an unknown model with its own 404 model_not_found, without sending it anywhere', async () => {
    fleet = await startFleet({ backends: [{ name: 'lms', listed: ['qwen3.8-27b'] }] });
    fleet.upstream('lms').chat(answer(['should not be used']));
    const reply = await post(fleet.url, chatBody('gpt-4'));
    expect(reply.status).toBe(404);
    const body = errorBody.parse(JSON.parse(reply.text));
    expect(body.error.code).toBe('model_not_found');
    expect(body.error.message).toContain('gpt-4');
    expect(fleet.upstream('lms').requestsTo('POST', '/v1/chat/completions')).toHaveLength(0);
  });
});

describe('aliases', () => {
  it('routes backend/model and bare aliases, sends the real id upstream and the alias to the client', async () => {
    fleet = await startFleet({
      backends: [
        { name: 'mlx', listed: ['/Users/me/models/Qwen3.8-27B-MLX-4bit', 'shared'] },
        { name: 'lms', listed: ['shared'] },
      ],
      aliases: { fast: 'mlx//Users/me/models/Qwen3.8-27B-MLX-4bit', pinned: 'lms/shared', any: 'shared', gone: 'lms/not-loaded' },
    });
    fleet.upstream('mlx').chat(answer(['mlx says hi']));
    fleet.upstream('lms').chat(answer(['lms says hi']));

    const fast = await post(fleet.url, chatBody('fast', { stream: true }));
    expect(fast.headers.get('x-svir-backend')).toBe('mlx');
    expect(modelsOf(fast.text)).toEqual(['fast']);
    expect(fleet.upstream('mlx').requestsTo('POST', '/v1/chat/completions')[0]?.body).toMatchObject({
      model: '/Users/me/models/Qwen3.8-27B-MLX-4bit',
    });

    for (let i = 0; i < 3; i += 1) {
      const pinned = await post(fleet.url, chatBody('pinned'));
      expect(pinned.status).toBe(200);
      expect(pinned.headers.get('x-svir-backend')).toBe('lms');
    }

    const any = await post(fleet.url, chatBody('any'));
    expect(any.status).toBe(200);
    expect(['mlx', 'lms']).toContain(any.headers.get('x-svir-backend'));

    const gone = await post(fleet.url, chatBody('gone'));
    expect(gone.status).toBe(404);
    const body = errorBody.parse(JSON.parse(gone.text));
    expect(body.error.code).toBe('model_not_found');
    expect(body.error.message).toContain('lms/not-loaded');
  });
});

describe('GET /v1/models', () => {
  it('lists the chat models of every backend once, with the backend as owner, and the aliases', async () => {
    const down = await closedPortUrl();
    fleet = await startFleet({
      backends: [
        {
          name: 'mlx',
          listed: ['/Users/me/models/Qwen3.8-27B', 'unsloth/Qwen-Image-2.1', 'text-embedding-nomic-embed-text-v1.5', 'shared-chat'],
        },
        { name: 'lms', listed: ['shared-chat', 'whisper-large-v3', 'BAAI/bge-reranker-v2-m3', 'qwen3.8-27b'] },
        { name: 'azure', extra: { models: ['my-deployment'] } },
        { name: 'vllm', url: down.url },
      ],
      aliases: { fast: 'lms/qwen3.8-27b', big: '/Users/me/models/Qwen3.8-27B', dead: 'vllm/anything' },
    });
    const { status, ids } = await listModels(fleet.url);
    expect(status).toBe(200);
    expect(ids).toEqual({
      '/Users/me/models/Qwen3.8-27B': 'mlx',
      'shared-chat': 'mlx',
      'qwen3.8-27b': 'lms',
      'my-deployment': 'azure',
      fast: 'lms',
      big: 'mlx',
    });
  });

  it('answers even when every backend is down, with an empty list', async () => {
    const down = await closedPortUrl();
    fleet = await startFleet({ backends: [{ name: 'lms', url: down.url }] });
    const { status, ids } = await listModels(fleet.url);
    expect(status).toBe(200);
    expect(ids).toEqual({});
  });
});

describe('a backend down at start', () => {
  it('is served as soon as it comes up: listed, routed, and ready', async () => {
    const late = await closedPortUrl();
    fleet = await startFleet({
      backends: [
        { name: 'lms', listed: ['qwen3.8-27b'] },
        { name: 'late', url: late.url },
      ],
    });
    fleet.upstream('lms').chat(answer(['up']));
    expect((await listModels(fleet.url)).ids).toEqual({ 'qwen3.8-27b': 'lms' });
    expect((await post(fleet.url, chatBody('glimmer'))).status).toBe(404);

    // The server starts on the port svir was told about.
    const upstream = await lateBackend(late.port, ['glimmer']);
    upstream.chat(answer(['late but here']));

    // A request naming a model svir does not know makes it ask again at once.
    const reply = await post(fleet.url, chatBody('glimmer', { stream: true }));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-svir-backend')).toBe('late');
    expect(parseCleanStream(reply.text).content).toBe('late but here');
    expect((await listModels(fleet.url)).ids).toEqual({ 'qwen3.8-27b': 'lms', glimmer: 'late' });
  });
});

describe('GET /healthz and /readyz', () => {
  it('healthz says svir is up; readyz is 503 until a backend answers, then 200', async () => {
    const late = await closedPortUrl();
    fleet = await startFleet({ backends: [{ name: 'late', url: late.url }], server: { apiKeys: ['sk-svir-test'] } });
    const health = await fetch(`${fleet.url}/healthz`);
    expect(health.status).toBe(200);

    const notReady = await fetch(`${fleet.url}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('retry-after')).not.toBeNull();
    const body = errorBody.parse(await notReady.json());
    expect(body.error.code).toBe('backend_unavailable');
    expect(body.error.message).toContain('late');

    await lateBackend(late.port, ['glimmer']);
    const ready = await fetch(`${fleet.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', backends: [{ name: 'late', state: 'up', models: 1 }] });

    // Both without svir's key; the API itself still asks for it.
    expect((await fetch(`${fleet.url}/v1/models`)).status).toBe(401);
  });
});

describe('model list refresh', () => {
  it('asks every backend again every modelRefreshMs, with no request coming', async () => {
    fleet = await startFleet({ backends: [{ name: 'lms', listed: ['a'] }], modelRefreshMs: 30 });
    const asked = () => fleet!.upstream('lms').requestsTo('GET', '/v1/models').length;
    const before = asked();
    fleet.upstream('lms').models(['a', 'b']);
    await until(() => asked() >= before + 2, 'two refreshes');
    expect(fleet.app.svir.registry.status()[0]?.models).toEqual(['a', 'b']);
  });
});
