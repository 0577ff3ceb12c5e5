/**
 * The Responses store: chains of previous_response_id read back in order, items found by id,
 * the least recently used response evicted by count and by bytes, delete and new limits.
 */
import { describe, expect, it } from 'vitest';
import type { InputItem } from '../../src/responses/input-item.js';
import type { ResponseObject } from '../../src/responses/response-object.js';
import { createResponseStore, type StoredResponse } from '../../src/store/create-response-store.js';

function stored(id: string, previous: string | null, text = 'x'): StoredResponse {
  const output: InputItem[] = [{ type: 'message', id: `msg_${id}`, role: 'assistant', content: [{ type: 'output_text', text }] }];
  const response = { id, previous_response_id: previous, output } as unknown as ResponseObject;
  return { response, input: [{ role: 'user', content: `q ${id}` }], output };
}

describe('createResponseStore', () => {
  it('reads a chain back in order: each earlier input then its output', () => {
    const store = createResponseStore({ maxResponses: 10, maxBytes: 1_000_000 });
    store.put(stored('r1', null, 'a1'));
    store.put(stored('r2', 'r1', 'a2'));
    expect(store.history('r2')).toEqual([
      { role: 'user', content: 'q r1' },
      { type: 'message', id: 'msg_r1', role: 'assistant', content: [{ type: 'output_text', text: 'a1' }] },
      { role: 'user', content: 'q r2' },
      { type: 'message', id: 'msg_r2', role: 'assistant', content: [{ type: 'output_text', text: 'a2' }] },
    ]);
    expect(store.item('msg_r1')).toMatchObject({ id: 'msg_r1' });
    expect(store.get('r1')?.id).toBe('r1');
  });

  it('a chain with a missing link has no history', () => {
    const store = createResponseStore({ maxResponses: 10, maxBytes: 1_000_000 });
    store.put(stored('r1', null));
    store.put(stored('r2', 'r1'));
    expect(store.delete('r1')).toBe(true);
    expect(store.history('r2')).toBeUndefined();
    expect(store.item('msg_r1')).toBeUndefined();
    expect(store.delete('r1')).toBe(false);
  });

  it('evicts the least recently used response past the count', () => {
    const store = createResponseStore({ maxResponses: 2, maxBytes: 1_000_000 });
    store.put(stored('r1', null));
    store.put(stored('r2', null));
    store.get('r1');
    store.put(stored('r3', null));
    expect(store.get('r2')).toBeUndefined();
    expect(store.get('r1')).toBeDefined();
    expect(store.get('r3')).toBeDefined();
    expect(store.stats().responses).toBe(2);
  });

  it('evicts past the bytes, refuses a response larger than the bound alone, and applies new limits', () => {
    const one = Buffer.byteLength(JSON.stringify(stored('r1', null, 'y'.repeat(100))));
    const store = createResponseStore({ maxResponses: 100, maxBytes: one * 2 + 10 });
    for (const id of ['r1', 'r2', 'r3']) store.put(stored(id, null, 'y'.repeat(100)));
    expect(store.get('r1')).toBeUndefined();
    expect(store.stats().responses).toBe(2);
    expect(store.stats().bytes).toBeLessThanOrEqual(one * 2 + 10);
    expect(store.put(stored('big', null, 'z'.repeat(one * 3)))).toBe(false);
    expect(store.get('big')).toBeUndefined();
    store.setLimits({ maxResponses: 1, maxBytes: 1_000_000 });
    expect(store.stats().responses).toBe(1);
    store.setLimits({ maxResponses: 0, maxBytes: 1_000_000 });
    expect(store.put(stored('r9', null))).toBe(false);
  });

  it('counts the same bytes from the response JSON a caller has already made', () => {
    const counted = createResponseStore({ maxResponses: 10, maxBytes: 1_000_000 });
    const given = createResponseStore({ maxResponses: 10, maxBytes: 1_000_000 });
    const record = stored('r1', null, 'ünïcode "quoted"');
    counted.put(record);
    given.put(record, JSON.stringify(record.response));
    expect(given.stats().bytes).toBe(counted.stats().bytes);
    expect(given.stats().bytes).toBe(Buffer.byteLength(JSON.stringify(record)));
  });
});
