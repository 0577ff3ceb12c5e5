/**
 * LangChain's ChatOpenAI (`@langchain/openai`, Chat Completions, `configuration.baseURL`) through
 * svir, in front of a fake server of every backend type. What this client needs (read in its
 * source): reasoning under `reasoning_content` exactly (it reads no `reasoning` key), which
 * it keeps in `additional_kwargs` and joins across chunks; tool call chunks merged by index,
 * where a later piece's `name` replaces the earlier one (so a split name would survive as its
 * last half) and a repeated `id` would be kept, not joined; an overflow recognised by
 * "maximum context length" or `context_length_exceeded`.
 */
import { ContextOverflowError } from '@langchain/core/errors';
import type { AIMessageChunk } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BACKEND_FLAVORS, type BackendFlavor } from './harness/backend-flavors.js';
import { createGate } from './harness/create-gate.js';
import { contextOverflowResponse } from './harness/context-overflow-response.js';
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

const rig = useClientRig();

function chatModel(flavor: BackendFlavor, streaming = true): ChatOpenAI {
  return new ChatOpenAI({
    model: flavor.clientModel,
    apiKey: rig.apiKey,
    configuration: { baseURL: rig.baseURL },
    maxRetries: 0,
    streaming,
  });
}

const reasoningKwarg = z.looseObject({ reasoning_content: z.string() });

async function collect(stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk | undefined> {
  let merged: AIMessageChunk | undefined;
  for await (const chunk of stream) merged = merged === undefined ? chunk : merged.concat(chunk);
  return merged;
}

describe.each(BACKEND_FLAVORS)('LangChain ChatOpenAI, backend $name', (flavor) => {
  it('stream: content, reasoning_content joined in additional_kwargs, usage metadata', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const merged = await collect(await chatModel(flavor).stream('Count to three in words.'));
    expect(merged?.content).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(reasoningKwarg.parse(merged?.additional_kwargs).reasoning_content).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);
    expect(merged?.usage_metadata).toMatchObject({
      input_tokens: REASONING_AND_TEXT_EXPECTED.usage.prompt_tokens,
      output_tokens: REASONING_AND_TEXT_EXPECTED.usage.completion_tokens,
      total_tokens: REASONING_AND_TEXT_EXPECTED.usage.total_tokens,
    });
    expect(merged?.response_metadata['finish_reason']).toBe('stop');
  });

  it('stream with tools: the tool call chunks of the split, interleaved calls merge into whole calls', async () => {
    rig.script(flavor, SPLIT_INTERLEAVED_TOOL_CALLS);
    const model = chatModel(flavor).bindTools([LOOKUP_TOOL]);
    const merged = await collect(await model.stream('Look up 1 and 2.'));
    expect(merged?.tool_calls).toEqual(
      SPLIT_INTERLEAVED_EXPECTED.calls.map((call) => ({ id: call.id, name: call.name, args: call.arguments, type: 'tool_call' })),
    );
    expect(merged?.invalid_tool_calls).toEqual([]);
    expect(reasoningKwarg.parse(merged?.additional_kwargs).reasoning_content).toBe(SPLIT_INTERLEAVED_EXPECTED.reasoning);
    expect(merged?.response_metadata['finish_reason']).toBe('tool_calls');
  });

  it('invoke without streaming: reasoning_content in additional_kwargs, content, tool calls', async () => {
    rig.script(flavor, REASONING_AND_TEXT);
    const answer = await chatModel(flavor, false).invoke('Count to three in words.');
    expect(answer.content).toBe(REASONING_AND_TEXT_EXPECTED.content);
    expect(reasoningKwarg.parse(answer.additional_kwargs).reasoning_content).toBe(REASONING_AND_TEXT_EXPECTED.reasoning);

    rig.script(flavor, SPLIT_INTERLEAVED_TOOL_CALLS);
    const called = await chatModel(flavor, false).bindTools([LOOKUP_TOOL]).invoke('Look up 1 and 2.');
    expect(called.tool_calls).toEqual(
      SPLIT_INTERLEAVED_EXPECTED.calls.map((call) => ({ id: call.id, name: call.name, args: call.arguments, type: 'tool_call' })),
    );
  });

  it('stream: a failure mid-stream rejects the iteration with svir\'s error after the partial answer', async () => {
    const gate = createGate();
    rig.script(flavor, MID_STREAM_FAILURE, { failAfter: gate.opened });
    let content = '';
    const failure = await (async () => {
      try {
        for await (const chunk of await chatModel(flavor).stream('Count.')) {
          content += typeof chunk.content === 'string' ? chunk.content : '';
          if (content === MID_STREAM_FAILURE_EXPECTED.partialContent) gate.open();
        }
      } catch (err) {
        return err;
      }
      return undefined;
    })();
    expect(content).toBe(MID_STREAM_FAILURE_EXPECTED.partialContent);
    expect(failure).toBeInstanceOf(Error);
    expect(z.object({ code: z.string() }).parse(failure).code).toBe('upstream_error');
  });

});

/** mlx-lm checks no context limit: it has no overflow to report. */
const OVERFLOWING = BACKEND_FLAVORS.flatMap((flavor) => {
  const response = contextOverflowResponse(flavor.dialect);
  return response === undefined ? [] : [{ ...flavor, response }];
});

describe.each(OVERFLOWING)('LangChain ChatOpenAI, context overflow from backend $name', (flavor) => {
  it("a prompt over the context, in this server's wording and channel, is LangChain's ContextOverflowError", async () => {
    rig.scriptRaw(flavor, flavor.response);
    const failure = await chatModel(flavor)
      .invoke('A very long prompt.')
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(ContextOverflowError.isInstance(failure)).toBe(true);
  });
});
