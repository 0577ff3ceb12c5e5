/**
 * A response's output items as the store keeps them for the next turn: the same items, key for
 * key in the same order, as reading them through the input item schemas gives.
 */
import { describe, expect, it } from 'vitest';
import { outputAsInput } from '../../src/responses/output-as-input.js';
import { readInputItems } from '../../src/responses/read-input-items.js';
import type { OutputItem } from '../../src/responses/response-object.js';

const output: OutputItem[] = [
  {
    id: 'rs_1',
    type: 'reasoning',
    status: 'completed',
    summary: [{ type: 'summary_text', text: 'think "twice"' }],
    content: [{ type: 'reasoning_text', text: 'think "twice"' }],
  },
  {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    status: 'incomplete',
    content: [
      { type: 'output_text', text: 'Hello ünï', annotations: [] },
      { type: 'refusal', refusal: 'no' },
    ],
  },
  { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'weather', arguments: '{"city":"Paris"}' },
  { id: 'fc_2', type: 'function_call', status: 'completed', call_id: 'call_2', name: 'g', namespace: 'ns', arguments: '{}' },
];

describe('outputAsInput', () => {
  it('gives what the input schemas read from the output, in the same key order', () => {
    const kept = outputAsInput(output);
    expect(JSON.stringify(kept)).toBe(JSON.stringify(readInputItems(output, 'output')));
    expect(kept).toEqual(readInputItems(output, 'output'));
  });

  it('copies the items: the stored response and the next turn share no item object', () => {
    const kept = outputAsInput(output);
    kept.forEach((item, i) => expect(item).not.toBe(output[i]));
  });
});
