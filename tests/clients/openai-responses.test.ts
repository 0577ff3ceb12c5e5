/**
 * The `openai` npm client on svir's `POST /v1/responses`, in front of a fake chat server of every
 * backend type (the route translates to chat: no backend is asked for /v1/responses). What this
 * client needs, read in its source: `responses.stream()` accumulates a snapshot that must start
 * with `response.created`, gets each item from `output_item.added`, needs a `content_part.added`
 * before any delta into that part, and takes the final response from `response.completed`; a
 * non-streamed response gets `output_text` from its `message` items.
 */
import OpenAI from 'openai';
import type { Response, ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKEND_FLAVORS } from './harness/backend-flavors.js';
import { contextOverflowResponse } from './harness/context-overflow-response.js';
import { createGate } from './harness/create-gate.js';
import { readChatRequest } from './harness/read-chat-request.js';
import {
  AFTER_LOOKUPS,
  AFTER_LOOKUPS_EXPECTED,
  FOLLOW_UP,
  FOLLOW_UP_EXPECTED,
  lookupResult,
} from './harness/responses-scenarios.js';
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

const rig = useClientRig();
let client: OpenAI;

beforeAll(async () => {
  client = new OpenAI({ baseURL: rig.baseURL, apiKey: rig.apiKey, maxRetries: 0 });
});

const PROMPT = 'Count to three in words.';
const tools = [{ type: 'function' as const, name: 'lookup', description: 'Look a value up.', parameters: LOOKUP_PARAMETERS, strict: true }];

/** The text of a reasoning item, in whichever form svir put it (summary or content). */
function reasoningText(response: Response): { summary: string; content: string } {
  const items = response.output.filter((item) => item.type === 'reasoning');
  return {
    summary: items.flatMap((item) => item.summary.map((part) => part.text)).join(''),
    content: items.flatMap((item) => (item.content ?? []).map((part) => part.text)).join(''),
  };
}

/**
 * The reasoning a client displays that reads both forms (Qwen Code, pi): each piece once, in
 * one form or the other, never in both.
 */
function expectReasoning(found: { summary: string; content: string }, expected: string): void {
  expect(found.summary + found.content).toBe(expected);
}

/**
 * The stream's shape (docs/contract.md#responses): `response.created` first, sequence numbers 0, 1,
 * 2..., one terminal event last, every `*.added` closed by its `*.done`.
 */
function expectWellFormed(events: ResponseStreamEvent[]): void {
  expect(events[0]?.type).toBe('response.created');
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  const terminal = events.filter((event) => ['response.completed', 'response.incomplete', 'response.failed'].includes(event.type));
  expect(terminal).toHaveLength(1);
  expect(events.at(-1)).toBe(terminal[0]);
  const open = new Set<string>();
  for (const event of events) {
    if (event.type === 'response.output_item.added') open.add(`item ${event.output_index}`);
    if (event.type === 'response.output_item.done') expect(open.delete(`item ${event.output_index}`)).toBe(true);
    if (event.type === 'response.content_part.added') open.add(`part ${event.output_index}/${event.content_index}`);
    if (event.type === 'response.content_part.done') expect(open.delete(`part ${event.output_index}/${event.content_index}`)).toBe(true);
  }
  expect([...open]).toEqual([]);
}

/**
 * The answer text of a response, from its message items (`finalResponse()` has no `output_text`
 * unless the request had something to parse).
 */
function textOf(response: Response): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content.map((part) => (part.type === 'output_text' ? part.text : '')) : []))
    .join('');
}

/** The function calls of a response, with their arguments parsed. */
function callsOf(response: Response): { id: string; name: string; arguments: unknown }[] {
  return response.output.flatMap((item) =>
    item.type === 'function_call' ? [{ id: item.call_id, name: item.name, arguments: JSON.parse(item.arguments) as unknown }] : [],
  );
}

const lookupArguments = z.object({ value: z.number() });

/** The items of a response a stateless client sends back as history (here: all of them). */
function historyOf(response: Response): ResponseInputItem[] {
  return response.output.flatMap((item) => (item.type === 'message' || item.type === 'function_call' || item.type === 'reasoning' ? [item] : []));
}

/** Runs each call of a response with the test's `lookup` tool. */
function outputsFor(response: Response): ResponseInputItem[] {
  return response.output.flatMap((item) => {
    if (item.type !== 'function_call') return [];
    const args = lookupArguments.parse(JSON.parse(item.arguments));
    return [{ type: 'function_call_output' as const, call_id: item.call_id, output: lookupResult(args.value) }];
  });
}

describe.each(BACKEND_FLAVORS)('openai client on /v1/responses, backend $name', (flavor) => {
  it('responses.create streamed: well-formed events, reasoning, text deltas, usage, the model asked for', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const stream = await client.responses.create({ model: flavor.clientModel, input: PROMPT, stream: true });
    const events: ResponseStreamEvent[] = [];
    let text = '';
    const reasoning = { summary: '', content: '' };
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (event.type === 'response.reasoning_summary_text.delta') reasoning.summary += event.delta;
      if (event.type === 'response.reasoning_text.delta') reasoning.content += event.delta;
    }
    expectWellFormed(events);
    expect(text).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expectReasoning(reasoning, REASONING_AND_TEXT_EXPECTED.reasoning);
    const last = events.at(-1);
    expect(last?.type).toBe('response.completed');
    if (last?.type !== 'response.completed') return;
    const response = last.response;
    expect(response.status).toBe('completed');
    expect(response.model).toBe(flavor.clientModel);
    expect(response.id).toMatch(/^resp_/);
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expectReasoning(reasoningText(response), REASONING_AND_TEXT_EXPECTED.reasoning);
    expect(response.usage).toMatchObject({
      input_tokens: REASONING_AND_TEXT_EXPECTED.usage.prompt_tokens,
      output_tokens: REASONING_AND_TEXT_EXPECTED.usage.completion_tokens,
      total_tokens: REASONING_AND_TEXT_EXPECTED.usage.total_tokens,
      output_tokens_details: { reasoning_tokens: 8 },
    });
    // Both details always (the SDK's types require them), whatever the server reported.
    expect(response.usage?.input_tokens_details.cached_tokens).toEqual(expect.any(Number));
  });

  it('responses.create streamed with reasoning.summary asked: the reasoning as the summary only', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const stream = await client.responses.create({ model: flavor.clientModel, input: PROMPT, stream: true, reasoning: { summary: 'auto' } });
    const reasoning = { summary: '', content: '' };
    let final: Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.reasoning_summary_text.delta') reasoning.summary += event.delta;
      if (event.type === 'response.reasoning_text.delta') reasoning.content += event.delta;
      if (event.type === 'response.completed') final = event.response;
    }
    expect(reasoning).toEqual({ summary: REASONING_AND_TEXT_EXPECTED.reasoning, content: '' });
    expect(final === undefined ? undefined : reasoningText(final)).toEqual({ summary: REASONING_AND_TEXT_EXPECTED.reasoning, content: '' });
  });

  it('responses.create not streamed: a completed response whose output_text is the answer, reasoning beside it', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const response = await client.responses.create({ model: flavor.clientModel, input: PROMPT });
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.model).toBe(flavor.clientModel);
    expect(response.output_text).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(response.output.map((item) => item.type)).toEqual(['reasoning', 'message']);
    expectReasoning(reasoningText(response), REASONING_AND_TEXT_EXPECTED.reasoning);
    expect(response.usage?.total_tokens).toBe(REASONING_AND_TEXT_EXPECTED.usage.total_tokens);
    // What svir asked the backend: the prompt as the user's message.
    const sent = readChatRequest(rig.chatRequestsTo(flavor).at(-1));
    expect(sent.messages.at(-1)).toMatchObject({ role: 'user', text: PROMPT });
  });

  it('responses.stream().finalResponse(): two turns with tools, the second sending the whole history and function_call_output items', async () => {
    rig.scriptTurns(flavor, SPLIT_INTERLEAVED_TOOL_CALLS, AFTER_LOOKUPS);
    const before = rig.chatRequestsTo(flavor).length;
    const input: ResponseInputItem[] = [{ role: 'user', content: 'Look up 1 and 2.' }];
    const first = await client.responses.stream({ model: flavor.clientModel, input, tools, store: false }).finalResponse();
    expect(first.status).toBe('completed');
    expectReasoning(reasoningText(first), SPLIT_INTERLEAVED_EXPECTED.reasoning);
    expect(callsOf(first)).toEqual(SPLIT_INTERLEAVED_EXPECTED.calls);

    // Stateless, as Codex does it: the history as returned, then the results.
    input.push(...historyOf(first), ...outputsFor(first));
    const second = await client.responses.stream({ model: flavor.clientModel, input, tools, store: false }).finalResponse();
    expect(second.status).toBe('completed');
    expect(textOf(second)).toBe(AFTER_LOOKUPS_EXPECTED.content);
    expectReasoning(reasoningText(second), AFTER_LOOKUPS_EXPECTED.reasoning);

    // The backend got one assistant message carrying both calls, then each result as a tool message.
    const sent = readChatRequest(rig.chatRequestsTo(flavor)[before + 1]);
    const assistant = sent.messages.find((message) => message.toolCalls !== undefined);
    expect(assistant?.toolCalls?.map((call) => ({ id: call.id, name: call.name, arguments: JSON.parse(call.arguments) as unknown }))).toEqual(
      SPLIT_INTERLEAVED_EXPECTED.calls,
    );
    expect(sent.messages.filter((message) => message.role === 'tool')).toEqual([
      { role: 'tool', text: 'ten', toolCallId: 'call-a' },
      { role: 'tool', text: 'twenty', toolCallId: 'call-b' },
    ]);
    expect(sent.messages[0]).toMatchObject({ role: 'user', text: 'Look up 1 and 2.' });
  });

  it('previous_response_id: tool results sent by id alone continue the stored conversation; retrieve and delete answer', async () => {
    rig.scriptTurns(flavor, SPLIT_INTERLEAVED_TOOL_CALLS, AFTER_LOOKUPS);
    const before = rig.chatRequestsTo(flavor).length;
    const first = await client.responses.create({ model: flavor.clientModel, input: 'Look up 1 and 2.', tools, instructions: 'Be brief.' });
    expect(callsOf(first)).toEqual(SPLIT_INTERLEAVED_EXPECTED.calls);

    const second = await client.responses.create({
      model: flavor.clientModel,
      previous_response_id: first.id,
      input: outputsFor(first),
      tools,
      instructions: 'Be brief.',
    });
    expect(second.output_text).toBe(AFTER_LOOKUPS_EXPECTED.content);
    expect(second.previous_response_id).toBe(first.id);

    const sent = readChatRequest(rig.chatRequestsTo(flavor)[before + 1]);
    expect(sent.messages[0]).toMatchObject({ role: 'system', text: 'Be brief.' });
    expect(sent.messages.filter((message) => message.role === 'system')).toHaveLength(1);
    expect(sent.messages.filter((message) => message.role === 'user').map((message) => message.text)).toEqual(['Look up 1 and 2.']);
    expect(sent.messages.find((message) => message.toolCalls !== undefined)?.toolCalls?.map((call) => call.id)).toEqual(['call-a', 'call-b']);
    expect(sent.messages.filter((message) => message.role === 'tool').map((message) => [message.toolCallId, message.text])).toEqual([
      ['call-a', 'ten'],
      ['call-b', 'twenty'],
    ]);

    const stored = await client.responses.retrieve(second.id);
    expect(stored.id).toBe(second.id);
    expect(stored.output_text).toBe(AFTER_LOOKUPS_EXPECTED.content);
    await client.responses.delete(second.id);
    await expect(client.responses.retrieve(second.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('previous_response_id with a plain follow-up question, streamed: the earlier answer comes before the new question', async () => {
    rig.scriptTurns(flavor, REASONING_AND_TEXT, FOLLOW_UP);
    const before = rig.chatRequestsTo(flavor).length;
    const first = await client.responses.create({ model: flavor.clientModel, input: PROMPT });
    const second = await client.responses
      .stream({ model: flavor.clientModel, previous_response_id: first.id, input: 'And the next three?' })
      .finalResponse();
    expect(textOf(second)).toBe(FOLLOW_UP_EXPECTED.content);
    const sent = readChatRequest(rig.chatRequestsTo(flavor)[before + 1]);
    expect(sent.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(sent.messages[0]?.text).toBe(PROMPT);
    // The answer, whatever form the earlier reasoning is sent back in for this backend.
    expect(sent.messages[1]?.text).toContain(REASONING_AND_TEXT_EXPECTED.content);
    expect(sent.messages[2]?.text).toBe('And the next three?');
  });

  it('a built-in tool (web_search, which Codex sends every turn) is dropped with a note in x-svir-changes; the function tools reach the backend', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const { data, response } = await client.responses
      .create({ model: flavor.clientModel, input: PROMPT, tools: [...tools, { type: 'web_search' }] })
      .withResponse();
    expect(data.status).toBe('completed');
    expect(response.headers.get('x-svir-changes')).toContain('web_search');
    expect(readChatRequest(rig.chatRequestsTo(flavor).at(-1)).tools).toEqual(['lookup']);
  });

  it('an unknown previous_response_id is a 404 in the one error shape', async () => {
    const failure = await client.responses
      .create({ model: flavor.clientModel, previous_response_id: 'resp_does_not_exist', input: 'Hello?' })
      .then(() => undefined, (err: unknown) => err);
    expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('a failure after the stream began ends it with response.failed carrying svir\'s error, after the partial text', async () => {
    const gate = createGate();
    rig.script(flavor, MID_STREAM_FAILURE, { failAfter: gate.opened });
    const stream = await client.responses.create({ model: flavor.clientModel, input: 'Count.', stream: true });
    const events: ResponseStreamEvent[] = [];
    let text = '';
    for await (const event of stream) {
      events.push(event);
      if (event.type === 'response.output_text.delta') text += event.delta;
      if (text === MID_STREAM_FAILURE_EXPECTED.partialContent) gate.open();
    }
    expect(text).toBe(MID_STREAM_FAILURE_EXPECTED.partialContent);
    expectWellFormed(events);
    const last = events.at(-1);
    expect(last?.type).toBe('response.failed');
    if (last?.type !== 'response.failed') return;
    expect(last.response.status).toBe('failed');
    expect(last.response.error?.code).toBe('upstream_error');
    expect(last.response.error?.message).toContain(flavor.name);
  });

  const overflow = contextOverflowResponse(flavor.dialect);
  it.runIf(overflow !== undefined)('a prompt the backend has no room for is a 400 with code context_length_exceeded', async () => {
    if (overflow === undefined) return;
    rig.scriptRaw(flavor, overflow);
    const failure = await client.responses
      .create({ model: flavor.clientModel, input: 'A very long prompt.', stream: true })
      .then(() => undefined, (err: unknown) => err);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    if (!(failure instanceof OpenAI.BadRequestError)) return;
    expect(failure.code).toBe('context_length_exceeded');
  });
});
