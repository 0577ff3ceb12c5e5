/**
 * The real `openai` npm client pointed at svir, in front of a backend of type `openai` (a fake
 * upstream on 127.0.0.1). The "done when" case of issue 2: a server that does everything at once
 * (reasoning under two keys, split think tags, interleaved split tool calls, CRLF framing, UTF-8
 * split across reads, extra keys and nulls) comes out exactly in the clean dialect, and the
 * client's stream iterator, its `stream()` helper and its error classes all read it.
 */
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import { sse, type ScriptedResponse } from '../fakes/scripted-upstream.js';
import { expectCleanStream } from '../helpers/expect-clean-stream.js';
import { FIXTURE_NOW_MS, fixtureIds, loadFixtures, splitAtSeededOffsets } from '../helpers/replay-fixture.js';
import { sseData, startSvir, type StartSvirOptions, type SvirUnderTest } from '../server/start-svir.js';

const [EVERYTHING] = loadFixtures(fileURLToPath(new URL('../fixtures/generic', import.meta.url))).filter(
  (fixture) => fixture.name === 'everything-at-once',
);
if (EVERYTHING === undefined) throw new Error('the everything-at-once fixture is missing');

const MODEL = 'client-model';
const TOOLS = [
  { type: 'function' as const, function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
  { type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
];
const MESSAGES = [{ role: 'user' as const, content: 'Weather in Zürich, and look things up.' }];

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.close();
  svir = undefined;
});

async function start(options: StartSvirOptions = {}): Promise<{ svir: SvirUnderTest; client: OpenAI }> {
  const started = await startSvir({
    backend: { name: 'fixture-backend', models: [MODEL] },
    deps: { now: () => FIXTURE_NOW_MS, makeId: fixtureIds() },
    ...options,
  });
  svir = started;
  const apiKey = options.env?.SVIR_API_KEYS ?? 'any-key';
  return { svir: started, client: new OpenAI({ baseURL: `${started.url}/v1`, apiKey, maxRetries: 0 }) };
}

function everythingAtOnce(seed: number): ScriptedResponse {
  return { kind: 'sse', pieces: splitAtSeededOffsets(EVERYTHING?.bytes ?? new Uint8Array(), seed) };
}

const reasoningOf = (value: unknown): string =>
  z.looseObject({ reasoning_content: z.string().optional() }).safeParse(value).data?.reasoning_content ?? '';

describe('the everything-at-once server, through svir', () => {
  it.each([11, 12, 13, 14, 15])('comes out exactly in the clean dialect (seed %i), as bytes on the wire', async (seed) => {
    const { svir } = await start();
    svir.upstream.chat(everythingAtOnce(seed));
    const response = await fetch(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, messages: MESSAGES, tools: TOOLS, stream: true, stream_options: { include_usage: true } }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const text = await response.text();
    // LF only, one `data:` line per event, no `event:`, no comment forwarded.
    expect(text).not.toContain('\r');
    expect(text).not.toMatch(/^(event|id|retry):/m);
    expect(text).not.toMatch(/^:/m);
    const data = sseData(text);
    expect(data.at(-1)).toBe('[DONE]');
    const chunks: CleanChunk[] = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(chunks).toEqual(EVERYTHING?.spec.chunks);
    expectCleanStream(chunks, { done: true, model: MODEL });
    // Nothing the server added survives: no null but the open finish reasons, no extra keys.
    expect(text.replaceAll('"finish_reason":null', '')).not.toContain('null');
    for (const extra of ['obfuscation', 'system_fingerprint', 'content_filter_results', 'prompt_token_ids', 'timings', 'latency_checkpoint', '/srv/models']) {
      expect(text).not.toContain(extra);
    }
  });

  it('the stream iterator reads every chunk', async () => {
    const { svir, client } = await start();
    svir.upstream.chat(everythingAtOnce(21));
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: MESSAGES,
      tools: TOOLS,
      stream: true,
      stream_options: { include_usage: true },
    });
    const received: unknown[] = [];
    for await (const chunk of stream) received.push(chunk);
    expect(received).toEqual(EVERYTHING?.spec.chunks);
  });

  it('the stream() helper assembles the calls, and finalChatCompletion() has everything', async () => {
    const { svir, client } = await start();
    svir.upstream.chat(everythingAtOnce(22));
    const runner = client.chat.completions.stream({
      model: MODEL,
      messages: MESSAGES,
      tools: TOOLS,
      stream_options: { include_usage: true },
    });
    const argumentsDone: { name: string; arguments: string }[] = [];
    runner.on('tool_calls.function.arguments.done', (event) => argumentsDone.push({ name: event.name, arguments: event.arguments }));
    let content = '';
    runner.on('content.delta', (event) => (content += event.delta));
    const final = await runner.finalChatCompletion();
    const choice = final.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    expect(choice?.message.content).toBe('Sure');
    expect(content).toBe('Sure');
    expect(choice?.message.tool_calls).toEqual([
      { id: 'call_svir_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zürich"}' } },
      { id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"é"}' } },
      { id: 'call_svir_2', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } },
    ]);
    expect(argumentsDone).toEqual([
      { name: 'get_weather', arguments: '{"city":"Zürich"}' },
      { name: 'lookup', arguments: '{"q":"é"}' },
      { name: 'lookup', arguments: '{"q":"x"}' },
    ]);
    expect(final.model).toBe(MODEL);
    expect(final.usage).toMatchObject({ prompt_tokens: 50, completion_tokens: 40, total_tokens: 90 });
  });

  it('stream: false answers one chat.completion with the reasoning, the text and the calls', async () => {
    const { svir, client } = await start();
    svir.upstream.chat(everythingAtOnce(23));
    const completion = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, tools: TOOLS });
    const message = completion.choices[0]?.message;
    expect(completion.object).toBe('chat.completion');
    expect(message?.content).toBe('Sure');
    expect(reasoningOf(message)).toBe('Plan: check 天気 ☀️ABinner 🤔');
    expect(message?.tool_calls?.map((call) => (call.type === 'function' ? [call.id, call.function.name, call.function.arguments] : []))).toEqual([
      ['call_svir_1', 'get_weather', '{"city":"Zürich"}'],
      ['call_1', 'lookup', '{"q":"é"}'],
      ['call_svir_2', 'lookup', '{"q":"x"}'],
    ]);
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls');
    expect(completion.usage?.total_tokens).toBe(90);
  });
});

describe('the client\'s error classes', () => {
  it('NotFoundError for a model no backend serves', async () => {
    const { client } = await start();
    const error = await client.chat.completions.create({ model: 'nope', messages: MESSAGES }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
  });

  it('BadRequestError naming the field for an invalid request', async () => {
    const { client } = await start();
    const error = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, n: 2 }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_request', param: 'n' });
  });

  it('AuthenticationError only for svir\'s own key; a server\'s 401 is a 502', async () => {
    const { svir } = await start({ env: { SVIR_API_KEYS: 'svir-key-1' } });
    const wrong = new OpenAI({ baseURL: `${svir.url}/v1`, apiKey: 'wrong', maxRetries: 0 });
    const refused = await wrong.chat.completions.create({ model: MODEL, messages: MESSAGES }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(refused).toMatchObject({ status: 401, code: 'invalid_api_key' });

    svir.upstream.chat({ kind: 'body', status: 401, body: { error: { message: 'bad key' } } });
    const right = new OpenAI({ baseURL: `${svir.url}/v1`, apiKey: 'svir-key-1', maxRetries: 0 });
    const upstream = await right.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true }).catch((err: unknown) => err);
    expect(upstream).toBeInstanceOf(OpenAI.InternalServerError);
    expect(upstream).not.toBeInstanceOf(OpenAI.AuthenticationError);
    expect(upstream).toMatchObject({ status: 502, code: 'upstream_auth_failed' });
  });

  it('RateLimitError with the server\'s Retry-After', async () => {
    const { svir, client } = await start();
    svir.upstream.chat({ kind: 'body', status: 429, headers: { 'retry-after': '3' }, body: { error: { message: 'busy' } } });
    const error = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error).toMatchObject({ status: 429, code: 'rate_limit_exceeded' });
    expect(error instanceof OpenAI.APIError ? error.headers?.get('retry-after') : undefined).toBe('3');
  });

  it('InternalServerError (502) when the server fails before generating', async () => {
    const { svir, client } = await start();
    svir.upstream.chat({ kind: 'sse', pieces: ['event: error\ndata: {"error":{"message":"model crashed"}}\n\n'] });
    const error = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(error).toMatchObject({ status: 502, code: 'upstream_error' });
  });

  it('APIError from the stream iterator when the server fails after the first chunk', async () => {
    const { svir, client } = await start();
    svir.upstream.chat({
      kind: 'sse',
      pieces: [
        sse({ id: 'u', model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'partial' }, finish_reason: null }] }),
        sse({ error: { code: 500, message: 'The model produced output that does not match the expected peg-native format', type: 'server_error' } }),
      ],
    });
    const stream = await client.chat.completions.create({ model: MODEL, messages: MESSAGES, stream: true });
    let content = '';
    const error = await (async () => {
      for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    })().catch((err: unknown) => err);
    expect(content).toBe('partial');
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ code: 'upstream_error' });
    expect(String(error)).toContain('peg-native format');
  });
});
