/**
 * Anthropic's TypeScript SDK (`@anthropic-ai/sdk`) and the Vercel AI SDK's Anthropic provider
 * (`@ai-sdk/anthropic`) on svir's `POST /v1/messages`, in front of a fake server of every backend
 * type (docs/messages.md). The SDK reads only named events (`event:` lines), throws on a second
 * `message_start`, joins `input_json_delta` pieces into a tool's input, and types its errors by
 * status; each is checked here as a user would meet it.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { createGate } from './harness/create-gate.js';
import { contextOverflowResponse } from './harness/context-overflow-response.js';
import { readChatRequest } from './harness/read-chat-request.js';
import { AFTER_LOOKUPS, AFTER_LOOKUPS_EXPECTED, lookupResult } from './harness/responses-scenarios.js';
import {
  LOOKUP_PARAMETERS,
  MID_STREAM_FAILURE,
  MID_STREAM_FAILURE_EXPECTED,
  REASONING_AND_TEXT,
  REASONING_AND_TEXT_EXPECTED,
  SPLIT_INTERLEAVED_EXPECTED,
  SPLIT_INTERLEAVED_TOOL_CALLS,
} from './harness/scenarios.js';
import { useClientRig } from './harness/use-client-rig.js';

const rig = useClientRig({ extraBackends: [{ name: 'nobody', type: 'openai', url: 'http://127.0.0.1:9/v1', models: ['nobody-model'], timeouts: { connectMs: 500 } }] });
let client: Anthropic;
const origin = (): string => rig.baseURL.replace(/\/v1$/, '');

beforeAll(async () => {
  // The SDK appends /v1/messages to its base URL; no retries, so each error is seen as svir sent it.
  client = new Anthropic({ apiKey: rig.apiKey, baseURL: origin(), maxRetries: 0 });
});

const LOOKUP = { name: 'lookup', description: 'Look a value up.', input_schema: LOOKUP_PARAMETERS };

function textOf(content: readonly Anthropic.ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('');
}

function thinkingOf(content: readonly Anthropic.ContentBlock[]): string {
  return content.flatMap((block) => (block.type === 'thinking' ? [block.thinking] : [])).join('');
}

describe.each(BACKEND_FLAVORS)('@anthropic-ai/sdk on /v1/messages, backend $name', (flavor: BackendFlavor) => {
  it('messages.create, stream: false: thinking and text blocks, end_turn, usage', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const message = await client.messages.create({ model: flavor.clientModel, max_tokens: 200, messages: [{ role: 'user', content: 'Count to three.' }] });
    expect(textOf(message.content)).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(thinkingOf(message.content)).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage).toMatchObject({ output_tokens: 14 });
  });

  it('messages.create, stream: true: every event named, thinking before text', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const stream = await client.messages.create({ model: flavor.clientModel, max_tokens: 200, stream: true, messages: [{ role: 'user', content: 'Count to three.' }] });
    const seen: string[] = [];
    let text = '';
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
    }
    expect(seen[0]).toBe('message_start');
    expect(seen.at(-1)).toBe('message_stop');
    expect(text).toBe(REASONING_AND_TEXT_EXPECTED.content);
  });

  it('messages.stream().finalMessage(): two tool calls split and interleaved upstream, whole inputs, stop_reason tool_use', async () => {
    rig.script(flavor, SPLIT_INTERLEAVED_TOOL_CALLS);
    const final = await client.messages.stream({ model: flavor.clientModel, max_tokens: 200, tools: [LOOKUP], messages: [{ role: 'user', content: 'Look up 1 and 2.' }] }).finalMessage();
    const calls = final.content.flatMap((block) => (block.type === 'tool_use' ? [{ id: block.id, name: block.name, arguments: block.input }] : []));
    expect(calls).toEqual(SPLIT_INTERLEAVED_EXPECTED.calls);
    expect(final.stop_reason).toBe('tool_use');
  });

  it('a two-turn tool loop: the results go back as tool messages, the thinking as that turn\'s reasoning', async () => {
    rig.scriptTurns(flavor, SPLIT_INTERLEAVED_TOOL_CALLS, AFTER_LOOKUPS);
    const before = rig.chatRequestsTo(flavor).length;
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Look up 1 and 2.' }];
    const first = await client.messages.stream({ model: flavor.clientModel, max_tokens: 200, tools: [LOOKUP], messages }).finalMessage();
    messages.push({ role: 'assistant', content: first.content });
    messages.push({
      role: 'user',
      content: first.content.flatMap((block) =>
        block.type === 'tool_use' ? [{ type: 'tool_result' as const, tool_use_id: block.id, content: lookupResult(Number((block.input as { value: number }).value)) }] : [],
      ),
    });
    const second = await client.messages.create({ model: flavor.clientModel, max_tokens: 200, tools: [LOOKUP], messages });
    expect(textOf(second.content)).toBe(AFTER_LOOKUPS_EXPECTED.content);
    const sent = readChatRequest(rig.chatRequestsTo(flavor)[before + 1]);
    const results = sent.messages.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.toolCallId)).toEqual(['call-a', 'call-b']);
    expect(results.map((m) => m.text)).toEqual([lookupResult(1), lookupResult(2)]);
  });

  it('a failure mid-stream: the SDK raises svir\'s error after the partial text', async () => {
    const gate = createGate();
    rig.script(flavor, MID_STREAM_FAILURE, { failAfter: gate.opened });
    const stream = client.messages.stream({ model: flavor.clientModel, max_tokens: 200, messages: [{ role: 'user', content: 'Count.' }] });
    let text = '';
    stream.on('text', (delta) => {
      text += delta;
      if (text === MID_STREAM_FAILURE_EXPECTED.partialContent) gate.open();
    });
    const error = await stream.finalMessage().then(() => undefined, (err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(text).toBe(MID_STREAM_FAILURE_EXPECTED.partialContent);
  });

  const overflow = contextOverflowResponse(flavor.dialect);
  it.runIf(overflow !== undefined)('a prompt over the context: BadRequestError "prompt is too long"', async () => {
    if (overflow === undefined) return;
    rig.scriptRaw(flavor, overflow);
    const error = await client.messages.create({ model: flavor.clientModel, max_tokens: 10, messages: [{ role: 'user', content: 'Too long.' }] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(String((error as Error).message)).toContain('prompt is too long');
  });
});

describe('@anthropic-ai/sdk: countTokens and each error class', () => {
  const flavor = BACKEND_FLAVORS[0]!;

  it('messages.countTokens answers input_tokens', async () => {
    const counted = await client.messages.countTokens({ model: flavor.clientModel, system: 'Be brief.', tools: [LOOKUP], messages: [{ role: 'user', content: 'Look up 1.' }] });
    expect(counted.input_tokens).toBeGreaterThan(10);
  });

  it.each([
    ['BadRequestError', () => client.messages.create({ model: flavor.clientModel, max_tokens: 10, messages: [] }), Anthropic.BadRequestError, 'invalid_request_error'],
    ['AuthenticationError', () => new Anthropic({ apiKey: 'wrong', baseURL: origin(), maxRetries: 0 }).messages.create({ model: flavor.clientModel, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), Anthropic.AuthenticationError, 'authentication_error'],
    ['NotFoundError', () => client.messages.create({ model: 'no-such-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), Anthropic.NotFoundError, 'not_found_error'],
    ['InternalServerError (529 overloaded)', () => client.messages.create({ model: 'nobody-model', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }), Anthropic.InternalServerError, 'overloaded_error'],
  ])('%s', async (_name, call, errorClass, type) => {
    const error = await call().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(errorClass);
    expect((error as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type } });
    expect((error as InstanceType<typeof Anthropic.APIError>).requestID).toEqual(expect.any(String));
  });

  it('RateLimitError: a backend that rate limits', async () => {
    rig.scriptRaw(flavor, { kind: 'body', status: 429, headers: { 'retry-after': '3' }, body: { error: { message: 'Too many requests', type: 'rate_limit_error' } } });
    const error = await client.messages.create({ model: flavor.clientModel, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
  });
});

describe('@ai-sdk/anthropic with baseURL at svir', () => {
  it.each(BACKEND_FLAVORS)('streamText with a tool over two steps, backend $name', async (flavor) => {
    rig.scriptTurns(flavor, SPLIT_INTERLEAVED_TOOL_CALLS, AFTER_LOOKUPS);
    const anthropic = createAnthropic({ baseURL: rig.baseURL, apiKey: rig.apiKey });
    const executed: number[] = [];
    const result = streamText({
      model: anthropic(flavor.clientModel),
      prompt: 'Look up 1 and 2.',
      tools: {
        lookup: tool({
          description: 'Look a value up.',
          inputSchema: jsonSchema<{ value: number }>(LOOKUP_PARAMETERS),
          execute: async ({ value }) => {
            executed.push(value);
            return lookupResult(value);
          },
        }),
      },
      stopWhen: stepCountIs(2),
      maxOutputTokens: 200,
      maxRetries: 0,
    });
    expect(await result.text).toBe(AFTER_LOOKUPS_EXPECTED.content);
    expect(executed.sort()).toEqual([1, 2]);
    expect((await result.steps).map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
  });
});
