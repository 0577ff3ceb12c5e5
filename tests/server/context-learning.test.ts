/**
 * svir learns the context each backend gives a request (docs/messages.md, "max_tokens"): the
 * config's `contextLength`, vLLM's `max_model_len` and llama.cpp's `meta.n_ctx` in the model list,
 * llama.cpp's `/props`. Against the fakes, through the server's own registry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendInfo } from '../../src/adapters/adapter.js';
import { knownContextLength } from '../../src/adapters/models/known-context-length.js';
import { readPropsContext } from '../../src/adapters/models/read-props-context.js';
import { configSchema } from '../../src/config/schema.js';
import { buildServer } from '../../src/server.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startVllmServer } from '../fakes/vllm-server.js';

describe('readPropsContext', () => {
  it.each([
    ['one slot\'s context', { default_generation_settings: { n_ctx: 8192 }, n_ctx: 32768 }, 8192],
    ['the top-level n_ctx when the slot has none', { default_generation_settings: {}, n_ctx: 4096 }, 4096],
    ['nothing from a body without either', { total_slots: 1 }, undefined],
    ['nothing from a zero or a string', { default_generation_settings: { n_ctx: 0 }, n_ctx: '4096' }, undefined],
    ['nothing from a body that is no object', 'OK', undefined],
  ])('%s', (_name, json, expected) => {
    expect(readPropsContext(json)).toBe(expected);
  });
});

describe('knownContextLength', () => {
  const backend = (extra: Partial<BackendInfo>, contextLength?: number): BackendInfo => ({
    config: configSchema.parse({ backends: [{ name: 'b', type: 'llamacpp', url: 'http://127.0.0.1:1', ...(contextLength === undefined ? {} : { contextLength }) }] }).backends[0]!,
    baseUrl: 'http://127.0.0.1:1/v1/',
    vision: undefined,
    ...extra,
  });
  it('takes the config first, then the list\'s figure for that model, then the server\'s', () => {
    const learned = { listedContexts: new Map([['m', 2048]]), serverContext: 4096 };
    expect(knownContextLength(backend(learned, 1000), 'm')).toBe(1000);
    expect(knownContextLength(backend(learned), 'm')).toBe(2048);
    expect(knownContextLength(backend(learned), 'other')).toBe(4096);
    expect(knownContextLength(backend({}), 'm')).toBeUndefined();
  });
});

describe('the server learns each backend\'s context', () => {
  let llama: ScriptedUpstream;
  let vllm: ScriptedUpstream;
  let propsOnly: ScriptedUpstream;
  let app: ReturnType<typeof buildServer>;

  beforeAll(async () => {
    llama = await startLlamaCppServer({ nCtx: 3000 });
    vllm = await startVllmServer({ maxModelLen: 40960 });
    // A llama-server whose list says nothing of its context: /props alone tells it.
    propsOnly = await startScriptedUpstream();
    propsOnly.models(['tiny.gguf']);
    propsOnly.route('GET', '/props', { kind: 'body', status: 200, body: { default_generation_settings: { n_ctx: 4096 }, total_slots: 1 } });
    app = buildServer(
      configSchema.parse({
        server: { logLevel: 'silent' },
        backends: [
          { name: 'llama', type: 'llamacpp', url: llama.baseUrl },
          { name: 'vllm', type: 'vllm', url: vllm.baseUrl },
          { name: 'props', type: 'llamacpp', url: propsOnly.baseUrl },
          { name: 'set', type: 'llamacpp', url: propsOnly.baseUrl, contextLength: 1024, models: ['tiny-set'] },
        ],
      }),
    );
  });
  afterAll(async () => {
    await app.close();
    for (const upstream of [llama, vllm, propsOnly]) await upstream.close();
  });

  it('from /props and the model lists, the config winning', async () => {
    const statuses = await app.svir.registry.refresh();
    expect(statuses.map((s) => s.state)).toEqual(['up', 'up', 'up', 'up']);
    const [llamaInfo, vllmInfo, propsInfo, setInfo] = app.svir.registry.backends();
    expect(knownContextLength(llamaInfo!, '/models/muse-glimmer-30b-Q4_K_M.gguf')).toBe(3000);
    expect(llamaInfo?.serverContext).toBe(3000);
    expect(knownContextLength(vllmInfo!, 'qwen3.8')).toBe(40960);
    // vLLM has no /props: asked of llama.cpp backends only.
    expect(vllm.requestsTo('GET', '/props')).toEqual([]);
    expect(knownContextLength(propsInfo!, 'tiny.gguf')).toBe(4096);
    expect(statuses[2]?.serverContext).toBe(4096);
    expect(knownContextLength(setInfo!, 'tiny-set')).toBe(1024);
  });

  it('a server that refuses /props still serves, its context unknown', async () => {
    propsOnly.route('GET', '/props', { kind: 'body', status: 404, body: { error: { message: 'File Not Found' } } });
    const fresh = buildServer(configSchema.parse({ server: { logLevel: 'silent' }, backends: [{ name: 'p', type: 'llamacpp', url: propsOnly.baseUrl }] }));
    try {
      const [status] = await fresh.svir.registry.refresh();
      expect(status?.state).toBe('up');
      expect(knownContextLength(fresh.svir.registry.backends()[0]!, 'tiny.gguf')).toBeUndefined();
    } finally {
      await fresh.close();
    }
  });
});
