import { describe, expect, it } from 'vitest';
import { SvirError } from '../../src/errors.js';
import type { Part, SseEvent } from '../../src/normalize/parts.js';
import { readOpenAIEvent } from '../../src/normalize/read-openai-event.js';
import { fixtureContext } from '../helpers/replay-fixture.js';

const ctx = fixtureContext({ backend: 'local-llm' });
const read = (data: unknown, event?: string): Part[] =>
  readOpenAIEvent({ event, data: typeof data === 'string' ? data : JSON.stringify(data) } satisfies SseEvent, ctx);
const chunk = (delta: unknown, extra: Record<string, unknown> = {}, choice: Record<string, unknown> = {}): unknown => ({
  id: 'c1',
  created: 100,
  model: 'server-model',
  choices: [{ index: 0, delta, finish_reason: null, ...choice }],
  ...extra,
});

function errorOf(parts: Part[]): SvirError {
  expect(parts).toHaveLength(1);
  const part = parts[0];
  if (part?.kind !== 'error') throw new Error(`expected an error part, got ${JSON.stringify(parts)}`);
  return part.error;
}

describe('readOpenAIEvent: framing', () => {
  it('reads [DONE] as the end', () => {
    expect(read('[DONE]')).toEqual([{ kind: 'done' }]);
    expect(read(' [DONE] ')).toEqual([{ kind: 'done' }]);
  });

  it('reads events of other types as nothing', () => {
    expect(read('ping', 'ping')).toEqual([]);
    expect(read({ choices: [{ index: 0, delta: { content: 'x' } }] }, 'delta')).toEqual([]);
  });

  it('reads an event without data as nothing', () => {
    expect(read('')).toEqual([]);
    expect(read('  ')).toEqual([]);
  });

  it('reads data that is not JSON as an unreadable chunk', () => {
    for (const data of ['{"choices":[', 'hello', '<html>']) {
      const error = errorOf(read(data));
      expect(error.code).toBe('upstream_error');
      expect(error.source).toBe('upstream');
      expect(error.message).toContain('unreadable chunk');
      expect(error.message).toContain('local-llm');
    }
  });

  it('reads JSON that is not a chunk object as unreadable', () => {
    for (const data of ['42', '"text"', '[1,2]', 'null', '{"choices":"nope"}', '{"choices":[{"index":0,"delta":{"content":5}}]}']) {
      expect(errorOf(read(data)).message, data).toContain('unreadable chunk');
    }
  });
});

describe('readOpenAIEvent: upstream errors', () => {
  it('reads an error chunk through mapUpstreamError (llama.cpp, docs/wire-protocol.md#errors-inside-the-stream)', () => {
    const error = errorOf(
      read({ error: { code: 500, message: 'The model produced output that does not match the expected peg-native format', type: 'server_error' } }),
    );
    expect(error.code).toBe('upstream_error');
    expect(error.source).toBe('upstream');
    expect(error.message).toContain('local-llm');
    expect(error.message).toContain('peg-native format');
  });

  it('reads `event: error` through mapUpstreamError (LM Studio, docs/wire-protocol.md#errors-inside-the-stream)', () => {
    const error = errorOf(
      read(
        {
          error: { message: 'The number of tokens to keep from the initial prompt is greater than the context length' },
          message: 'The number of tokens to keep from the initial prompt is greater than the context length',
        },
        'error',
      ),
    );
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toContain('maximum context length');
  });

  it('reads `event: error` with data that is not JSON as an error all the same', () => {
    const error = errorOf(read('something broke', 'error'));
    expect(error.source).toBe('upstream');
    expect(error.message).toContain('local-llm');
  });

  it('reads an error body at the top level without an error key (older vLLM) as an error, keeping its message', () => {
    const midStream = errorOf(read({ object: 'error', message: 'CUDA error: an illegal memory access was encountered', type: 'InternalServerError', param: null, code: 500 }));
    expect(midStream.code).toBe('upstream_error');
    expect(midStream.source).toBe('upstream');
    expect(midStream.message).toContain('local-llm');
    expect(midStream.message).toContain('illegal memory access');
    const rejected = errorOf(read({ object: 'error', message: 'top_k must be -1 (disable), or at least 1, got 0.', type: 'BadRequestError', code: 400 }));
    expect(rejected.code).toBe('invalid_request');
    expect(rejected.status).toBe(400);
    expect(rejected.message).toContain('top_k must be -1');
    // Without any message it still is an error, in svir's words.
    expect(errorOf(read({ object: 'error' })).code).toBe('upstream_error');
  });

  it('ignores an error key set to null', () => {
    expect(read(chunk({ content: 'a' }, { error: null }))).toEqual([
      { kind: 'meta', id: 'c1', created: 100 },
      { kind: 'content', text: 'a' },
    ]);
  });
});

describe('readOpenAIEvent: chunks', () => {
  it('reads identity, leaving out empty id and zero created', () => {
    expect(read(chunk({}, { id: '', created: 0 }))).toEqual([]);
    expect(read(chunk({}, { id: 'x', created: 0 }))).toEqual([{ kind: 'meta', id: 'x' }]);
    expect(read(chunk({}, { id: null, created: 5 }))).toEqual([{ kind: 'meta', created: 5 }]);
    // Identity written oddly is passed over rather than failing the stream.
    expect(read(chunk({ content: 'a' }, { id: 7, created: 'yesterday' }))).toEqual([{ kind: 'content', text: 'a' }]);
  });

  it('reads content, refusal and role-only deltas (role is the normalizer’s)', () => {
    expect(read(chunk({ role: 'assistant', content: 'Hi' }))).toEqual([
      { kind: 'meta', id: 'c1', created: 100 },
      { kind: 'content', text: 'Hi' },
    ]);
    expect(read(chunk({ role: 'assistant', content: null, refusal: 'I cannot' })).slice(1)).toEqual([{ kind: 'refusal', text: 'I cannot' }]);
    expect(read(chunk({ role: 'assistant', content: '' })).slice(1)).toEqual([]);
  });

  it('reads reasoning under either key, once when both say the same', () => {
    expect(read(chunk({ reasoning_content: 'a' })).slice(1)).toEqual([{ kind: 'reasoning', text: 'a' }]);
    expect(read(chunk({ reasoning: 'b' })).slice(1)).toEqual([{ kind: 'reasoning', text: 'b' }]);
    expect(read(chunk({ reasoning_content: 'same', reasoning: 'same' })).slice(1)).toEqual([{ kind: 'reasoning', text: 'same' }]);
    expect(read(chunk({ reasoning: 'two', reasoning_content: 'one' })).slice(1)).toEqual([
      { kind: 'reasoning', text: 'one' },
      { kind: 'reasoning', text: 'two' },
    ]);
    expect(read(chunk({ reasoning_content: '', reasoning: 'r' })).slice(1)).toEqual([{ kind: 'reasoning', text: 'r' }]);
  });

  it('reads reasoning before content within one delta', () => {
    expect(read(chunk({ content: 'c', reasoning_content: 'r' })).slice(1)).toEqual([
      { kind: 'reasoning', text: 'r' },
      { kind: 'content', text: 'c' },
    ]);
  });

  it('reads tool-call pieces, an index-less piece at its place in the delta', () => {
    expect(
      read(
        chunk({
          tool_calls: [
            { index: 1, id: 'b', type: 'function', function: { name: 'look', arguments: '{' } },
            { id: 'a', function: { name: 'f' } },
            { index: 2, function: { arguments: '' } },
            { index: 3, id: '', function: { name: '', arguments: null } },
            { index: 4 },
          ],
        }),
      ).slice(1),
    ).toEqual([
      { kind: 'tool', index: 1, id: 'b', name: 'look', arguments: '{' },
      { kind: 'tool', index: 1, id: 'a', name: 'f' },
      { kind: 'tool', index: 2, arguments: '' },
      { kind: 'tool', index: 3 },
      { kind: 'tool', index: 4 },
    ]);
  });

  it('reads the finish reason and non-null logprobs', () => {
    const logprobs = { content: [{ token: 'a', logprob: -1 }] };
    expect(read(chunk({ content: 'a' }, {}, { logprobs, finish_reason: 'length' })).slice(1)).toEqual([
      { kind: 'content', text: 'a' },
      { kind: 'logprobs', value: logprobs },
      { kind: 'finish', reason: 'length' },
    ]);
    expect(read(chunk({}, {}, { logprobs: null, finish_reason: '' })).slice(1)).toEqual([]);
  });

  it('reads only the choice with index 0', () => {
    const data = {
      id: 'c1',
      choices: [
        { index: 1, delta: { content: 'other' } },
        { index: 0, delta: { content: 'mine' } },
      ],
    };
    expect(read(data).slice(1)).toEqual([{ kind: 'content', text: 'mine' }]);
    // A choice of another index may have any shape: it is not read.
    expect(read({ choices: [{ index: 1, delta: { content: 5 } }, { delta: { content: 'no index' } }] })).toEqual([
      { kind: 'content', text: 'no index' },
    ]);
  });

  it('reads a usage chunk with empty choices, keeping only known fields', () => {
    expect(
      read({
        id: 'c1',
        object: 'chat.completion',
        choices: [],
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          total_tokens: 15,
          prompt_tokens_details: { cached_tokens: 3, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 2, accepted_prediction_tokens: 0 },
          timings: { prompt_per_second: 100 },
        },
        timings: { predicted_per_second: 42 },
      }),
    ).toEqual([
      { kind: 'meta', id: 'c1' },
      {
        kind: 'usage',
        usage: {
          prompt_tokens: 10,
          completion_tokens: 5,
          total_tokens: 15,
          completion_tokens_details: { reasoning_tokens: 2 },
          prompt_tokens_details: { cached_tokens: 3 },
        },
      },
    ]);
  });

  it('passes over null keys and unknown keys (mlx-vlm, vLLM, Azure extras)', () => {
    const data = {
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 100,
      model: '/models/qwen',
      system_fingerprint: null,
      obfuscation: 'xyz',
      prompt_token_ids: null,
      usage: null,
      timings: { predicted_per_second: 30 },
      choices: [
        {
          index: 0,
          delta: {
            role: 'assistant',
            content: 'x',
            reasoning_content: null,
            reasoning: null,
            refusal: null,
            tool_calls: null,
            tool_call_id: null,
            name: null,
            audio: { id: 'a' },
          },
          logprobs: null,
          finish_reason: null,
          token_ids: null,
          content_filter_results: {},
        },
      ],
    };
    expect(read(data)).toEqual([
      { kind: 'meta', id: 'c1', created: 100 },
      { kind: 'content', text: 'x' },
    ]);
  });

  it('reads a choice without a delta (Azure annotations) as nothing', () => {
    expect(
      read({
        choices: [{ content_filter_offsets: { check_offset: 1 }, content_filter_results: {}, finish_reason: null, index: 0 }],
        created: 0,
        id: '',
        model: '',
        object: '',
      }),
    ).toEqual([]);
  });
});
