/**
 * An overflow from a server that gives no token counts (Ollama, LM Studio) says the backend's
 * known context (config `contextLength`) in OpenAI's words, which clients match to start
 * compaction (pi: /maximum context length is \d+ tokens/); with no number anywhere, the words
 * clients fall back on ("context length exceeded"). Table, then end to end through the Ollama fake.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapUpstreamError } from '../../src/normalize/map-upstream-error.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startSvir, SVIR_KEY, type SvirRig } from '../e2e/backends-rig.js';

/** pi's own patterns for an overflow (pi-ai, utils/overflow.js), the two that fit svir's words. */
const PI_PATTERNS = [/maximum context length is \d+ tokens/i, /context[_ ]length[_ ]exceeded/i];
const OLLAMA = '{"error":{"message":"the prompt is longer than the context length currently available to the model; shorten the prompt","type":"api_error","param":null,"code":null}}';
const LMSTUDIO = '{"error":{"message":"The number of tokens to keep from the initial prompt is greater than the context length."}}';
const LLAMA = '{"error":{"code":400,"message":"request (20056 tokens) exceeds the available context size (16384 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":20056,"n_ctx":16384}}';

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
