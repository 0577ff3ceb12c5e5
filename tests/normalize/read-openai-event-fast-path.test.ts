/**
 * readOpenAIEvent reads the common chunk shape (texts or tool-call pieces) with typeof checks and
 * everything else with zod.
 * The two must never disagree: each random chunk is read as it is (one choice, or none: the
 * fast path when the fields have the expected types) and with an extra choice at index 1 that
 * the reader passes over, which always sends it through zod. Seeded, so deterministic.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Part } from '../../src/normalize/parts.js';
import { readOpenAIEvent } from '../../src/normalize/read-openai-event.js';
import { fixtureContext } from '../helpers/replay-fixture.js';

const read = (chunk: unknown, logprobs: boolean): Part[] =>
  readOpenAIEvent({ event: undefined, data: JSON.stringify(chunk) }, fixtureContext({ backend: 'b', logprobs }));

/** Mostly the expected type, sometimes another one, sometimes null or absent. */
function field<T>(expected: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 6, arbitrary: expected },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}

const text = fc.oneof(fc.constant(''), fc.string({ maxLength: 6 }), fc.constantFrom('<think>', 'a', 'b'));

/** A tool-call piece, mostly well formed; its index at the edges of what zod's int() takes. */
const toolPiece = field(
  fc.record(
    {
      index: field(fc.oneof(fc.nat(3), fc.constantFrom(-0, -1, 0.5, 2 ** 53 - 1, 2 ** 53))),
      id: field(fc.constantFrom('', 'call_1', 'call_2')),
      type: fc.constant('function'),
      function: field(fc.record({ name: field(fc.constantFrom('', 'f', 'lookup')), arguments: field(text) }, { requiredKeys: [] })),
    },
    { requiredKeys: [] },
  ),
);

const delta = field(
  fc.record(
    {
      role: fc.constant('assistant'),
      content: field(text),
      reasoning_content: field(text),
      reasoning: field(text),
      refusal: field(text),
      tool_calls: fc.oneof(
        fc.constant(null),
        fc.constant([{ index: 0, id: 'call_1', function: { name: 'f', arguments: '{"a":' } }]),
        fc.array(toolPiece, { maxLength: 3 }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    },
    { requiredKeys: [] },
  ),
);

const choice = fc.record(
  {
    index: fc.oneof(fc.constant(0), fc.constant(null), fc.constant(1)),
    delta,
    logprobs: field(fc.record({ content: fc.array(fc.record({ token: text, logprob: fc.double({ noNaN: true, noDefaultInfinity: true }) }), { maxLength: 2 }) })),
    finish_reason: field(fc.constantFrom('stop', 'length', 'tool_calls')),
  },
  { requiredKeys: [] },
);

const chunk = fc.record(
  {
    id: field(fc.constantFrom('', 'chatcmpl-1', 'x'.repeat(300))),
    created: field(fc.constantFrom(0, 1_700_000_000, -1)),
    model: fc.constant('m'),
    object: fc.constant('chat.completion.chunk'),
    choices: fc.oneof(fc.constant([]), fc.constant(null), choice.map((c) => [c])),
    usage: field(fc.record({ prompt_tokens: fc.nat(9), completion_tokens: fc.nat(9), total_tokens: fc.nat(20) })),
    error: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.constant({ message: 'boom' }) }),
  },
  { requiredKeys: ['choices'] },
);

/** The same chunk with a choice the reader passes over: never the fast path. */
function throughZod(value: Record<string, unknown>): Record<string, unknown> {
  const choices = value.choices;
  const extra = { index: 1, delta: { content: 'another choice' } };
  return { ...value, choices: Array.isArray(choices) && choices.length > 0 ? [...choices, extra] : [extra] };
}

describe('readOpenAIEvent: the common-shape reading agrees with zod', () => {
  it('gives the same parts for seeded random chunks, with and without logprobs asked', () => {
    fc.assert(
      fc.property(chunk, fc.boolean(), (value, logprobs) => {
        expect(read(value, logprobs)).toEqual(read(throughZod(value), logprobs));
      }),
      { seed: 0x0fa5, numRuns: 4_000 },
    );
  });

  it('gives the same parts for seeded random tool-call pieces', () => {
    const toolChunk = fc.record({
      id: fc.constant('chatcmpl-1'),
      choices: fc.tuple(fc.record({ index: fc.constant(0), delta: fc.record({ tool_calls: fc.array(toolPiece, { maxLength: 3 }) }) })),
    });
    fc.assert(
      fc.property(toolChunk, (value) => {
        expect(read(value, false)).toEqual(read(throughZod(value), false));
      }),
      { seed: 0x7001, numRuns: 2_000 },
    );
  });

  it('still reads the usual chunks as before', () => {
    const parts = read(
      { id: 'c1', created: 5, choices: [{ index: 0, delta: { content: 'hi', reasoning_content: 'hm' }, logprobs: null, finish_reason: 'stop' }] },
      false,
    );
    expect(parts).toEqual([
      { kind: 'meta', id: 'c1', created: 5 },
      { kind: 'reasoning', text: 'hm' },
      { kind: 'content', text: 'hi' },
      { kind: 'finish', reason: 'stop' },
    ]);
    const wrong = read({ id: 'c1', choices: [{ index: 0, delta: { content: 5 } }] }, false);
    expect(wrong).toHaveLength(1);
    expect(wrong[0]?.kind).toBe('error');
  });
});
