/**
 * The Responses store in a real Redis (tests/cluster/redis-process.ts): what one replica puts,
 * another's store reads; a response stays whole after the one it continued is deleted; items by
 * id and their owner; every key with its TTL, extended by a read; the size bound; and a Redis
 * that is gone answers `store_unavailable` at once, never "not found".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisLink, type RedisLink } from '../../src/cluster/redis-link.js';
import { createRedisResponseStore } from '../../src/cluster/create-redis-response-store.js';
import { createLogger } from '../../src/logging/create-logger.js';
import type { InputItem } from '../../src/responses/input-item.js';
import type { ResponseObject } from '../../src/responses/response-object.js';
import type { StoredResponse } from '../../src/store/response-store.js';
import { startRedis, type RedisProcess } from './redis-process.js';

const logger = createLogger({ level: 'silent', secrets: [] });
let redis: RedisProcess;
const links: RedisLink[] = [];

async function link(url = redis.url, commandTimeoutMs = 500): Promise<RedisLink> {
  const made = createRedisLink({ url, connectTimeoutMs: 1_000, commandTimeoutMs, probeMs: 50 }, logger);
  links.push(made);
  for (let i = 0; i < 200 && made.state() !== 'up'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(made.state()).toBe('up');
  return made;
}

function stored(id: string, prior: InputItem[], text = 'x'): StoredResponse {
  const output: InputItem[] = [{ type: 'message', id: `msg_${id}`, role: 'assistant', content: [{ type: 'output_text', text }] }];
  const response = { id, object: 'response', status: 'completed', output } as unknown as ResponseObject;
  return { response, prior, input: [{ type: 'message', id: `in_${id}`, role: 'user', content: `q ${id}` }], output };
}

const options = { keyPrefix: 'test:', ttlSeconds: 100, maxResponseBytes: 10_000 };

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const made of links) await made.close();
  await redis.close();
});

describe('the Redis Responses store', () => {
  it('what one store puts, another reads: the response, its input, its conversation, its items', async () => {
    const a = createRedisResponseStore(await link(), options);
    const b = createRedisResponseStore(await link(), options);
    expect(await a.put(stored('r1', []))).toBe(true);
    const r1 = await b.history('r1');
    expect(r1).toEqual([
      { type: 'message', id: 'in_r1', role: 'user', content: 'q r1' },
      { type: 'message', id: 'msg_r1', role: 'assistant', content: [{ type: 'output_text', text: 'x' }] },
    ]);
    expect(await b.put(stored('r2', r1 ?? []))).toBe(true);
    expect(await a.history('r2')).toHaveLength(4);
    expect(await a.get('r2')).toMatchObject({ id: 'r2', object: 'response' });
    expect(await a.input('r2')).toEqual([{ type: 'message', id: 'in_r2', role: 'user', content: 'q r2' }]);
    const items = await a.items(['msg_r1', 'in_r2', 'nope']);
    expect([...items.keys()]).toEqual(['msg_r1', 'in_r2']);
    expect(items.get('msg_r1')).toMatchObject({ role: 'assistant' });
    expect(await a.get('nope')).toBeUndefined();
    expect(await a.history('nope')).toBeUndefined();
  });

  it('a response stays whole after the one it continued is deleted; the deleted one and its items are gone', async () => {
    const store = createRedisResponseStore(await link(), options);
    await store.put(stored('d1', []));
    await store.put(stored('d2', (await store.history('d1')) ?? []));
    expect(await store.delete('d1')).toBe(true);
    expect(await store.delete('d1')).toBe(false);
    expect(await store.history('d1')).toBeUndefined();
    expect((await store.items(['msg_d1'])).size).toBe(0);
    expect(await store.history('d2')).toHaveLength(4);
  });

  it('an item another response took over is left to it when the first is deleted', async () => {
    const store = createRedisResponseStore(await link(), options);
    const first = stored('o1', []);
    await store.put(first);
    // o2 carries o1's output item again (a resolved item_reference keeps its id).
    await store.put({ ...stored('o2', []), input: first.output });
    expect(await store.delete('o1')).toBe(true);
    expect((await store.items(['msg_o1'])).size).toBe(1);
  });

  it('every key has the TTL, and reading a response extends it and its items', async () => {
    const store = createRedisResponseStore(await link(), { ...options, ttlSeconds: 1_000 });
    await store.put(stored('t1', []));
    expect(await redis.command('TTL', 'test:resp:t1')).toMatch(/^:(99\d|1000)\r\n$/);
    expect(await redis.command('TTL', 'test:item:msg_t1')).toMatch(/^:(99\d|1000)\r\n$/);
    await redis.command('EXPIRE', 'test:resp:t1', '5');
    await redis.command('EXPIRE', 'test:item:msg_t1', '5');
    await store.get('t1');
    expect(await redis.command('TTL', 'test:resp:t1')).toMatch(/^:(99\d|1000)\r\n$/);
    expect(await redis.command('TTL', 'test:item:msg_t1')).toMatch(/^:(99\d|1000)\r\n$/);
  });

  it('a response larger than the bound for one is not kept', async () => {
    const store = createRedisResponseStore(await link(), options);
    expect(await store.put(stored('big', [], 'y'.repeat(20_000)))).toBe(false);
    expect(await store.get('big')).toBeUndefined();
  });

  it('a Redis that is not there answers store_unavailable at once, never not-found', async () => {
    // Timeouts far past the test's own: an answer at all shows that nothing waited on them.
    const gone = createRedisLink({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 600_000, commandTimeoutMs: 600_000, probeMs: 50 }, logger);
    links.push(gone);
    const store = createRedisResponseStore(gone, options);
    await expect(store.get('r1')).rejects.toMatchObject({ code: 'store_unavailable', status: 503 });
    await expect(store.put(stored('x', []))).rejects.toMatchObject({ code: 'store_unavailable' });
  });
});
