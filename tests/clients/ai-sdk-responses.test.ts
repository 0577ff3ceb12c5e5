/**
 * The Vercel AI SDK's default OpenAI provider (`@ai-sdk/openai`: `openai(modelId)` speaks the
 * Responses API) on svir's `POST /v1/responses`, in front of a fake chat server of every backend
 * type. What this client does, read in its source: it shows reasoning from the summary
 * (`response.reasoning_summary_text.delta`) only, and asks for one (`reasoning.summary`) only
 * for a reasoning model with `reasoningSummary` set (`forceReasoning: true` makes a local
 * model one), as against OpenAI; svir then sends the reasoning as the summary, and without
 * it as `reasoning_text` content, which this client does not show (docs/responses.md); it takes a call's name and id from
 * `output_item.added`; and with its default `store: true` the next step of a multi-step run
 * sends `{"type": "item_reference", "id": ...}` for the reasoning and text items of earlier
 * steps instead of the items, which svir resolves from its response store. With
 * `store: false` it sends the items inline and drops reasoning that has no `encrypted_content`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, stepCountIs, streamText, tool, type LanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { readChatRequest } from './harness/read-chat-request.js';
import { readTextParts } from './harness/read-text-parts.js';
import { AFTER_LOOKUPS, AFTER_LOOKUPS_EXPECTED, lookupResult } from './harness/responses-scenarios.js';
import {
  LOOKUP_PARAMETERS,
  REASONING_AND_TEXT,
  REASONING_AND_TEXT_EXPECTED,
  SPLIT_INTERLEAVED_EXPECTED,
  SPLIT_INTERLEAVED_TOOL_CALLS,
} from './harness/scenarios.js';
import { useClientRig } from './harness/use-client-rig.js';

const rig = useClientRig();
let modelOf: (flavor: BackendFlavor) => LanguageModel;
/** Every request body the provider sent svir, in order. */
const sentToSvir: unknown[] = [];

/** The provider's warnings are asserted where they matter, not printed. */
let logWarnings: unknown;

beforeAll(async () => {
  logWarnings = Reflect.get(globalThis, 'AI_SDK_LOG_WARNINGS');
  Reflect.set(globalThis, 'AI_SDK_LOG_WARNINGS', false);
  const provider = createOpenAI({
    baseURL: rig.baseURL,
    apiKey: rig.apiKey,
    fetch: async (input, init) => {
      if (typeof init?.body === 'string') sentToSvir.push(JSON.parse(init.body));
      return fetch(input, init);
    },
  });
  modelOf = (flavor) => provider(flavor.clientModel);
});
afterAll(async () => {
  Reflect.set(globalThis, 'AI_SDK_LOG_WARNINGS', logWarnings);
});

const lookup = tool({
  description: 'Look a value up.',
  inputSchema: jsonSchema<{ value: number }>(LOOKUP_PARAMETERS),
  execute: ({ value }) => lookupResult(value),
});

/** What makes this client ask for a reasoning summary of a model it does not know. */
const SHOW_REASONING = { openai: { forceReasoning: true, reasoningSummary: 'auto' } };

const inputItems = z.looseObject({ input: z.array(z.looseObject({ type: z.string().optional(), role: z.string().optional(), id: z.string().optional() })) });

/** The `type` of each input item of a body the provider sent (a message without one is `message`). */
function inputTypes(body: unknown): string[] {
  return inputItems.parse(body).input.map((item) => item.type ?? 'message');
}

describe.each(BACKEND_FLAVORS)('AI SDK openai provider on /v1/responses, backend $name', (flavor) => {
  it('streamText: reasoning parts from the summary, then text parts, a stop finish and the usage', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const result = streamText({ model: modelOf(flavor), prompt: 'Count to three in words.', maxRetries: 0, providerOptions: SHOW_REASONING });
    const { text, reasoning, kinds } = await readTextParts(result.fullStream);
    expect(text).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(reasoning).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);
    expect(kinds.indexOf('reasoning-end')).toBeLessThan(kinds.indexOf('text-start'));
    expect(await result.finishReason).toBe('stop');
    const usage = await result.totalUsage;
    expect(usage.inputTokens).toBe(REASONING_AND_TEXT_EXPECTED.usage.prompt_tokens);
    expect(usage.outputTokens).toBe(REASONING_AND_TEXT_EXPECTED.usage.completion_tokens);
    expect((await result.response).modelId).toBe(flavor.clientModel);
  });

  it('generateText: the text, the reasoning and the usage', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const answer = await generateText({ model: modelOf(flavor), prompt: 'Count to three in words.', maxRetries: 0, providerOptions: SHOW_REASONING });
    expect(answer.text).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(answer.reasoningText).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);
    expect(answer.finishReason).toBe('stop');
    expect(answer.usage.inputTokens).toBe(REASONING_AND_TEXT_EXPECTED.usage.prompt_tokens);
    expect(answer.usage.totalTokens).toBe(REASONING_AND_TEXT_EXPECTED.usage.total_tokens);
  });

  it('streamText without asking for a summary: the answer whole, no reasoning shown (it went out as reasoning_text content)', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const sentBefore = sentToSvir.length;
    const result = streamText({ model: modelOf(flavor), prompt: 'Count to three in words.', maxRetries: 0 });
    const { text, reasoning } = await readTextParts(result.fullStream);
    expect(z.looseObject({ reasoning: z.unknown().optional() }).parse(sentToSvir[sentBefore]).reasoning).toBeUndefined();
    expect(text).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(reasoning).toBe('');
  });

  it('streamText with a tool the SDK runs, over two steps: the second sends item references svir resolves from its store', async () => {
    rig.scriptTurns(flavor, SPLIT_INTERLEAVED_TOOL_CALLS, AFTER_LOOKUPS);
    const chatBefore = rig.chatRequestsTo(flavor).length;
    const sentBefore = sentToSvir.length;
    const result = streamText({
      model: modelOf(flavor),
      prompt: 'Look up 1 and 2.',
      tools: { lookup },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      providerOptions: SHOW_REASONING,
    });
    const calls: { id: string; name: string; input: unknown }[] = [];
    const results: unknown[] = [];
    let reasoning = '';
    for await (const part of result.fullStream) {
      if (part.type === 'tool-call') calls.push({ id: part.toolCallId, name: part.toolName, input: part.input });
      if (part.type === 'tool-result') results.push(part.output);
      if (part.type === 'reasoning-delta') reasoning += part.text;
      if (part.type === 'error' || part.type === 'tool-error') throw new Error(`unexpected ${part.type}: ${JSON.stringify(part.error)}`);
    }
    expect(calls).toEqual(SPLIT_INTERLEAVED_EXPECTED.calls.map((call) => ({ id: call.id, name: call.name, input: call.arguments })));
    expect(results).toEqual(['ten', 'twenty']);
    expect(reasoning).toBe(SPLIT_INTERLEAVED_EXPECTED.reasoning + AFTER_LOOKUPS_EXPECTED.reasoning);
    expect(await result.text).toBe(AFTER_LOOKUPS_EXPECTED.content);
    expect(await result.finishReason).toBe('stop');
    expect((await result.steps).length).toBe(2);

    // The second step referred to the first step's reasoning by id...
    const second = sentToSvir[sentBefore + 1];
    expect(inputTypes(second)).toContain('item_reference');
    // ...and the backend still got the whole conversation: the calls, then their results.
    const sent = readChatRequest(rig.chatRequestsTo(flavor)[chatBefore + 1]);
    expect(sent.messages[0]).toMatchObject({ role: 'user', text: 'Look up 1 and 2.' });
    expect(sent.messages.find((message) => message.toolCalls !== undefined)?.toolCalls?.map((call) => call.id)).toEqual(['call-a', 'call-b']);
    expect(sent.messages.filter((message) => message.role === 'tool').map((message) => [message.toolCallId, message.text])).toEqual([
      ['call-a', 'ten'],
      ['call-b', 'twenty'],
    ]);
  });

  it('generateText with store: false over two steps: the items go inline, no item references', async () => {
    rig.scriptTurns(flavor, SPLIT_INTERLEAVED_TOOL_CALLS, AFTER_LOOKUPS);
    const sentBefore = sentToSvir.length;
    const answer = await generateText({
      model: modelOf(flavor),
      prompt: 'Look up 1 and 2.',
      tools: { lookup },
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      providerOptions: { openai: { store: false } },
    });
    expect(answer.text).toBe(AFTER_LOOKUPS_EXPECTED.content);
    expect(answer.steps).toHaveLength(2);
    expect(answer.steps[0]?.toolResults.map((result) => result.output)).toEqual(['ten', 'twenty']);
    const second = sentToSvir[sentBefore + 1];
    expect(inputTypes(second)).not.toContain('item_reference');
    expect(inputTypes(second)).not.toContain('reasoning');
    expect(inputTypes(second).filter((type) => type === 'function_call_output')).toHaveLength(2);
    // The provider says why the first step's reasoning stayed behind (svir has no encrypted_content to give it).
    expect((answer.steps[1]?.warnings ?? []).map((warning) => ('message' in warning ? warning.message : ''))).toContainEqual(
      expect.stringContaining('without encrypted content') as unknown,
    );
  });
});
