/**
 * The three real clients through svir in front of the per-server fakes (tests/fakes/<type>-server.ts),
 * which behave as each real server does (what it keeps of tool_choice, where it puts reasoning,
 * a named call finished with `stop`, the template that opened `<think>`). The models are
 * discovered from each fake and found by the client through svir's GET /v1/models.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { configSchema } from '../../src/config/schema.js';
import { buildServer } from '../../src/server.js';
import { startAzureServer } from '../fakes/azure-server.js';
import { LOCKER_ARGUMENTS } from '../fakes/fake-model.js';
import { startLlamaCppServer } from '../fakes/llamacpp-server.js';
import { startLmStudioServer } from '../fakes/lmstudio-server.js';
import { startMlxLmServer } from '../fakes/mlx-lm-server.js';
import { startMlxVlmServer } from '../fakes/mlx-vlm-server.js';
import { SECOND_LOCKER_ARGUMENTS, startOllamaServer } from '../fakes/ollama-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startVllmServer } from '../fakes/vllm-server.js';
import { readTextParts } from './harness/read-text-parts.js';

interface FakeBackend {
  name: string;
  type: string;
  model: string;
  start(): Promise<ScriptedUpstream>;
  urlPath: string;
  /** Config entries beyond name, type and url. */
  extra: Record<string, unknown>;
  /** Whether the server reasons when asked with reasoning_effort "low". */
  reasons: boolean;
  /** Whether it takes tools (vLLM only with its tool-call parser). */
  tools: boolean;
}

const FAKES: readonly FakeBackend[] = [
  { name: 'lmstudio', type: 'lmstudio', model: 'qwen3.8-27b', start: () => startLmStudioServer({ loadedModel: 'qwen3.8-27b' }), urlPath: '/v1', extra: {}, reasons: true, tools: true },
  {
    name: 'llamacpp',
    type: 'llamacpp',
    model: '/models/muse-glimmer-30b-Q4_K_M.gguf',
    start: () => startLlamaCppServer({ modelPath: '/models/muse-glimmer-30b-Q4_K_M.gguf' }),
    urlPath: '',
    extra: {},
    reasons: true,
    tools: true,
  },
  { name: 'vllm', type: 'vllm', model: 'qwen3.8-vllm', start: () => startVllmServer({ servedModelName: 'qwen3.8-vllm' }), urlPath: '/v1', extra: {}, reasons: true, tools: true },
  {
    // No reasoning parser: the template opened <think>, the reasoning comes as content closed by </think>.
    name: 'vllm-bare',
    type: 'vllm',
    model: 'qwen3.8-bare',
    start: () => startVllmServer({ servedModelName: 'qwen3.8-bare', reasoningParser: false, toolParser: false }),
    urlPath: '/v1',
    extra: { reasoningTags: 'open' },
    reasons: true,
    tools: false,
  },
  { name: 'mlx-lm', type: 'mlx-lm', model: '/Users/me/models/Qwen3.8-27B-4bit', start: () => startMlxLmServer({ modelPath: '/Users/me/models/Qwen3.8-27B-4bit' }), urlPath: '/v1', extra: {}, reasons: true, tools: true },
  { name: 'mlx-vlm', type: 'mlx-vlm', model: '/Users/me/models/Qwen3.8-VL-4bit', start: () => startMlxVlmServer({ modelPath: '/Users/me/models/Qwen3.8-VL-4bit' }), urlPath: '/v1', extra: {}, reasons: true, tools: true },
  // Discovered from its /v1/models under name:tag; thinking on by default, reasoning as `reasoning`.
  { name: 'ollama', type: 'ollama', model: 'qwen3:8b', start: () => startOllamaServer(), urlPath: '/v1', extra: {}, reasons: true, tools: true },
  {
    name: 'azure',
    type: 'azure',
    model: 'luna',
    start: () => startAzureServer({ deployments: ['luna'], apiKey: 'azure-fake-key' }),
    urlPath: '/',
    extra: { models: ['luna'], apiKey: 'azure-fake-key' },
    reasons: false,
    tools: true,
  },
];

const COUNT_ANSWER = 'One, two, three, four, five.';
const COUNT_REASONING = 'The user wants me to count from one to five.';
const LOCKER = JSON.parse(LOCKER_ARGUMENTS);
const lockerParameters = { type: 'object' as const, properties: { number: { type: 'integer' as const } }, required: ['number'] };
const lockerTool = { type: 'function' as const, function: { name: 'open_locker', description: 'Open a locker by number.', parameters: lockerParameters } };
const KEY = 'sk-svir-server-fakes';

const upstreams: ScriptedUpstream[] = [];
let baseURL: string;
let closeSvir: () => Promise<void> = async () => undefined;

beforeAll(async () => {
  const backends: Record<string, unknown>[] = [];
  for (const fake of FAKES) {
    const upstream = await fake.start();
    upstreams.push(upstream);
    backends.push({ name: fake.name, type: fake.type, url: `${upstream.url}${fake.urlPath}`, ...fake.extra });
  }
  const config = configSchema.parse({ server: { host: '127.0.0.1', port: 0, apiKeys: [KEY], logLevel: 'silent', keepaliveMs: 0 }, backends });
  const app = buildServer(config);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('svir has no TCP address');
  baseURL = `http://127.0.0.1:${address.port}/v1`;
  closeSvir = () => app.close();
});
afterAll(async () => {
  for (const upstream of upstreams) await upstream.close();
  await closeSvir();
});

const reasoningKwarg = z.looseObject({ reasoning_content: z.string().optional() });
const withReasoning = z.looseObject({ reasoning_content: z.string().optional() });

describe('GET /v1/models through the openai client', () => {
  it('lists the model of every fake, discovered or configured', async () => {
    const client = new OpenAI({ baseURL, apiKey: KEY, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(FAKES.map((fake) => fake.model)));
  });
});

describe.each(FAKES)('clients in front of the $name fake: counting, with reasoning', (fake) => {
  const expectedReasoning = fake.reasons ? COUNT_REASONING : '';
  const ask = 'Count from one to five.';

  it('openai: a streamed answer with reasoning_content apart', async () => {
    const client = new OpenAI({ baseURL, apiKey: KEY, maxRetries: 0 });
    const stream = await client.chat.completions.create({ model: fake.model, messages: [{ role: 'user', content: ask }], stream: true, reasoning_effort: 'low' });
    let content = '';
    let reasoning = '';
    for await (const chunk of stream) {
      expect(chunk.model).toBe(fake.model);
      content += chunk.choices[0]?.delta.content ?? '';
      reasoning += withReasoning.safeParse(chunk.choices[0]?.delta).data?.reasoning_content ?? '';
    }
    // The whitespace around the reasoning is the server's text and stays: LM Studio and mlx-lm
    // start the answer with the "\n\n" that followed it, a template's "\n</think>" leaves "\n".
    expect(content.trimStart()).toBe(COUNT_ANSWER);
    expect(reasoning.trimEnd()).toBe(expectedReasoning);
  });

  it('AI SDK: reasoning parts and text parts', async () => {
    const provider = createOpenAICompatible({ name: 'svir', baseURL, apiKey: KEY });
    const result = streamText({ model: provider.chatModel(fake.model), prompt: ask, maxRetries: 0, providerOptions: { svir: { reasoningEffort: 'low' } } });
    const { text, reasoning } = await readTextParts(result.fullStream);
    expect(text.trimStart()).toBe(COUNT_ANSWER);
    expect(reasoning.trimEnd()).toBe(expectedReasoning);
  });

  it('LangChain: content, and reasoning_content in additional_kwargs', async () => {
    const model = new ChatOpenAI({ model: fake.model, apiKey: KEY, configuration: { baseURL }, maxRetries: 0, modelKwargs: { reasoning_effort: 'low' } });
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await model.stream(ask)) merged = merged === undefined ? chunk : merged.concat(chunk);
    expect(typeof merged?.content === 'string' ? merged.content.trimStart() : merged?.content).toBe(COUNT_ANSWER);
    expect((reasoningKwarg.parse(merged?.additional_kwargs).reasoning_content ?? '').trimEnd()).toBe(expectedReasoning);
  });
});

describe.each(FAKES.filter((fake) => fake.tools))('clients in front of the $name fake: a named tool_choice', (fake) => {
  const ask = 'Open my locker, please.';

  it('openai: stream() finalChatCompletion() has the one call, finished tool_calls', async () => {
    const client = new OpenAI({ baseURL, apiKey: KEY, maxRetries: 0 });
    const completion = await client.chat.completions
      .stream({ model: fake.model, messages: [{ role: 'user', content: ask }], tools: [lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } })
      .finalChatCompletion();
    const choice = completion.choices[0];
    // vLLM finishes a call of a named function with `stop`: the client must still see tool_calls.
    expect(choice?.finish_reason).toBe('tool_calls');
    const calls = (choice?.message.tool_calls ?? []).map((call) => (call.type === 'function' ? { name: call.function.name, args: JSON.parse(call.function.arguments) } : call));
    expect(calls).toEqual([{ name: 'open_locker', args: LOCKER }]);
  });

  it('AI SDK: one tool call with parsed input', async () => {
    const provider = createOpenAICompatible({ name: 'svir', baseURL, apiKey: KEY });
    const result = streamText({
      model: provider.chatModel(fake.model),
      prompt: ask,
      maxRetries: 0,
      tools: { open_locker: tool({ description: 'Open a locker by number.', inputSchema: jsonSchema<{ number: number }>(lockerParameters) }) },
      toolChoice: { type: 'tool', toolName: 'open_locker' },
    });
    const calls: { name: string; input: unknown }[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') calls.push({ name: part.toolName, input: part.input });
      if (part.type === 'error' || part.type === 'tool-error') throw new Error(JSON.stringify(part.error));
    }
    expect(calls).toEqual([{ name: 'open_locker', input: LOCKER }]);
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('LangChain: the merged chunks hold the one call', async () => {
    const model = new ChatOpenAI({ model: fake.model, apiKey: KEY, configuration: { baseURL }, maxRetries: 0 }).bindTools([lockerTool], {
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
    });
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await model.stream(ask)) merged = merged === undefined ? chunk : merged.concat(chunk);
    expect(merged?.tool_calls?.map((call) => ({ name: call.name, args: call.args }))).toEqual([{ name: 'open_locker', args: LOCKER }]);
    expect(merged?.response_metadata['finish_reason']).toBe('tool_calls');
  });
});

describe('clients in front of the ollama fake: two calls it sends both at index 0', () => {
  const model = 'qwen3:8b';
  const ask = 'Open lockers 4 and 7.';
  const both = [
    { name: 'open_locker', args: LOCKER },
    { name: 'open_locker', args: JSON.parse(SECOND_LOCKER_ARGUMENTS) },
  ];

  it('openai: stream() finalChatCompletion() has two calls with their own ids', async () => {
    const client = new OpenAI({ baseURL, apiKey: KEY, maxRetries: 0 });
    const completion = await client.chat.completions.stream({ model, messages: [{ role: 'user', content: ask }], tools: [lockerTool] }).finalChatCompletion();
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const calls = (choice?.message.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [{ id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) }] : []));
    expect(calls.map(({ name, args }) => ({ name, args }))).toEqual(both);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
  });

  it('AI SDK: two tool calls with parsed input', async () => {
    const provider = createOpenAICompatible({ name: 'svir', baseURL, apiKey: KEY });
    const result = streamText({
      model: provider.chatModel(model),
      prompt: ask,
      maxRetries: 0,
      tools: { open_locker: tool({ description: 'Open a locker by number.', inputSchema: jsonSchema<{ number: number }>(lockerParameters) }) },
    });
    const calls: { name: string; args: unknown }[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') calls.push({ name: part.toolName, args: part.input });
      if (part.type === 'error' || part.type === 'tool-error') throw new Error(JSON.stringify(part.error));
    }
    expect(calls).toEqual(both);
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('LangChain: the merged chunks hold both calls', async () => {
    const chat = new ChatOpenAI({ model, apiKey: KEY, configuration: { baseURL }, maxRetries: 0 }).bindTools([lockerTool]);
    let merged: AIMessageChunk | undefined;
    for await (const chunk of await chat.stream(ask)) merged = merged === undefined ? chunk : merged.concat(chunk);
    expect(merged?.tool_calls?.map((call) => ({ name: call.name, args: call.args }))).toEqual(both);
    expect(merged?.response_metadata['finish_reason']).toBe('tool_calls');
  });
});
