/**
 * The `openai` npm client through svir, in front of a fake server of every backend type. Each
 * test replays what that server sends in its own dialect and asserts what the client made of
 * svir's clean stream, so it fails as soon as svir's output breaks this client: a split tool name
 * (the stream helper replaces names, it does not join them), interleaved calls (its
 * `arguments.done` event fires on the next index), a missing `type` or finish, a second role, a
 * server path in `model`.
 */
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKEND_FLAVORS } from './harness/backend-flavors.js';
import { createGate } from './harness/create-gate.js';
import {
  LOOKUP_TOOL,
  MID_STREAM_FAILURE,
  MID_STREAM_FAILURE_EXPECTED,
  REASONING_AND_TEXT,
  REASONING_AND_TEXT_EXPECTED,
  SPLIT_INTERLEAVED_EXPECTED,
  SPLIT_INTERLEAVED_TOOL_CALLS,
} from './harness/scenarios.js';
import { useClientRig } from './harness/use-client-rig.js';

/** The reasoning key is not part of the client's types: read it as unknown data. */
const withReasoning = z.looseObject({ reasoning_content: z.string().optional() });
const reasoningOf = (value: unknown): string => withReasoning.safeParse(value).data?.reasoning_content ?? '';

const rig = useClientRig();
let client: OpenAI;

beforeAll(async () => {
  client = new OpenAI({ baseURL: rig.baseURL, apiKey: rig.apiKey, maxRetries: 0 });
});

const messages = [{ role: 'user' as const, content: 'Count to three in words.' }];
const tools = [{ ...LOOKUP_TOOL, function: { ...LOOKUP_TOOL.function, strict: true } }];

describe.each(BACKEND_FLAVORS)('openai client, backend $name', (flavor) => {
  it('chat.completions.create streamed: reasoning_content, content, one role, one finish, usage, the model asked for', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const stream = await client.chat.completions.create({
      model: flavor.clientModel,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = '';
    let reasoning = '';
    const roles: string[] = [];
    const finishes: string[] = [];
    const usages: unknown[] = [];
    const ids = new Set<string>();
    for await (const chunk of stream) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.model).toBe(flavor.clientModel);
      ids.add(chunk.id);
      if (chunk.usage) usages.push(chunk.usage);
      const choice = chunk.choices[0];
      if (choice === undefined) continue;
      expect(chunk.choices).toHaveLength(1);
      if (choice.delta.role) roles.push(choice.delta.role);
      content += choice.delta.content ?? '';
      reasoning += reasoningOf(choice.delta);
      if (choice.finish_reason) finishes.push(choice.finish_reason);
    }
    expect(content).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(reasoning).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);
    expect(roles).toEqual(['assistant']);
    expect(finishes).toEqual(['stop']);
    expect(ids.size).toBe(1);
    expect(usages).toHaveLength(1);
    expect(usages[0]).toMatchObject(REASONING_AND_TEXT_EXPECTED.usage);
  });

  it('chat.completions.create not streamed: one chat.completion with reasoning_content beside the content', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const completion = await client.chat.completions.create({ model: flavor.clientModel, messages });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(flavor.clientModel);
    expect(completion.choices).toHaveLength(1);
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.role).toBe('assistant');
    expect(choice?.message.content).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(reasoningOf(choice?.message)).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);
    // Usage was not asked for in a stream here; a non-streamed completion reports what the server said.
    expect(completion.usage).toMatchObject(REASONING_AND_TEXT_EXPECTED.usage);
  });

  it('chat.completions.stream(): finalChatCompletion() has the split, interleaved calls whole (reference 3.3)', async () => {
    rig.script(flavor, SPLIT_INTERLEAVED_TOOL_CALLS);
    const runner = client.chat.completions.stream({ model: flavor.clientModel, messages, tools });
    const done: { name: string; index: number; parsed: unknown }[] = [];
    // With strict tools the helper parses each call's arguments the moment it thinks the call is
    // complete (when the next index starts): interleaved pieces would make it parse half a call.
    runner.on('tool_calls.function.arguments.done', (event) => {
      done.push({ name: event.name, index: event.index, parsed: event.parsed_arguments });
    });
    const completion = await runner.finalChatCompletion();
    expect(completion.model).toBe(flavor.clientModel);
    const choice = completion.choices[0];
    expect(choice?.finish_reason).toBe('tool_calls');
    const calls = choice?.message.tool_calls ?? [];
    expect(
      calls.map((call) => (call.type === 'function' ? { id: call.id, name: call.function.name, arguments: JSON.parse(call.function.arguments) } : call)),
    ).toEqual(SPLIT_INTERLEAVED_EXPECTED.calls);
    expect(calls.every((call) => call.type === 'function')).toBe(true);
    expect(done).toEqual(
      SPLIT_INTERLEAVED_EXPECTED.calls.map((call, index) => ({ name: call.name, index, parsed: call.arguments })),
    );
  });

  it('a failure after the stream began throws an APIError carrying svir\'s error, after the partial answer', async () => {
    const gate = createGate();
    rig.script(flavor, MID_STREAM_FAILURE, { failAfter: gate.opened });
    const stream = await client.chat.completions.create({ model: flavor.clientModel, messages, stream: true });
    let content = '';
    const failure = await (async () => {
      try {
        for await (const chunk of stream) {
          content += chunk.choices[0]?.delta.content ?? '';
          if (content === MID_STREAM_FAILURE_EXPECTED.partialContent) gate.open();
        }
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(content).toBe(MID_STREAM_FAILURE_EXPECTED.partialContent);
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    if (!(failure instanceof OpenAI.APIError)) return;
    expect(failure.code).toBe('upstream_error');
    expect(failure.type).toBe('upstream_error');
    expect(failure.message).toContain(flavor.name);
  });
});
