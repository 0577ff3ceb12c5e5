/**
 * The Messages stream and message object, as sinks of the item machine
 * (src/messages/messages-stream-sink.ts, message-fold-sink.ts): event sequences by table, the
 * stream rules and the same events at seeded splits on every generic fixture, the fold equal
 * to what the stream carried (tests/clients/anthropic-sdk.test.ts has the SDK read them).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SvirError } from '../../src/errors.js';
import type { MessageFoldSink } from '../../src/messages/message-fold-sink.js';
import { toMessagesFailure } from '../../src/messages/messages-failure.js';
import { loadFixtures, runLoadedFixture, splitAtSeededOffsets } from '../helpers/replay-fixture.js';
import { expectMessagesStream, type MessagesEvent } from './expect-messages-stream.js';
import { chunk, run, usageChunk } from './run-sinks.js';

describe('event sequences', () => {
  it('reasoning, text and a tool call: three blocks, input_json_delta pieces joining to the arguments, stop_reason tool_use', () => {
    const { events, fold } = run([
      chunk({ role: 'assistant', reasoning_content: 'Let me ' }),
      chunk({ reasoning_content: 'check.' }),
      chunk({ content: 'Running.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'Bash', arguments: '{"comm' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'and":"ls"}' } }] }),
      chunk({}, 'tool_calls'),
      usageChunk({ prompt_tokens: 30, completion_tokens: 9, total_tokens: 39, prompt_tokens_details: { cached_tokens: 10 } }),
    ]);
    expectMessagesStream(events);
    expect(events).toEqual([
      {
        type: 'message_start',
        message: {
          id: 'msg_test', type: 'message', role: 'assistant', model: 'client-model', content: [], stop_reason: null, stop_sequence: null,
          usage: { input_tokens: 11, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'check.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Running.' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_1', name: 'Bash', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"comm' } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: 'and":"ls"}' } },
      { type: 'content_block_stop', index: 2 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use', stop_sequence: null },
        usage: { input_tokens: 20, output_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 10 },
      },
      { type: 'message_stop' },
    ]);
    expect(fold.message.content).toEqual([
      { type: 'thinking', thinking: 'Let me check.', signature: '' },
      { type: 'text', text: 'Running.' },
      { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: 'ls' } },
    ]);
    expect(fold.message.stop_reason).toBe('tool_use');
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
  ] as const)('finish %s is stop_reason %s', (finish, stop) => {
    const { events, fold } = run([chunk({ content: 'Hi' }), chunk({}, finish)]);
    expectMessagesStream(events);
    expect(events.at(-2)).toMatchObject({ type: 'message_delta', delta: { stop_reason: stop } });
    expect(fold.message.stop_reason).toBe(stop);
  });

  it('a call the server finished with stop is still stop_reason tool_use', () => {
    const { events } = run([chunk({ tool_calls: [{ index: 0, id: 'c1', type: 'function', function: { name: 'a', arguments: '{}' } }] }), chunk({}, 'stop')]);
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('text then a refusal: two text blocks', () => {
    const { events } = run([chunk({ content: 'I ' }), chunk({ refusal: 'cannot.' }), chunk({}, 'stop')]);
    expectMessagesStream(events);
    expect(events.filter((e) => e.type === 'content_block_start')).toHaveLength(2);
  });

  it('a failure after the first event: the open block is closed, then one error event in Anthropic\'s shape', () => {
    const failure = toMessagesFailure(new SvirError('upstream_error', { source: 'upstream', message: 'backend "b" failed mid-stream.' }));
    const { events, fold } = run([chunk({ content: 'Half' })], failure);
    expectMessagesStream(events);
    expect(events.slice(-2)).toEqual([
      { type: 'content_block_stop', index: 0 },
      { type: 'error', error: { type: 'api_error', message: 'backend "b" failed mid-stream.' }, request_id: 'req-1' },
    ]);
    expect(fold.failure).toEqual(failure);
  });

  it('an answer with nothing in it is still a whole message', () => {
    const { events, fold } = run([chunk({}, 'stop')]);
    expectMessagesStream(events);
    expect(events.map((e) => e.type)).toEqual(['message_start', 'message_delta', 'message_stop']);
    expect(fold.message.content).toEqual([]);
  });

  it('text that needs escaping is written as JSON.stringify would', () => {
    const tricky = 'quote " backslash \\ newline \n tab \t nul \u0000 emoji 🙂 line sep \u2028';
    const { events } = run([chunk({ content: tricky }), chunk({}, 'stop')]);
    expect(events[2]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: tricky } });
  });
});

const fixtures = loadFixtures(fileURLToPath(new URL('../fixtures/generic/', import.meta.url)));
const SEEDS = Array.from({ length: 12 }, (_, i) => 11 + i * 104_729);

function eventsOf(pieces: readonly Uint8Array[] | undefined, fixture: (typeof fixtures)[number]): { events: MessagesEvent[]; fold: MessageFoldSink } {
  const outcome = runLoadedFixture(fixture, pieces);
  const failure = outcome.error === null ? undefined : toMessagesFailure(outcome.error);
  const { events, fold } = run(outcome.chunks, failure, fixture.spec.ctx?.reasoningField ?? 'reasoning_content');
  return { events, fold };
}

describe('every generic fixture through the Messages sinks', () => {
  for (const fixture of fixtures) {
    it(`${fixture.name}: keeps the stream rules, the fold holds what the stream carried, the same events at ${SEEDS.length} seeded splits`, () => {
      const whole = eventsOf(undefined, fixture);
      expectMessagesStream(whole.events);
      for (const seed of SEEDS) expect(eventsOf(splitAtSeededOffsets(fixture.bytes, seed), fixture).events, `seed ${seed}`).toEqual(whole.events);
    });
  }
});
