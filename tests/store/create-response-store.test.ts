/**
 * The in-memory Responses store: each response kept with the conversation before it (so that
 * deleting or evicting an earlier one breaks nothing after it), items found by id, the least
 * recently used response evicted by count and by bytes, delete and new limits.
 */
import { describe, expect, it } from 'vitest';
import type { InputItem } from '../../src/responses/input-item.js';
import type { ResponseObject } from '../../src/responses/response-object.js';
import { createResponseStore, type StoredResponse } from '../../src/store/create-response-store.js';

function stored(id: string, prior: InputItem[], text = 'x', previous: string | null = null): StoredResponse {
  const output: InputItem[] = [{ type: 'message', id: `msg_${id}`, role: 'assistant', content: [{ type: 'output_text', text }] }];
  const response = { id, previous_response_id: previous, output } as unknown as ResponseObject;
  return { response, prior, input: [{ role: 'user', content: `q ${id}` }], output };
}

describe('createResponseStore', () => {
  it('reads a conversation back in order: each earlier input then its output', async () => {
    const store = createResponseStore({ maxResponses: 10, maxBytes: 1_000_000 });
    await store.put(stored('r1', [], 'a1'));
    const r1 = await store.history('r1');
    await store.put(stored('r2', r1 ?? [], 'a2', 'r1'));
    expect(await store.history('r2')).toEqual([
      { role: 'user', content: 'q r1' },
      { type: 'message', id: 'msg_r1', role: 'assistant', content: [{ type: 'output_text', text: 'a1' }] },
      { role: 'user', content: 'q r2' },
      { type: 'message', id: 'msg_r2', role: 'assistant', content: [{ type: 'output_text', text: 'a2' }] },
    ]);
    expect([...(await store.items(['msg_r1', 'msg_nope'])).keys()]).toEqual(['msg_r1']);
    expect((await store.get('r1'))?.id).toBe('r1');
    expect(await store.input('r2')).toEqual([{ role: 'user', content: 'q r2' }]);
  });

  it('a response stays whole after the one it continued is deleted; the deleted one and its items are gone', async () => {
    const store = createResponseStore({ maxResponses: 10, maxBytes: 1_000_000 });
    await store.put(stored('r1', []));
    await store.put(stored('r2', (await store.history('r1')) ?? [], 'x', 'r1'));
    expect(await store.delete('r1')).toBe(true);
    expect(await store.history('r2')).toHaveLength(4);
    expect(await store.history('r1')).toBeUndefined();
    expect((await store.items(['msg_r1'])).size).toBe(0);
    expect(await store.delete('r1')).toBe(false);
  });

  it('evicts the least recently used response past the count; what the evicted one started lives on', async () => {
    const store = createResponseStore({ maxResponses: 2, maxBytes: 1_000_000 });
    await store.put(stored('r1', []));
    await store.put(stored('r2', (await store.history('r1')) ?? [], 'x', 'r1'));
    await store.get('r2');
    await store.put(stored('r3', []));
    expect(await store.get('r1')).toBeUndefined();
    expect(await store.history('r2')).toHaveLength(4);
    expect(await store.get('r3')).toBeDefined();
    expect(store.stats().responses).toBe(2);
  });

  it('evicts past the bytes, refuses a response larger than the bound alone, and applies new limits', async () => {
    const one = Buffer.byteLength(JSON.stringify(stored('r1', [], 'y'.repeat(100))));
    const store = createResponseStore({ maxResponses: 100, maxBytes: one * 2 + 10 });
    for (const id of ['r1', 'r2', 'r3']) await store.put(stored(id, [], 'y'.repeat(100)));
    expect(await store.get('r1')).toBeUndefined();
    expect(store.stats().responses).toBe(2);
    expect(store.stats().bytes).toBeLessThanOrEqual(one * 2 + 10);
    expect(await store.put(stored('big', [], 'z'.repeat(one * 3)))).toBe(false);
    expect(await store.get('big')).toBeUndefined();
    store.setLimits({ maxResponses: 1, maxBytes: 1_000_000 });
    expect(store.stats().responses).toBe(1);
    store.setLimits({ maxResponses: 0, maxBytes: 1_000_000 });
    expect(await store.put(stored('r9', []))).toBe(false);
  });

  it('counts the whole conversation, and the same bytes from the response JSON a caller has already made', async () => {
    const counted = createResponseStore({ maxResponses: 10, maxBytes: 1_000_000 });
    const given = createResponseStore({ maxResponses: 10, maxBytes: 1_000_000 });
    const record = stored('r1', [{ role: 'user', content: 'earlier' }], 'ünïcode "quoted"');
    await counted.put(record);
    await given.put(record, JSON.stringify(record.response));
    expect(given.stats().bytes).toBe(counted.stats().bytes);
    expect(given.stats().bytes).toBe(Buffer.byteLength(JSON.stringify(record)));
  });
});
