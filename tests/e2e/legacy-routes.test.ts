/**
 * `POST /v1/completions` and `POST /v1/embeddings` through svir, in front of the fake of every
 * backend type: clean `text_completion` chunks (streamed and folded), usage only when asked,
 * `suffix` only to the servers that fill in the middle (svir's 400 for the others, before
 * sending), the embeddings fitted to the `encoding_format` the client asked for, the body sent
 * with the server's model id, a Content-Length and the backend's own key, never the client's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startAzureServer } from '../fakes/azure-server.js';
import { embeddingOf, fakeCompletionHandler, fakeEmbeddingHandler, FILLED_MIDDLE } from '../fakes/fake-legacy.js';
import { writeJson } from '../fakes/fake-model.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startLmStudioServer } from '../fakes/lmstudio-server.js';
import { startMlxLmServer } from '../fakes/mlx-lm-server.js';
import { startMlxVlmServer } from '../fakes/mlx-vlm-server.js';
import { startOllamaServer } from '../fakes/ollama-server.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startVllmServer } from '../fakes/vllm-server.js';
import { receivedHeaders, startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';

interface Fake {
  name: string;
  type: string;
  upstream: ScriptedUpstream;
  model: string;
  /** Where the fake takes each legacy route. */
  paths: { completions: string; embeddings: string };
  completions: 'fill' | 'no-suffix' | 'none';
  embeddings: 'base64' | 'floats' | 'none';
  /** The model asked on /v1/embeddings, when not `model`. */
  embedModel?: string;
  extra?: Record<string, unknown>;
}

const fakes: Fake[] = [];
let svir: SvirRig;

async function startOpenAiFake(): Promise<ScriptedUpstream> {
  const upstream = await startScriptedUpstream();
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) => ({
    id: 'cmpl-oa1',
    object: 'text_completion',
    created: 1_790_000_000,
    model: 'gpt-9-instruct-2026',
    choices,
    ...extra,
  });
  upstream.route(
    'POST',
    '/v1/completions',
    fakeCompletionHandler({
      suffix: 'fill',
      chunk: (text, finish, _body, logprobs) => chunk([{ text, index: 0, logprobs, finish_reason: finish }]),
      usageChunk: (usage) => chunk([], { usage }),
      refuse: (res) => writeJson(res, 400, { error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } }),
    }),
  );
  upstream.route(
    'POST',
    '/v1/embeddings',
    fakeEmbeddingHandler({
      base64: true,
      model: () => 'text-embedding-9',
      refuse: (res) => writeJson(res, 400, { error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } }),
    }),
  );
  return upstream;
}

beforeAll(async () => {
  const v1 = { completions: '/v1/completions', embeddings: '/v1/embeddings' };
  fakes.push(
    { name: 'oa', type: 'openai', upstream: await startOpenAiFake(), model: 'oa-model', paths: v1, completions: 'fill', embeddings: 'base64', extra: { apiKey: 'sk-upstream' } },
    { name: 'az', type: 'azure', upstream: await startAzureServer(), model: 'my-deployment', paths: { completions: '/openai/v1/completions', embeddings: '/openai/v1/embeddings' }, completions: 'fill', embeddings: 'base64', extra: { apiKey: 'azure-test-key' } },
    { name: 'lms', type: 'lmstudio', upstream: await startLmStudioServer(), model: 'qwen3.8-27b', paths: v1, completions: 'no-suffix', embeddings: 'floats' },
    { name: 'llc', type: 'llamacpp', upstream: await startLlamaCppServer({ embeddings: true }), model: 'muse', paths: v1, completions: 'no-suffix', embeddings: 'base64' },
    { name: 'vl', type: 'vllm', upstream: await startVllmServer(), model: 'qwen3.8', paths: v1, completions: 'no-suffix', embeddings: 'base64' },
    { name: 'mlx', type: 'mlx-lm', upstream: await startMlxLmServer(), model: 'qwen-mlx', paths: v1, completions: 'no-suffix', embeddings: 'none' },
    { name: 'oll', type: 'ollama', upstream: await startOllamaServer(), model: 'qwen3:8b', embedModel: 'nomic-embed-text:latest', paths: v1, completions: 'fill', embeddings: 'base64' },
    { name: 'vlm', type: 'mlx-vlm', upstream: await startMlxVlmServer(), model: 'qwen-vlm', paths: v1, completions: 'none', embeddings: 'floats' },
  );
  svir = await startSvir(
    fakes.map((fake) => ({ name: fake.name, type: fake.type, upstream: fake.upstream, models: [fake.model, ...(fake.embedModel === undefined ? [] : [fake.embedModel])], ...(fake.type === 'azure' ? { urlPath: '' } : {}), ...fake.extra })),
  );
});
afterAll(async () => {
  await svir.close();
  await Promise.all(fakes.map((fake) => fake.upstream.close()));
});

async function post(path: string, body: Record<string, unknown>): Promise<{ status: number; headers: Headers; text: string }> {
  const response = await fetch(`${svir.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const usageSchema = z.strictObject({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  prompt_tokens_details: z.strictObject({ cached_tokens: z.number() }).optional(),
});
const choiceSchema = z.strictObject({
  index: z.literal(0),
  text: z.string(),
  logprobs: z.unknown().optional(),
  finish_reason: z.enum(['stop', 'length', 'content_filter']).nullable(),
});
const chunkSchema = z.strictObject({
  id: z.string().min(1),
  object: z.literal('text_completion'),
  created: z.number().int().positive(),
  model: z.string(),
  choices: z.array(choiceSchema).max(1),
  usage: usageSchema.optional(),
});

interface TextStream {
  chunks: z.infer<typeof chunkSchema>[];
  text: string;
  finish: string | null;
  usage: z.infer<typeof usageSchema> | undefined;
}

/** Reads a legacy completions stream strictly: `data:` events only, clean chunks, `[DONE]` last. */
function readTextStream(raw: string, model: string): TextStream {
  expect(raw.endsWith('data: [DONE]\n\n')).toBe(true);
  const events = raw.split('\n\n').filter((event) => event !== '');
  expect(events.pop()).toBe('data: [DONE]');
  const chunks = events.map((event) => {
    expect(event.startsWith('data: ')).toBe(true);
    return chunkSchema.parse(JSON.parse(event.slice('data: '.length)));
  });
  expect(new Set(chunks.map((chunk) => chunk.id)).size).toBe(1);
  expect(new Set(chunks.map((chunk) => chunk.created)).size).toBe(1);
  for (const chunk of chunks) expect(chunk.model).toBe(model);
  const finishes = chunks.flatMap((chunk) => chunk.choices.filter((choice) => choice.finish_reason !== null));
  expect(finishes).toHaveLength(1);
  const usageChunks = chunks.filter((chunk) => chunk.usage !== undefined);
  expect(usageChunks.length).toBeLessThanOrEqual(1);
  if (usageChunks[0] !== undefined) {
    expect(chunks.at(-1)).toBe(usageChunks[0]);
    expect(usageChunks[0].choices).toEqual([]);
  }
  return {
    chunks,
    text: chunks.map((chunk) => chunk.choices[0]?.text ?? '').join(''),
    finish: finishes[0]?.finish_reason ?? null,
    usage: usageChunks[0]?.usage,
  };
}

function lastBody(fake: Fake, route: 'completions' | 'embeddings'): Record<string, unknown> {
  const requests = fake.upstream.requests.filter((request) => request.method === 'POST' && request.path.split('?')[0] === fake.paths[route]);
  const last = requests.at(-1);
  if (last === undefined) throw new Error(`${fake.name} received no ${route} request`);
  return z.record(z.string(), z.unknown()).parse(last.body);
}

const countTo = (fake: Fake, route: 'completions' | 'embeddings'): number =>
  fake.upstream.requests.filter((request) => request.path.split('?')[0] === fake.paths[route]).length;

describe('POST /v1/completions through svir', () => {
  const serving = () => fakes.filter((fake) => fake.completions !== 'none');

  it('streams clean text_completion chunks ending with [DONE], with usage when asked, from every backend type that has the route', async () => {
    for (const fake of serving()) {
      const answer = await post('/v1/completions', { model: fake.model, prompt: 'Once upon a time', stream: true, stream_options: { include_usage: true }, max_tokens: 16 });
      expect(answer.status, fake.name).toBe(200);
      expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(answer.headers.get('x-svir-backend')).toBe(fake.name);
      const stream = readTextStream(answer.text, fake.model);
      expect(stream.text, fake.name).toBe(' there was a locker numbered four.');
      expect(stream.finish).toBe('stop');
      expect(stream.usage?.prompt_tokens, fake.name).toBe('Once upon a time'.length);
      const sent = lastBody(fake, 'completions');
      expect(sent.stream).toBe(true);
      expect(sent.stream_options).toEqual({ include_usage: true });
      expect(sent.max_tokens).toBe(16);
      expect(sent.model).toBe(fake.model);
    }
  });

  it('sends no usage chunk unless asked, though it asks the server for one', async () => {
    for (const fake of serving()) {
      const answer = await post('/v1/completions', { model: fake.model, prompt: 'Count to five', stream: true });
      const stream = readTextStream(answer.text, fake.model);
      expect(stream.text, fake.name).toBe(' one, two, three, four, five.');
      expect(stream.usage).toBeUndefined();
      expect(lastBody(fake, 'completions').stream_options).toEqual({ include_usage: true });
    }
  });

  it('answers stream: false with one text_completion object, folded from the upstream stream', async () => {
    for (const fake of serving()) {
      const answer = await post('/v1/completions', { model: fake.model, prompt: 'Count to five' });
      expect(answer.status, fake.name).toBe(200);
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const completion = z
        .strictObject({ id: z.string().min(1), object: z.literal('text_completion'), created: z.number(), model: z.string(), choices: z.array(choiceSchema).length(1), usage: usageSchema })
        .parse(JSON.parse(answer.text));
      expect(completion.model).toBe(fake.model);
      expect(completion.choices[0]).toEqual({ index: 0, text: ' one, two, three, four, five.', finish_reason: 'stop' });
      expect(lastBody(fake, 'completions').stream).toBe(true);
    }
  });

  it('sends the body with a Content-Length and the backend key, never the client key', async () => {
    for (const fake of serving()) {
      await post('/v1/completions', { model: fake.model, prompt: 'Count to five', stream: true });
      const headers = receivedHeaders(fake.upstream, countTo(fake, 'completions') - 1, fake.paths.completions);
      expect(headers['content-length'], fake.name).toMatch(/^\d+$/);
      expect(headers['transfer-encoding']).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain(SVIR_KEY);
    }
    const oa = fakes.find((fake) => fake.type === 'openai');
    if (oa === undefined) throw new Error('no openai fake');
    expect(receivedHeaders(oa.upstream, countTo(oa, 'completions') - 1, oa.paths.completions).authorization).toBe('Bearer sk-upstream');
  });

  it('passes suffix to the servers that fill in the middle, and refuses it with a 400 naming suffix for the others, before sending', async () => {
    for (const fake of serving()) {
      const before = countTo(fake, 'completions');
      const answer = await post('/v1/completions', { model: fake.model, prompt: 'def add(a, b):\n    return a', suffix: '\n', stream: true });
      if (fake.completions === 'fill') {
        expect(answer.status, fake.name).toBe(200);
        expect(readTextStream(answer.text, fake.model).text).toBe(FILLED_MIDDLE);
        expect(lastBody(fake, 'completions').suffix).toBe('\n');
      } else {
        expect(answer.status, fake.name).toBe(400);
        const body = z.object({ error: z.object({ code: z.string(), param: z.string().nullable(), message: z.string() }) }).parse(JSON.parse(answer.text));
        expect(body.error).toMatchObject({ code: 'invalid_request', param: 'suffix' });
        expect(body.error.message).toContain(fake.name);
        expect(countTo(fake, 'completions')).toBe(before);
      }
    }
  });

  it('drops an empty suffix for a server that does not take the field, and says so', async () => {
    const llc = fakes.find((fake) => fake.type === 'llamacpp');
    if (llc === undefined) throw new Error('no llama.cpp fake');
    const answer = await post('/v1/completions', { model: llc.model, prompt: 'Count', suffix: '', stream: true });
    expect(answer.status).toBe(200);
    expect(lastBody(llc, 'completions')).not.toHaveProperty('suffix');
    expect(answer.headers.get('x-svir-changes')).toContain('empty suffix dropped');
  });

  it('sends a list of one prompt as a string to the servers that read only a string, and as sent to the others', async () => {
    for (const fake of serving()) {
      const answer = await post('/v1/completions', { model: fake.model, prompt: ['Count to five'], stream: true });
      expect(answer.status, `${fake.name}: ${answer.text}`).toBe(200);
      expect(readTextStream(answer.text, fake.model).text).toBe(' one, two, three, four, five.');
      const asString = fake.type === 'ollama' || fake.type === 'mlx-lm';
      expect(lastBody(fake, 'completions').prompt, fake.name).toEqual(asString ? 'Count to five' : ['Count to five']);
    }
  });

  it('refuses the route for a backend that has none (mlx-vlm), before sending', async () => {
    const vlm = fakes.find((fake) => fake.type === 'mlx-vlm');
    if (vlm === undefined) throw new Error('no mlx-vlm fake');
    const answer = await post('/v1/completions', { model: vlm.model, prompt: 'Count', stream: true });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'invalid_request', type: 'invalid_request_error' } });
    expect(countTo(vlm, 'completions')).toBe(0);
  });

  it('refuses what one clean choice cannot carry (n, best_of, several prompts) and an unknown model, in the one error shape', async () => {
    const model = fakes[0]?.model ?? '';
    for (const body of [
      { model, prompt: 'x', n: 2 },
      { model, prompt: 'x', best_of: 3 },
      { model, prompt: ['a', 'b'] },
      { model, prompt: 'x', logprobs: true },
    ]) {
      const answer = await post('/v1/completions', body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'invalid_request' } });
    }
    const unknown = await post('/v1/completions', { model: 'no-such-model', prompt: 'x' });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 'model_not_found', param: 'model' } });
  });

  it('passes logprobs through when asked and sent, and never otherwise', async () => {
    const vl = fakes.find((fake) => fake.type === 'vllm');
    if (vl === undefined) throw new Error('no vLLM fake');
    const asked = readTextStream((await post('/v1/completions', { model: vl.model, prompt: 'Count', stream: true, logprobs: 1 })).text, vl.model);
    const withLogprobs = asked.chunks.filter((chunk) => chunk.choices[0]?.logprobs !== undefined);
    expect(withLogprobs.length).toBeGreaterThan(0);
    expect(withLogprobs[0]?.choices[0]?.logprobs).toMatchObject({ tokens: [expect.any(String)], token_logprobs: [-0.25] });
    const unasked = await post('/v1/completions', { model: vl.model, prompt: 'Count', stream: true });
    expect(unasked.text).not.toContain('logprobs');
  });
});

describe('POST /v1/embeddings through svir', () => {
  const serving = () => fakes.filter((fake) => fake.embeddings !== 'none');
  const answerSchema = z.strictObject({
    object: z.literal('list'),
    data: z.array(z.strictObject({ object: z.literal('embedding'), index: z.number(), embedding: z.union([z.array(z.number()), z.string()]) })),
    model: z.string(),
    usage: z.strictObject({ prompt_tokens: z.number(), total_tokens: z.number() }).optional(),
  });
  const decode = (text: string): number[] => {
    const bytes = Buffer.from(text, 'base64');
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i += 4) out.push(bytes.readFloatLE(i));
    return out;
  };

  it('answers floats when asked (or by default), model the client string, from every backend type that has the route', async () => {
    for (const fake of serving()) {
      const model = fake.embedModel ?? fake.model;
      const answer = await post('/v1/embeddings', { model, input: ['hello', 'world!'] });
      expect(answer.status, `${fake.name}: ${answer.text}`).toBe(200);
      const body = answerSchema.parse(JSON.parse(answer.text));
      expect(body.model).toBe(model);
      expect(body.data.map((item) => item.embedding)).toEqual([embeddingOf('hello'), embeddingOf('world!')]);
      expect(body.data.map((item) => item.index)).toEqual([0, 1]);
      expect(body.usage).toEqual({ prompt_tokens: 11, total_tokens: 11 });
      expect(lastBody(fake, 'embeddings').model).toBe(model);
    }
  });

  it('answers base64 float32 when asked, whether the server honours encoding_format or sends floats regardless', async () => {
    for (const fake of serving()) {
      const answer = await post('/v1/embeddings', { model: fake.embedModel ?? fake.model, input: 'hello', encoding_format: 'base64' });
      expect(answer.status, fake.name).toBe(200);
      const body = answerSchema.parse(JSON.parse(answer.text));
      const vector = body.data[0]?.embedding;
      expect(typeof vector, fake.name).toBe('string');
      expect(decode(String(vector))).toEqual(embeddingOf('hello'));
      // Sent as the client asked: the servers that honour it answer in base64 themselves.
      expect(lastBody(fake, 'embeddings').encoding_format).toBe('base64');
    }
  });

  it('refuses the route for a backend that has none (mlx-lm), before sending', async () => {
    const mlx = fakes.find((fake) => fake.type === 'mlx-lm');
    if (mlx === undefined) throw new Error('no mlx-lm fake');
    const answer = await post('/v1/embeddings', { model: mlx.model, input: 'hello' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'invalid_request', param: 'model' } });
    expect(countTo(mlx, 'embeddings')).toBe(0);
  });

  it('refuses a body without input in the one error shape', async () => {
    const answer = await post('/v1/embeddings', { model: fakes[0]?.model ?? '' });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'invalid_request', param: 'input' } });
  });
});

describe('the legacy routes share routing, failover and the error mapping', () => {
  it('routes a discovered embedding model, which GET /v1/models does not list', async () => {
    const lms = await startLmStudioServer();
    const rig = await startSvir([{ name: 'lms-discovered', type: 'lmstudio', upstream: lms, }]);
    try {
      const list = await fetch(`${rig.url}/v1/models`, { headers: { authorization: `Bearer ${SVIR_KEY}` } });
      const ids = z.object({ data: z.array(z.object({ id: z.string() })) }).parse(await list.json()).data.map((model) => model.id);
      expect(ids).toContain('qwen3.8-27b');
      expect(ids).not.toContain('text-embedding-nomic-embed-text-v1.5');
      const answer = await fetch(`${rig.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
        body: JSON.stringify({ model: 'text-embedding-nomic-embed-text-v1.5', input: 'hello' }),
      });
      expect(answer.status).toBe(200);
    } finally {
      await rig.close();
      await lms.close();
    }
  });

  it('fails over to the next backend when the first is unavailable before any byte, for both routes', async () => {
    const down = await startScriptedUpstream();
    down.route('POST', '/v1/completions', { kind: 'body', status: 503, body: { error: { message: 'loading model', type: 'unavailable_error', code: 503 } } });
    down.route('POST', '/v1/embeddings', { kind: 'body', status: 503, body: { error: { message: 'loading model', type: 'unavailable_error', code: 503 } } });
    const up = await startLlamaCppServer({ embeddings: true });
    const rig = await startSvir([
      { name: 'down', type: 'llamacpp', upstream: down, models: ['shared'] },
      { name: 'up', type: 'llamacpp', upstream: up, models: ['shared'] },
    ]);
    try {
      const ask = (path: string, body: Record<string, unknown>) =>
        fetch(`${rig.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` }, body: JSON.stringify(body) });
      // Round robin may start on either: two requests each reach `up` at least once, and none fails.
      for (let i = 0; i < 2; i++) {
        const completion = await ask('/v1/completions', { model: 'shared', prompt: 'Count', stream: true });
        expect(completion.status).toBe(200);
        expect(completion.headers.get('x-svir-backend')).toBe('up');
        readTextStream(await completion.text(), 'shared');
        const embedding = await ask('/v1/embeddings', { model: 'shared', input: 'hi' });
        expect(embedding.status).toBe(200);
        expect(embedding.headers.get('x-svir-backend')).toBe('up');
      }
    } finally {
      await rig.close();
      await down.close();
      await up.close();
    }
  });

  it('reads upstream errors through the error mapping: an overflow before the stream is a 400, an error chunk after text ends the stream with one error event and no [DONE]', async () => {
    const scripted = await startScriptedUpstream();
    const rig = await startSvir([{ name: 'gguf', type: 'llamacpp', upstream: scripted, models: ['m'] }]);
    try {
      const ask = (body: Record<string, unknown>) =>
        fetch(`${rig.url}/v1/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` }, body: JSON.stringify(body) });
      scripted.route('POST', '/v1/completions', {
        kind: 'body',
        status: 400,
        body: { error: { code: 400, message: 'request (20056 tokens) exceeds the available context size (16384 tokens), try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: 20056, n_ctx: 16384 } },
      });
      const overflow = await ask({ model: 'm', prompt: 'long', stream: true });
      expect(overflow.status).toBe(400);
      const error = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).parse(await overflow.json()).error;
      expect(error.code).toBe('context_length_exceeded');
      expect(error.message).toContain('maximum context length');

      const chunk = (text: string) => ({ choices: [{ text, index: 0, logprobs: null, finish_reason: null }], created: 1_760_000_300, id: 'cmpl-x', model: '/m.gguf', object: 'text_completion' });
      scripted.route('POST', '/v1/completions', {
        kind: 'sse',
        pieces: [`data: ${JSON.stringify(chunk('One,'))}\n\n`, `data: ${JSON.stringify({ error: { code: 500, message: 'the model crashed', type: 'server_error' } })}\n\n`],
      });
      const cut = await ask({ model: 'm', prompt: 'Count', stream: true });
      expect(cut.status).toBe(200);
      const text = await cut.text();
      expect(text).not.toContain('[DONE]');
      const events = text.split('\n\n').filter((event) => event !== '');
      expect(JSON.parse(events[0]?.slice(6) ?? '')).toMatchObject({ object: 'text_completion', choices: [{ text: 'One,' }] });
      expect(JSON.parse(events.at(-1)?.slice(6) ?? '')).toMatchObject({ error: { code: 'upstream_error', type: expect.any(String) } });
    } finally {
      await rig.close();
      await scripted.close();
    }
  });

  it('answers llama.cpp started without --embeddings with a gateway error in the one shape, naming the backend', async () => {
    const llc = await startLlamaCppServer();
    const rig = await startSvir([{ name: 'no-embed', type: 'llamacpp', upstream: llc, models: ['m'] }]);
    try {
      const answer = await fetch(`${rig.url}/v1/embeddings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
        body: JSON.stringify({ model: 'm', input: 'hello' }),
      });
      const body = z.object({ error: z.object({ code: z.string(), message: z.string(), type: z.string() }) }).parse(await answer.json());
      expect(answer.status).toBe(502);
      expect(body.error.message).toContain('no-embed');
      expect(body.error.message).toContain('--embeddings');
    } finally {
      await rig.close();
      await llc.close();
    }
  });
});
