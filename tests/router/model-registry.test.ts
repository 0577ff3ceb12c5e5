import { describe, expect, it } from 'vitest';
import type { BackendInfo } from '../../src/adapters/adapter.js';
import { configSchema, type ConfigInput } from '../../src/config/schema.js';
import { SvirError } from '../../src/errors.js';
import { createModelRegistry } from '../../src/router/create-model-registry.js';
import type { DiscoveredModel } from '../../src/upstream/fetch-model-list.js';

/** A scripted discovery: each backend answers its current list, or fails when it is down. */
function discovery(lists: Record<string, string[] | 'down'>) {
  const asked: string[] = [];
  return {
    lists,
    asked,
    async listModels(backend: BackendInfo): Promise<DiscoveredModel[]> {
      const name = backend.config.name;
      asked.push(name);
      await Promise.resolve();
      const list = lists[name];
      if (list === undefined || list === 'down') throw new SvirError('backend_unavailable', { message: `backend "${name}" is unreachable (ECONNREFUSED).` });
      return list.map((id) => ({ id, created: 1_000 }));
    },
  };
}

function config(backends: ConfigInput['backends'], extra: Partial<ConfigInput> = {}) {
  return configSchema.parse({ backends, ...extra });
}

const A = { name: 'a', type: 'openai', url: 'http://127.0.0.1:1' } as const;
const B = { name: 'b', type: 'llamacpp', url: 'http://127.0.0.1:2/v1/' } as const;

describe('createModelRegistry', () => {
  it('routes a configured model without asking anyone', async () => {
    const d = discovery({});
    const registry = createModelRegistry(config([{ ...A, models: ['x', 'y'] }]), { listModels: d.listModels, now: () => 0 });
    const [candidate] = await registry.resolve('y');
    expect(candidate?.backend.config.name).toBe('a');
    expect(candidate?.upstreamModel).toBe('y');
    expect(candidate?.backend.baseUrl).toBe('http://127.0.0.1:1/v1/');
    expect(d.asked).toEqual([]);
  });

  it('discovers models on first need, once for concurrent requests', async () => {
    const d = discovery({ a: ['m-a'], b: ['m-b'] });
    const registry = createModelRegistry(config([A, B]), { listModels: d.listModels, now: () => 0 });
    const [one, two] = await Promise.all([registry.resolve('m-b'), registry.resolve('m-b')]);
    expect(one?.[0]?.backend.config.name).toBe('b');
    expect(two?.[0]?.backend.config.name).toBe('b');
    expect(d.asked.sort()).toEqual(['a', 'b']);
  });

  it('asks again when a request names a model it does not know yet', async () => {
    const d = discovery({ a: ['old'] });
    let now = 0;
    const registry = createModelRegistry(config([A]), { listModels: d.listModels, now: () => now });
    await registry.resolve('old');
    d.lists.a = ['old', 'new'];
    now = 1; // well inside modelRefreshMs: only the unknown name triggers the question
    const [candidate] = await registry.resolve('new');
    expect(candidate?.upstreamModel).toBe('new');
    expect(d.asked).toEqual(['a', 'a']);
  });

  it('routes by the list last discovered: a model a server no longer lists goes to the others only', async () => {
    const d = discovery({ a: ['m', 'moved'], b: ['moved'] });
    const registry = createModelRegistry(config([A, B]), { listModels: d.listModels, now: () => 0 });
    expect((await registry.resolve('moved')).map((c) => c.backend.config.name)).toEqual(['a', 'b']);
    d.lists.a = ['m'];
    await registry.refresh();
    expect((await registry.resolve('moved')).map((c) => c.backend.config.name)).toEqual(['b']);
    expect(registry.status().find((s) => s.name === 'a')?.models).toEqual(['m']);
  });

  it('answers an unknown model with model_not_found (404) after asking', async () => {
    const d = discovery({ a: ['m'] });
    const registry = createModelRegistry(config([A]), { listModels: d.listModels, now: () => 0 });
    const error = await registry.resolve('other').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(SvirError);
    expect(error).toMatchObject({ code: 'model_not_found', status: 404, param: 'model' });
    expect(d.asked.length).toBeGreaterThanOrEqual(1);
  });

  it('refreshes a stale discovered list in the background', async () => {
    const d = discovery({ a: ['m'] });
    let now = 0;
    const registry = createModelRegistry(config([A], { modelRefreshMs: 1000 }), { listModels: d.listModels, now: () => now });
    await registry.resolve('m');
    now = 500;
    await registry.resolve('m');
    expect(d.asked).toEqual(['a']);
    now = 1500;
    await registry.resolve('m');
    await Promise.resolve();
    expect(d.asked).toEqual(['a', 'a']);
  });

  it('answers a known model at once (resolveKnown), as resolve would, and undefined where resolve has to ask', async () => {
    const d = discovery({ a: ['m'], b: ['m', 'n'] });
    let now = 0;
    const registry = createModelRegistry(config([A, B], { modelRefreshMs: 1000 }), { listModels: d.listModels, now: () => now });
    // Lists never had: resolve asks first.
    expect(registry.resolveKnown?.('m')).toBeUndefined();
    expect(d.asked).toEqual([]);
    const resolved = await registry.resolve('m');
    const known = registry.resolveKnown?.('m');
    expect(known?.map((c) => [c.backend.config.name, c.upstreamModel])).toEqual(resolved.map((c) => [c.backend.config.name, c.upstreamModel]));
    expect(known?.map((c) => c.backend.config.name)).toEqual(['a', 'b']);
    // A name no list has: resolve asks again, or refuses.
    expect(registry.resolveKnown?.('unknown')).toBeUndefined();
    // Stale lists are refreshed meanwhile, as resolve does.
    now = 1500;
    d.asked.length = 0;
    expect(registry.resolveKnown?.('n')?.map((c) => c.backend.config.name)).toEqual(['b']);
    await Promise.resolve();
    expect(d.asked.sort()).toEqual(['a', 'b']);
  });

  it('lists every answering backend once per model; a down backend does not fail the list', async () => {
    const d = discovery({ a: ['shared', 'only-a'], b: 'down' });
    const registry = createModelRegistry(
      config([A, B, { name: 'c', type: 'vllm', url: 'http://127.0.0.1:3', models: ['shared', 'only-c'] }]),
      { listModels: d.listModels, now: () => 5_000_000 },
    );
    expect(await registry.list()).toEqual([
      { id: 'shared', backend: 'a', created: 1_000 },
      { id: 'only-a', backend: 'a', created: 1_000 },
      { id: 'only-c', backend: 'c', created: 5_000 },
    ]);
    // Both servers of `shared` are candidates, in config order.
    expect((await registry.resolve('shared')).map((c) => c.backend.config.name)).toEqual(['a', 'c']);
  });

  it('puts a backend that is down after one that is up', async () => {
    const d = discovery({ a: ['m'], b: ['m'] });
    const registry = createModelRegistry(config([A, B]), { listModels: d.listModels, now: () => 0 });
    await registry.refresh();
    d.lists.a = 'down';
    await registry.refresh();
    expect((await registry.resolve('m')).map((c) => c.backend.config.name)).toEqual(['b', 'a']);
  });

  it('reports each backend state, model count and reason for the start-up summary', async () => {
    const d = discovery({ a: ['x', 'y'], b: 'down' });
    const registry = createModelRegistry(config([A, B, { name: 'c', type: 'vllm', url: 'http://127.0.0.1:3', models: ['z'] }]), {
      listModels: d.listModels,
      now: () => 0,
    });
    expect(registry.status().map((s) => s.state)).toEqual(['unknown', 'unknown', 'unknown']);
    const statuses = await registry.refresh();
    expect(statuses).toEqual([
      { name: 'a', type: 'openai', baseUrl: 'http://127.0.0.1:1/v1/', state: 'up', modelsFrom: 'discovery', models: ['x', 'y'] },
      {
        name: 'b',
        type: 'llamacpp',
        baseUrl: 'http://127.0.0.1:2/v1/',
        state: 'down',
        modelsFrom: 'discovery',
        models: [],
        reason: 'backend "b" is unreachable (ECONNREFUSED).',
      },
      {
        name: 'c',
        type: 'vllm',
        baseUrl: 'http://127.0.0.1:3/v1/',
        state: 'down',
        modelsFrom: 'config',
        models: ['z'],
        reason: 'backend "c" is unreachable (ECONNREFUSED).',
      },
    ]);
  });

  it('keeps a down backend\'s last list, so its model gets a clear 503 instead of a 404', async () => {
    const d = discovery({ a: ['m'] });
    const registry = createModelRegistry(config([A]), { listModels: d.listModels, now: () => 0 });
    await registry.refresh();
    d.lists.a = 'down';
    await registry.refresh();
    expect((await registry.resolve('m')).map((c) => c.backend.config.name)).toEqual(['a']);
    expect(await registry.list()).toEqual([]);
  });

  it('gives adapters the configured reasoning field and vision', () => {
    const registry = createModelRegistry(
      config([{ ...A, vision: true }], { reasoning: { field: 'reasoning' } }),
      { listModels: discovery({}).listModels, now: () => 0 },
    );
    expect(registry.backends()[0]).toMatchObject({ vision: true, reasoningField: 'reasoning' });
  });
});
