/**
 * The Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`) through svir, in front of a fake
 * server of every backend type. What this client needs from the stream (read in its source):
 * reasoning under `reasoning_content` (or `reasoning`); a tool call's whole name in its first
 * piece (a later piece carrying a name starts a new call); a chunk `{"error":{...}}` becomes an
 * error part; a stream without a finish reason is an error.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, jsonSchema, streamText, tool, type LanguageModel } from 'ai';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { createGate } from './harness/create-gate.js';
import {
  LOOKUP_PARAMETERS,
  MID_STREAM_FAILURE,
  MID_STREAM_FAILURE_EXPECTED,
  REASONING_AND_TEXT,
  REASONING_AND_TEXT_EXPECTED,
  SPLIT_INTERLEAVED_EXPECTED,
  SPLIT_INTERLEAVED_TOOL_CALLS,
} from './harness/scenarios.js';
import { readTextParts } from './harness/read-text-parts.js';
import { useClientRig } from './harness/use-client-rig.js';

const rig = useClientRig();
let modelOf: (flavor: BackendFlavor) => LanguageModel;

beforeAll(async () => {
  const provider = createOpenAICompatible({ name: 'svir', baseURL: rig.baseURL, apiKey: rig.apiKey, includeUsage: true });
  modelOf = (flavor) => provider.chatModel(flavor.clientModel);
});

const tools = {
  lookup: tool({ description: 'Look a value up.', inputSchema: jsonSchema<{ value: number }>(LOOKUP_PARAMETERS) }),
};

/** The error part's payload: the provider hands over the `error` object of svir's event. */
const errorPayload = z.object({ message: z.string().min(1), type: z.string(), code: z.string().nullable() });

describe.each(BACKEND_FLAVORS)('AI SDK, backend $name', (flavor) => {
  it('streamText: reasoning parts, text parts, a stop finish and the usage', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const result = streamText({ model: modelOf(flavor), prompt: 'Count to three in words.', maxRetries: 0 });
    const { text, reasoning, kinds } = await readTextParts(result.fullStream);
    expect(text).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(reasoning).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);
    // One reasoning block, then one text block: reasoning never lands in the text.
    expect(kinds.filter((kind) => kind === 'reasoning-start')).toHaveLength(1);
    expect(kinds.filter((kind) => kind === 'text-start')).toHaveLength(1);
    expect(kinds.indexOf('reasoning-end')).toBeLessThan(kinds.indexOf('text-start'));
    expect(await result.finishReason).toBe('stop');
    const usage = await result.totalUsage;
    expect(usage.inputTokens).toBe(REASONING_AND_TEXT_EXPECTED.usage.prompt_tokens);
    expect(usage.outputTokens).toBe(REASONING_AND_TEXT_EXPECTED.usage.completion_tokens);
    expect((await result.response).modelId).toBe(flavor.clientModel);
  });

  it('streamText: the split, interleaved calls arrive as two tool calls with parsed input', async () => {
    rig.script(flavor, SPLIT_INTERLEAVED_TOOL_CALLS);
    const result = streamText({ model: modelOf(flavor), prompt: 'Look up 1 and 2.', tools, maxRetries: 0 });
    const calls: { id: string; name: string; input: unknown; invalid: boolean }[] = [];
    const starts: string[] = [];
    let reasoning = '';
    for await (const part of result.fullStream) {
      if (part.type === 'tool-input-start') starts.push(part.toolName);
      if (part.type === 'reasoning-delta') reasoning += part.text;
      if (part.type === 'tool-call') calls.push({ id: part.toolCallId, name: part.toolName, input: part.input, invalid: part.invalid === true });
      if (part.type === 'error' || part.type === 'tool-error') throw new Error(`unexpected ${part.type}: ${JSON.stringify(part.error)}`);
    }
    expect(reasoning).toBe(SPLIT_INTERLEAVED_EXPECTED.reasoning);
    expect(starts).toEqual(['lookup', 'lookup']);
    expect(calls).toEqual(
      SPLIT_INTERLEAVED_EXPECTED.calls.map((call) => ({ id: call.id, name: call.name, input: call.arguments, invalid: false })),
    );
    expect(await result.finishReason).toBe('tool-calls');
  });

  it('generateText: text and reasoning, then tool calls with parsed input', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const answer = await generateText({ model: modelOf(flavor), prompt: 'Count to three in words.', maxRetries: 0 });
    expect(answer.text).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(answer.reasoningText).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);
    expect(answer.finishReason).toBe('stop');
    expect(answer.usage.inputTokens).toBe(REASONING_AND_TEXT_EXPECTED.usage.prompt_tokens);

    rig.script(flavor, SPLIT_INTERLEAVED_TOOL_CALLS);
    const called = await generateText({ model: modelOf(flavor), prompt: 'Look up 1 and 2.', tools, maxRetries: 0 });
    expect(called.finishReason).toBe('tool-calls');
    expect(called.toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, input: call.input }))).toEqual(
      SPLIT_INTERLEAVED_EXPECTED.calls.map((call) => ({ id: call.id, name: call.name, input: call.arguments })),
    );
  });

  it('streamText: a failure mid-stream arrives as an error part carrying svir\'s error, after the partial text', async () => {
    const gate = createGate();
    rig.script(flavor, MID_STREAM_FAILURE, { failAfter: gate.opened });
    const result = streamText({ model: modelOf(flavor), prompt: 'Count.', maxRetries: 0, onError: () => undefined });
    let text = '';
    const errors: unknown[] = [];
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') text += part.text;
      if (text === MID_STREAM_FAILURE_EXPECTED.partialContent) gate.open();
      if (part.type === 'error') errors.push(part.error);
    }
    expect(text).toBe(MID_STREAM_FAILURE_EXPECTED.partialContent);
    expect(errors).toHaveLength(1);
    const error = errorPayload.parse(errors[0]);
    expect(error.code).toBe('upstream_error');
    expect(error.message).toContain(flavor.name);
    expect(await result.finishReason).toBe('error');
  });
});
