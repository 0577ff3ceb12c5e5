/**
 * An overflow from a server that gives no token counts (Ollama, LM Studio) says the backend's
 * known context in OpenAI's words, which clients match to start compaction (pi:
 * /maximum context length is \d+ tokens/): config `contextLength` first, else what the server said
 * of its context (llama.cpp's `/props` or `meta.n_ctx`, vLLM's `max_model_len`;
 * known-context-length.ts); with no number anywhere, the words clients fall back on ("context
 * length exceeded"). Tables, then end to end through the Ollama fake and a llama.cpp-style server
 * whose `/props` says its context but whose overflow error gives no number.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BackendInfo } from '../../src/adapters/adapter.js';
import { knownContextLength } from '../../src/adapters/models/known-context-length.js';
import { configSchema } from '../../src/config/schema.js';
import { mapUpstreamError } from '../../src/normalize/map-upstream-error.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startSvir, SVIR_KEY, type SvirRig } from '../e2e/backends-rig.js';

/** pi's own patterns for an overflow (pi-ai, utils/overflow.js), the two that fit svir's words. */
const PI_PATTERNS = [/maximum context length is \d+ tokens/i, /context[_ ]length[_ ]exceeded/i];
const OLLAMA = '{"error":{"message":"the prompt is longer than the context length currently available to the model; shorten the prompt","type":"api_error","param":null,"code":null}}';
const LMSTUDIO = '{"error":{"message":"The number of tokens to keep from the initial prompt is greater than the context length."}}';
const LLAMA = '{"error":{"code":400,"message":"request (20056 tokens) exceeds the available context size (16384 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":20056,"n_ctx":16384}}';
/** llama.cpp's overflow type with no count beside it: the message must take the number from elsewhere. */
const NUMBERLESS = { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' } };

describe('the overflow message and the known context', () => {
  it.each<[string, number, string, 'http' | 'stream', number | undefined, RegExp]>([
    ['Ollama, contextLength configured', 400, OLLAMA, 'http', 8192, /maximum context length is 8192 tokens, and the prompt does not fit/],
    ['LM Studio in the stream, contextLength configured', 200, LMSTUDIO, 'stream', 32768, /maximum context length is 32768 tokens/],
    ['Ollama, nothing known', 400, OLLAMA, 'http', undefined, /maximum context length \(context length exceeded; the server gave no token counts\)/],
    ['the server\'s numbers win over the config', 400, LLAMA, 'http', 4096, /maximum context length is 16384 tokens, but the prompt has 20056 tokens/],
  ])('%s', (_name, status, body, channel, contextLength, message) => {
    const error = mapUpstreamError({ status, body, backend: 'b', channel, ...(contextLength === undefined ? {} : { contextLength }) });
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toMatch(message);
    expect(PI_PATTERNS.some((pattern) => pattern.test(error.message))).toBe(true);
  });
});

describe('the known context an overflow names: the config, else what the server said', () => {
  const backend = (learned: Partial<BackendInfo>, contextLength?: number): BackendInfo => ({
    config: configSchema.parse({ backends: [{ name: 'b', type: 'llamacpp', url: 'http://127.0.0.1:1', ...(contextLength === undefined ? {} : { contextLength }) }] })
      .backends[0]!,
    baseUrl: 'http://127.0.0.1:1/v1/',
    vision: undefined,
    ...learned,
  });
  it.each<[string, BackendInfo, string, RegExp]>([
    ['/props alone (llama.cpp)', backend({ serverContext: 4096 }), 'm', /maximum context length is 4096 tokens, and the prompt does not fit/],
    ['the model list\'s figure (vLLM max_model_len, llama.cpp meta.n_ctx)', backend({ listedContexts: new Map([['m', 40960]]) }), 'm', /maximum context length is 40960 tokens/],
    ['the list\'s figure for that model over /props', backend({ listedContexts: new Map([['m', 2048]]), serverContext: 4096 }), 'm', /maximum context length is 2048 tokens/],
    ['/props for a model the list gives none', backend({ listedContexts: new Map([['m', 2048]]), serverContext: 4096 }), 'other', /maximum context length is 4096 tokens/],
    ['config contextLength over everything learned', backend({ listedContexts: new Map([['m', 2048]]), serverContext: 4096 }, 1000), 'm', /maximum context length is 1000 tokens/],
    ['nothing known', backend({}), 'm', /the server gave no token counts/],
  ])('%s', (_name, info, model, message) => {
    for (const channel of ['http', 'stream'] as const) {
      const contextLength = knownContextLength(info, model);
      const error = mapUpstreamError({ status: channel === 'http' ? 400 : 200, body: JSON.stringify(NUMBERLESS), backend: 'b', channel, ...(contextLength === undefined ? {} : { contextLength }) });
      expect(error.code).toBe('context_length_exceeded');
      expect(error.message).toMatch(message);
      expect(PI_PATTERNS.some((pattern) => pattern.test(error.message))).toBe(true);
    }
  });
});

describe('end to end: Ollama overflows', () => {
  let ollama: ScriptedUpstream;
  let svir: SvirRig;
  beforeAll(async () => {
    ollama = await startOllamaServer({ models: [{ name: 'small:latest', thinking: false, tools: true }] });
    svir = await startSvir([
      { name: 'sized', type: 'ollama', upstream: ollama, models: ['small:latest'], contextLength: 8192 },
      { name: 'unsized', type: 'ollama', upstream: ollama, models: ['other:latest'] },
    ]);
  });
  afterAll(async () => {
    await svir.close();
    await ollama.close();
  });

  it.each([
    ['small:latest', /maximum context length is 8192 tokens/],
    ['other:latest', /context length exceeded/],
  ])('%s: the message matches what pi compacts on, on the chat route and /v1/responses', async (model, expected) => {
    for (const route of ['chat/completions', 'responses'] as const) {
      ollama.chat({ kind: 'body', status: 400, body: JSON.parse(OLLAMA) as Record<string, unknown> });
      const body = route === 'responses' ? { model, input: 'x' } : { model, messages: [{ role: 'user', content: 'x' }] };
      const response = await fetch(`${svir.url}/v1/${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { code: string; message: string; param: string } };
      expect(error.code).toBe('context_length_exceeded');
      expect(error.message).toMatch(expected);
      expect(error.param).toBe(route === 'responses' ? 'input' : 'messages');
    }
  });
});

describe('end to end: a llama.cpp-style server whose /props says the context, its overflow no number', () => {
  const servers: ScriptedUpstream[] = [];
  let svir: SvirRig;
  beforeAll(async () => {
    for (const model of ['tiny.gguf', 'tiny-set.gguf']) {
      const server = await startScriptedUpstream();
      server.models([model]);
      server.route('GET', '/props', { kind: 'body', status: 200, body: { default_generation_settings: { n_ctx: 4096 }, total_slots: 1 } });
      servers.push(server);
    }
    // Models discovered, so each list and /props are read before the first request is routed;
    // the second server's context also set in the config, which wins.
    svir = await startSvir([
      { name: 'learned', type: 'llamacpp', upstream: servers[0]! },
      { name: 'set', type: 'llamacpp', upstream: servers[1]!, contextLength: 1024 },
    ]);
  });
  afterAll(async () => {
    await svir.close();
    for (const server of servers) await server.close();
  });

  it.each([
    [0, 'tiny.gguf', 4096],
    [1, 'tiny-set.gguf', 1024],
  ])('server %d, %s: an HTTP 400 and an error inside the stream both say "maximum context length is %d tokens", on the chat route and /v1/responses', async (index, model, tokens) => {
    const server = servers[index]!;
    const failures = [
      { kind: 'body', status: 400, body: NUMBERLESS },
      { kind: 'sse', pieces: [sse({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: null } }] }), sse(NUMBERLESS)] },
    ] as const;
    for (const failure of failures) {
      for (const route of ['chat/completions', 'responses'] as const) {
        server.chat(failure);
        const body = route === 'responses' ? { model, input: 'x' } : { model, messages: [{ role: 'user', content: 'x' }] };
        const response = await fetch(`${svir.url}/v1/${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        expect(text, `${failure.kind} on ${route}`).toMatch(new RegExp(`maximum context length is ${tokens} tokens, and the prompt does not fit`));
        expect(text).toContain('context_length_exceeded');
      }
    }
  });
});
