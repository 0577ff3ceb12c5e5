/**
 * The real `openai` npm client (v6) pointed at the built program: streamed and folded answers,
 * the stream() helper, tool calls, reasoning, usage, headers through withResponse(), the model
 * list, and the error class the client picks for each status of docs/contract.md#errors (with its
 * retries off, so each status is seen as svir sent it).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLmStudioServer } from '../fakes/lmstudio-server.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startSvirProcess, type SvirProcess } from './harness/run-svir.js';

let up: ScriptedUpstream;
let lms: ScriptedUpstream;
let svir: SvirProcess;
let keyed: SvirProcess;
let client: OpenAI;

beforeAll(async () => {
  up = await startScriptedUpstream();
  up.models(['scripted-model']);
  lms = await startLmStudioServer({ loadedModel: 'qwen3.8-27b', contextChars: 300 });
  [svir, keyed] = await Promise.all([
    startSvirProcess({ config: `server: {port: 0}\nbackends:\n  - {name: up, type: openai, url: "${up.url}"}\n  - {name: lms, type: lmstudio, url: "${lms.url}/v1/"}\n` }),
    startSvirProcess({ config: `server: {port: 0, apiKeys: [svir-key-abcdef]}\nbackends:\n  - {name: up, type: openai, url: "${up.url}", models: [scripted-model]}\n` }),
  ]);
  client = new OpenAI({ baseURL: svir.baseUrl, apiKey: 'anything', maxRetries: 0 });
});

afterAll(async () => {
  await Promise.all([svir?.stop(), keyed?.stop()]);
  await Promise.all([up?.close(), lms?.close()]);
});

type Json = Record<string, unknown>;
const ck = (delta: Json, finish: string | null = null): Json => ({ id: 'u', object: 'chat.completion.chunk', created: 1, model: 'x', choices: [{ index: 0, delta, finish_reason: finish }] });
const lockerTool = {
  type: 'function' as const,
  function: { name: 'open_locker', description: 'Opens a locker', parameters: { type: 'object', properties: { number: { type: 'integer' } } } },
};

describe('openai client: answers', () => {
  it('create({stream: true}): reasoning, the answer and usage; one role, the finish once', async () => {
    const stream = await client.chat.completions.create({ model: 'qwen3.8-27b', messages: [{ role: 'user', content: 'count' }], stream: true, stream_options: { include_usage: true } });
    let content = '';
    let reasoning = '';
    const finishes: string[] = [];
    let roles = 0;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      expect(chunk.model).toBe('qwen3.8-27b');
      if (chunk.usage) usage = chunk.usage;
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      const delta = choice.delta as OpenAI.Chat.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string };
      if (delta.role) roles += 1;
      content += delta.content ?? '';
      reasoning += delta.reasoning_content ?? '';
      if (choice.finish_reason) finishes.push(choice.finish_reason);
    }
    expect(roles).toBe(1);
    expect(finishes).toEqual(['stop']);
    expect(reasoning.length).toBeGreaterThan(0);
    // LM Studio's "\n\n" after the reasoning only separated it from the answer (DESIGN §2).
    expect(content).toBe('One, two, three, four, five.');
    expect(usage?.total_tokens).toBeGreaterThan(0);
  });

  it('create() without stream: one chat.completion', async () => {
    const completion = await client.chat.completions.create({ model: 'qwen3.8-27b', messages: [{ role: 'user', content: 'say hello' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('qwen3.8-27b');
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]?.message.content).toBe('Hello!');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('stream() helper with a named tool: finalChatCompletion has the whole call', async () => {
    const runner = client.chat.completions.stream({
      model: 'qwen3.8-27b',
      messages: [{ role: 'user', content: 'open the locker' }],
      tools: [lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
    });
    const final = await runner.finalChatCompletion();
    const call = final.choices[0]?.message.tool_calls?.[0];
    expect(call?.type).toBe('function');
    if (call?.type === 'function') {
      expect(call.function.name).toBe('open_locker');
      expect(JSON.parse(call.function.arguments)).toEqual({ number: 4 });
      expect(call.id.length).toBeGreaterThan(0);
    }
    expect(final.choices[0]?.finish_reason).toBe('tool_calls');
  });

  it('withResponse(): svir\'s headers reach the client', async () => {
    const { response } = await client.chat.completions
      .create({ model: 'qwen3.8-27b', messages: [{ role: 'user', content: 'say hello' }], stream: true, tools: [lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } })
      .withResponse();
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('x-request-id')).toMatch(/\S/);
    expect(response.headers.get('x-svir-backend')).toBe('lms');
    expect(response.headers.get('x-svir-changes')).toMatch(/tool_choice/);
    await response.body?.cancel();
  });

  it('models.list() holds the models svir routes', async () => {
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['scripted-model', 'qwen3.8-27b']));
  });
});

describe('openai client: errors', () => {
  it('404 → NotFoundError, code model_not_found', async () => {
    const err = await client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('model_not_found');
  });

  it('context overflow (LM Studio\'s event: error) → BadRequestError, context_length_exceeded, "maximum context length"', async () => {
    const err = await client.chat.completions
      .create({ model: 'qwen3.8-27b', messages: [{ role: 'user', content: 'hello '.repeat(100) }], stream: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const apiError = err as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.code).toBe('context_length_exceeded');
    expect(apiError.message).toContain('maximum context length');
  });

  it('svir\'s key → AuthenticationError; the right key works', async () => {
    const wrong = new OpenAI({ baseURL: keyed.baseUrl, apiKey: 'wrong', maxRetries: 0 });
    const err = await wrong.models.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('invalid_api_key');
    const right = new OpenAI({ baseURL: keyed.baseUrl, apiKey: 'svir-key-abcdef', maxRetries: 0 });
    expect((await right.models.list()).data.map((m) => m.id)).toEqual(['scripted-model']);
  });

  it('upstream 401 → 502 InternalServerError upstream_auth_failed, never AuthenticationError', async () => {
    up.chat({ kind: 'body', status: 401, body: { error: { message: 'bad key' } } });
    const err = await client.chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.InternalServerError);
    expect(err).not.toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(502);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('upstream_auth_failed');
  });

  it('upstream 429 → RateLimitError with Retry-After', async () => {
    up.chat({ kind: 'body', status: 429, headers: { 'retry-after': '3' }, body: { error: { message: 'slow' } } });
    const err = await client.chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('3');
  });

  it('an error after the headers → the iterator throws an APIError with svir\'s message', async () => {
    up.chat({ kind: 'sse', pieces: [sse(ck({ role: 'assistant', content: 'partial' })), { delayMs: 50 }, sse({ error: { message: 'died midway', code: 500 } })] });
    const stream = await client.chat.completions.create({ model: 'scripted-model', messages: [{ role: 'user', content: 'x' }], stream: true });
    let content = '';
    const err = await (async () => {
      for await (const chunk of stream) content += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(content).toBe('partial');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toContain('died midway');
  });
});
