/** Stored input items → listed items (`ResponseItem` shapes), and ids given where none was sent. */
import { describe, expect, it } from 'vitest';
import type { InputItem } from '../../src/responses/input-item.js';
import { toResponseItems } from '../../src/responses/to-response-items.js';
import { withItemIds } from '../../src/responses/with-item-ids.js';

const items: InputItem[] = [
  { role: 'system', content: 'S' },
  { type: 'message', role: 'assistant', content: 'A', id: 'msg_kept' },
  { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
  { type: 'function_call_output', call_id: 'c1', output: 'ok' },
  { type: 'reasoning', summary: [{ type: 'summary_text', text: 'r' }] },
];

describe('withItemIds and toResponseItems', () => {
  it('ids by kind where none was sent, a sent id kept', () => {
    let n = 0;
    const out = withItemIds(items, (kind) => `${kind}_${++n}`);
    expect(out.map((item) => item.id)).toEqual(['msg_1', 'msg_kept', 'fc_2', 'fco_3', 'rs_4']);
  });

  it('message content as parts (output_text for the assistant), every item completed', () => {
    expect(toResponseItems(items)).toEqual([
      { type: 'message', role: 'system', status: 'completed', content: [{ type: 'input_text', text: 'S' }] },
      { type: 'message', role: 'assistant', id: 'msg_kept', status: 'completed', content: [{ type: 'output_text', text: 'A', annotations: [] }] },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}', status: 'completed' },
      { type: 'function_call_output', call_id: 'c1', output: 'ok', status: 'completed' },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'r' }], status: 'completed' },
    ]);
  });
});
