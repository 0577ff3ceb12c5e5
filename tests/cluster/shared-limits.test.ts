/**
 * The shared limit's second stage on its own, against a real Redis: a waiter keeps its place
 * (first come, first served), leaves on its client's abort and at its queue timeout, and a slot
 * freed goes to the next waiter; without Redis, each replica keeps to its share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSharedLimits, type SharedLimits, type SharedSlot } from '../../src/cluster/create-shared-limits.js';
import { createRedisLink, type RedisLink } from '../../src/cluster/redis-link.js';
import { createLogger } from '../../src/logging/create-logger.js';
import { startRedis, type RedisProcess } from './redis-process.js';

const logger = createLogger({ level: 'silent', secrets: [] });
let redis: RedisProcess;
const links: RedisLink[] = [];
const limits: SharedLimits[] = [];

async function sharedLimits(url: string, replicas = 2, prefix = 'limits:'): Promise<SharedLimits> {
  const link = createRedisLink({ url, connectTimeoutMs: 1_000, commandTimeoutMs: 500, probeMs: 50 }, logger);
  links.push(link);
  if (url === redis.url) for (let i = 0; i < 200 && link.state() !== 'up'; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  const made = createSharedLimits(link, { keyPrefix: prefix, leaseMs: 5_000, replicas });
  limits.push(made);
  return made;
}

const never = new AbortController().signal;

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const made of limits) made.close();
  for (const link of links) await link.close();
  await redis.close();
});

describe('the shared limit', () => {
  it('serves waiters in order, across two replicas\' stages, and gives a freed slot to the next', async () => {
    const a = await sharedLimits(redis.url, 2, 'order:');
    const b = await sharedLimits(redis.url, 2, 'order:');
    const first = await a.acquire('m', 1, never, 5_000);
    const order: string[] = [];
    const waiting = ['a1', 'a2', 'a3'].map((name) =>
      a.acquire('m', 1, never, 5_000).then((slot) => {
        order.push(name);
        return slot;
      }),
    );
    // Another replica's request is held too: the one slot is taken in Redis.
    const other = b.acquire('m', 1, never, 300);
    await expect(other).rejects.toMatchObject({ code: 'backend_unavailable' });
    first.release();
    for (const next of waiting) (await next).release();
    expect(order).toEqual(['a1', 'a2', 'a3']);
  });

  it('a waiter leaves on its client\'s abort and at its queue timeout, and the others keep their places', async () => {
    const shared = await sharedLimits(redis.url, 2, 'leave:');
    const held = await shared.acquire('m', 1, never, 5_000);
    const controller = new AbortController();
    const aborted = shared.acquire('m', 1, controller.signal, 5_000);
    const timedOut = shared.acquire('m', 1, never, 200);
    const patient = shared.acquire('m', 1, never, 5_000);
    controller.abort(new Error('client gone'));
    await expect(aborted).rejects.toThrow('client gone');
    await expect(timedOut).rejects.toMatchObject({ code: 'backend_unavailable', status: 503 });
    expect(shared.snapshot()).toEqual([{ backend: 'm', held: 1, waiting: 1 }]);
    held.release();
    const slot: SharedSlot = await patient;
    slot.release();
    expect(shared.snapshot()).toEqual([{ backend: 'm', held: 0, waiting: 0 }]);
  });

  it('without Redis, a replica keeps to its share: max(1, floor(maxConcurrent / replicas))', async () => {
    // Nothing listens on port 1.
    const offline = await sharedLimits('redis://127.0.0.1:1', 2);
    const slots = [await offline.acquire('m', 5, never, 1_000), await offline.acquire('m', 5, never, 1_000)];
    await expect(offline.acquire('m', 5, never, 100)).rejects.toMatchObject({ code: 'backend_unavailable' });
    slots[0]?.release();
    (await offline.acquire('m', 5, never, 1_000)).release();
    slots[1]?.release();
  });
});
