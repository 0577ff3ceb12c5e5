/**
 * The answers every client test replays through svir, from every backend: what the upstream
 * model says (in neutral steps) and what a client must end up with.
 */
import type { UpstreamTurn } from './upstream-turn.js';

/** The arguments schema of the one tool the tool scenario declares. */
export const LOOKUP_PARAMETERS = {
  type: 'object' as const,
  properties: { value: { type: 'number' as const } },
  required: ['value'],
  additionalProperties: false,
};

/** The one tool the tool scenario declares; `look` (the first half of its split name) is not a tool. */
export const LOOKUP_TOOL = {
  type: 'function' as const,
  function: { name: 'lookup', description: 'Look a value up.', parameters: LOOKUP_PARAMETERS },
};

/** Reasoning, then an answer in pieces (one with a multi-byte character), then usage. */
export const REASONING_AND_TEXT: UpstreamTurn = {
  steps: [
    { reasoning: 'The user wants three numbers' },
    { reasoning: ' in words — easy.' },
    { content: 'One, two' },
    { content: ', three.' },
    { finish: 'stop' },
    { usage: { prompt_tokens: 9, completion_tokens: 14, total_tokens: 23, reasoning_tokens: 8 } },
  ],
  end: { kind: 'done' },
};
export const REASONING_AND_TEXT_EXPECTED = {
  reasoning: 'The user wants three numbers in words — easy.',
  content: 'One, two, three.',
  usage: { prompt_tokens: 9, completion_tokens: 14, total_tokens: 23 },
};

/**
 * docs/wire-protocol.md#tool-calls: two calls whose names and arguments are split and whose
 * pieces interleave in any index order, after some reasoning.
 */
export const SPLIT_INTERLEAVED_TOOL_CALLS: UpstreamTurn = {
  steps: [
    { reasoning: 'Two lookups are needed.' },
    {
      tools: [
        { index: 0, id: 'call-a', name: 'look', arguments: '{"value":' },
        { index: 1, id: 'call-b', name: 'lookup', arguments: '{"value":' },
      ],
    },
    {
      tools: [
        { index: 1, arguments: '2}' },
        { index: 0, name: 'up', arguments: '1}' },
      ],
    },
    { finish: 'tool_calls' },
    { usage: { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 } },
  ],
  end: { kind: 'done' },
};
export const SPLIT_INTERLEAVED_EXPECTED = {
  reasoning: 'Two lookups are needed.',
  calls: [
    { id: 'call-a', name: 'lookup', arguments: { value: 1 } },
    { id: 'call-b', name: 'lookup', arguments: { value: 2 } },
  ],
};

/** Generation dies after part of the answer went out: the client must see an error, not an end. */
export const MID_STREAM_FAILURE: UpstreamTurn = {
  steps: [{ content: 'One, ' }, { content: 'two, ' }],
  end: { kind: 'error', message: 'The model produced output that does not match the expected peg-native format' },
};
export const MID_STREAM_FAILURE_EXPECTED = { partialContent: 'One, two, ' };
