import { describe, expect, it } from 'vitest';
import type { StreamContext } from '../../src/normalize/stream-context.js';
import { SvirError } from '../../src/errors.js';
import type { CleanChunk } from '../../src/normalize/clean-chunk.js';
import { foldChunks } from '../../src/normalize/fold-chunks.js';
import { createNormalizer } from '../../src/normalize/normalizer.js';
import type { Part } from '../../src/normalize/parts.js';
import { fixtureContext, fixtureDeps, runFixture } from '../helpers/replay-fixture.js';

/** The clean chunks of a completed stream made of these events. */
function stream(events: Part[][], ctx: Partial<StreamContext> = {}): CleanChunk[] {
  const normalizer = createNormalizer(fixtureContext(ctx), fixtureDeps());
  const chunks = [...events, [{ kind: 'done' } as const]].flatMap((parts) => normalizer.push(parts).chunks);
  return chunks;
}

describe('foldChunks', () => {
  it('folds an answer with reasoning and usage', () => {
    const chunks = stream(
      [
        [{ kind: 'meta', id: 'up', created: 42 }, { kind: 'reasoning', text: 'Let me ' }],
        [{ kind: 'reasoning', text: 'think.' }],
        [{ kind: 'content', text: '\n\nHello' }],
        [{ kind: 'content', text: ' there.' }, { kind: 'finish', reason: 'stop' }],
        [{ kind: 'usage', usage: { prompt_tokens: 3, completion_tokens: 7, total_tokens: 10 } }],
      ],
      { includeUsage: true },
    );
    expect(foldChunks(chunks, { reasoningField: 'reasoning_content' })).toEqual({
      id: 'up',
      object: 'chat.completion',
      created: 42,
      model: 'client-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello there.', refusal: null, reasoning_content: 'Let me think.' },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 7, total_tokens: 10 },
    });
  });

  it('folds tool calls, with content null when the answer had none', () => {
    const chunks = stream(
      [
        [
          { kind: 'tool', index: 0, id: 'a', name: 'look', arguments: '{"v":' },
          { kind: 'tool', index: 1, id: 'b', name: 'lookup', arguments: '{"v":' },
        ],
        [
          { kind: 'tool', index: 1, arguments: '2}' },
          { kind: 'tool', index: 0, name: 'up', arguments: '1}' },
        ],
        [{ kind: 'finish', reason: 'tool_calls' }],
      ],
      { toolNames: ['lookup'] },
    );
    const folded = foldChunks(chunks, { reasoningField: 'reasoning_content' });
    expect(folded.choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'lookup', arguments: '{"v":1}' } },
        { id: 'b', type: 'function', function: { name: 'lookup', arguments: '{"v":2}' } },
      ],
    });
    expect(folded.choices[0].finish_reason).toBe('tool_calls');
    expect('usage' in folded).toBe(false);
  });

  it('folds a refusal and reasoning under a configured key', () => {
    const chunks = stream([[{ kind: 'reasoning', text: 'r' }, { kind: 'refusal', text: "I can't " }], [{ kind: 'refusal', text: 'help.' }]], {
      reasoningField: 'thinking',
    });
    expect(foldChunks(chunks, { reasoningField: 'thinking' }).choices[0].message).toEqual({
      role: 'assistant',
      content: null,
      refusal: "I can't help.",
      thinking: 'r',
    });
  });

  it('joins logprobs across chunks', () => {
    const chunks = stream(
      [
        [{ kind: 'content', text: 'a' }, { kind: 'logprobs', value: { content: [{ token: 'a' }], refusal: null } }],
        [{ kind: 'content', text: 'b' }, { kind: 'logprobs', value: { content: [{ token: 'b' }] } }],
      ],
      { logprobs: true },
    );
    expect(foldChunks(chunks, { reasoningField: 'reasoning_content' }).choices[0].logprobs).toEqual({
      content: [{ token: 'a' }, { token: 'b' }],
      refusal: null,
    });
  });

  it('folds the output of a replayed stream the same as what a streaming client reads', () => {
    const outcome = runFixture(
      'data: {"id":"x","choices":[{"index":0,"delta":{"content":"<think>hm</think>\\n\\nOK"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
    );
    const message = foldChunks(outcome.chunks, { reasoningField: 'reasoning_content' }).choices[0].message;
    expect(message).toEqual({ role: 'assistant', content: 'OK', refusal: null, reasoning_content: 'hm' });
  });

  it('refuses to fold a stream that never finished', () => {
    const normalizer = createNormalizer(fixtureContext(), fixtureDeps());
    const partial = normalizer.push([{ kind: 'content', text: 'a' }]).chunks;
    expect(() => foldChunks(partial, { reasoningField: 'reasoning_content' })).toThrow(SvirError);
    expect(() => foldChunks([], { reasoningField: 'reasoning_content' })).toThrow(SvirError);
  });
});
