import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SvirError } from '../../src/errors.js';
import { createBackendQueue } from '../../src/queue/backend-queue.js';
import { createBackendQueues } from '../../src/queue/backend-queues.js';

const limits = { maxConcurrent: 2, maxQueue: 3, queueTimeoutMs: 1_000 };

/** Lets pending promise callbacks run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
}

describe('createBackendQueue', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('admits up to maxConcurrent at once without waiting', async () => {
    const queue = createBackendQueue('lms', limits);
    const a = await queue.acquire();
    const b = await queue.acquire();
    expect(a.waitedMs).toBe(0);
    expect(b.waitedMs).toBe(0);
    expect(queue.stats()).toMatchObject({ active: 2, queued: 0 });
  });

  it('grants waiters in arrival order as slots come free', async () => {
    const queue = createBackendQueue('lms', limits);
    const running = [await queue.acquire(), await queue.acquire()];
    const order: string[] = [];
    const waiting = ['first', 'second', 'third'].map((name) =>
      queue.acquire().then((ticket) => {
        order.push(name);
        return ticket;
      }),
    );
    await settle();
    expect(queue.stats()).toMatchObject({ active: 2, queued: 3 });
    running[1]?.release();
    await settle();
    expect(order).toEqual(['first']);
    running[0]?.release();
    await settle();
    expect(order).toEqual(['first', 'second']);
    const first = await waiting[0];
    first?.release();
    await settle();
    expect(order).toEqual(['first', 'second', 'third']);
    expect(queue.stats()).toMatchObject({ active: 2, queued: 0 });
  });

  it('does not let a newcomer overtake a waiter when a slot frees', async () => {
    const queue = createBackendQueue('lms', { maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 1_000 });
    const holder = await queue.acquire();
    const order: string[] = [];
    void queue.acquire().then(() => order.push('waiter'));
    holder.release();
    void queue.acquire().then(() => order.push('newcomer'));
    await settle();
    expect(order).toEqual(['waiter']);
    expect(queue.stats()).toMatchObject({ active: 1, queued: 1 });
  });

  it('tryAcquire: a slot at once while one is free and nobody waits, else nothing (no overtaking, no aborted request)', async () => {
    const queue = createBackendQueue('lms', { maxConcurrent: 2, maxQueue: 5, queueTimeoutMs: 1_000 });
    const gone = new AbortController();
    gone.abort(new Error('client left'));
    expect(queue.tryAcquire(gone.signal)).toBeUndefined();
    const first = queue.tryAcquire();
    expect(first?.waitedMs).toBe(0);
    const second = await queue.acquire();
    expect(queue.tryAcquire()).toBeUndefined();
    const order: string[] = [];
    void queue.acquire().then(() => order.push('waiter'));
    second.release();
    // The freed slot went to the waiter.
    expect(queue.tryAcquire()).toBeUndefined();
    await settle();
    expect(order).toEqual(['waiter']);
    expect(queue.stats()).toMatchObject({ active: 2, queued: 0 });
    first?.release();
    expect(queue.tryAcquire()).toBeDefined();
    expect(queue.stats()).toMatchObject({ active: 2, queued: 0 });
  });

  it('refuses past maxQueue with 503 backend_unavailable and a Retry-After', async () => {
    const queue = createBackendQueue('lms', { maxConcurrent: 1, maxQueue: 1, queueTimeoutMs: 1_000 });
    await queue.acquire();
    void queue.acquire();
    const refused = await queue.acquire().catch((err: unknown) => err);
    if (!(refused instanceof SvirError)) throw new Error('expected a SvirError');
    expect(refused).toMatchObject({ code: 'backend_unavailable', status: 503, backend: 'lms' });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(refused.message).toContain('lms');
  });

  it('refuses at once with maxQueue 0 when every slot is taken', async () => {
    const queue = createBackendQueue('lms', { maxConcurrent: 1, maxQueue: 0, queueTimeoutMs: 1_000 });
    await queue.acquire();
    await expect(queue.acquire()).rejects.toMatchObject({ code: 'backend_unavailable' });
  });

  it('gives up on a wait longer than queueTimeoutMs and leaves the queue', async () => {
    const queue = createBackendQueue('lms', { maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 100 });
    await queue.acquire();
    const waiting = queue.acquire().catch((err: unknown) => err);
    await vi.advanceTimersByTimeAsync(99);
    expect(queue.stats().queued).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    const error = await waiting;
    expect(error).toBeInstanceOf(SvirError);
    expect(error).toMatchObject({ code: 'backend_unavailable', message: expect.stringContaining('100 ms') });
    expect(queue.stats().queued).toBe(0);
  });

  it('reports the time waited', async () => {
    let clock = 0;
    const queue = createBackendQueue('lms', { maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 10_000 }, { now: () => clock });
    const holder = await queue.acquire();
    const waiting = queue.acquire();
    clock = 250;
    holder.release();
    expect((await waiting).waitedMs).toBe(250);
  });

  it('drops a waiter whose client went away, and the next one moves up', async () => {
    const queue = createBackendQueue('lms', { maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 10_000 });
    const holder = await queue.acquire();
    const client = new AbortController();
    const gone = queue.acquire(client.signal).catch((err: unknown) => err);
    const next = queue.acquire();
    client.abort(new Error('client closed'));
    expect(await gone).toMatchObject({ message: 'client closed' });
    expect(queue.stats().queued).toBe(1);
    holder.release();
    const ticket = await next;
    expect(ticket.waitedMs).toBeGreaterThanOrEqual(0);
    expect(queue.stats()).toMatchObject({ active: 1, queued: 0 });
  });

  it('refuses an already aborted signal without taking a slot', async () => {
    const queue = createBackendQueue('lms', limits);
    const client = new AbortController();
    client.abort(new Error('gone'));
    await expect(queue.acquire(client.signal)).rejects.toThrow('gone');
    expect(queue.stats().active).toBe(0);
  });

  it('releases once however often release is called', async () => {
    const queue = createBackendQueue('lms', limits);
    const ticket = await queue.acquire();
    await queue.acquire();
    ticket.release();
    ticket.release();
    expect(queue.stats().active).toBe(1);
  });

  it('applies raised limits to the waiters at once and keeps running requests on lowered ones', async () => {
    const queue = createBackendQueue('lms', { maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 10_000 });
    const holder = await queue.acquire();
    const waiting = queue.acquire();
    queue.setLimits({ maxConcurrent: 2, maxQueue: 5, queueTimeoutMs: 10_000 });
    await waiting;
    expect(queue.stats().active).toBe(2);
    queue.setLimits({ maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 10_000 });
    expect(queue.stats().active).toBe(2);
    holder.release();
    void queue.acquire();
    await settle();
    expect(queue.stats()).toMatchObject({ active: 1, queued: 1 });
  });

  it('estimates Retry-After from how long requests hold a slot', async () => {
    let clock = 0;
    const queue = createBackendQueue('lms', { maxConcurrent: 1, maxQueue: 0, queueTimeoutMs: 10_000 }, { now: () => clock });
    const first = await queue.acquire();
    clock = 8_000;
    first.release();
    await queue.acquire();
    const refused = await queue.acquire().catch((err: unknown) => err);
    expect(refused).toMatchObject({ code: 'backend_unavailable', retryAfter: '8' });
  });
});

describe('createBackendQueues', () => {
  const backend = (name: string, maxConcurrent: number) => ({ name, maxConcurrent, maxQueue: 4, queueTimeoutMs: 1_000 });

  it('keeps a backend queue and its holders across a reload and drops removed backends', async () => {
    const queues = createBackendQueues([backend('a', 1), backend('b', 1)]);
    const a = queues.get('a');
    await a?.acquire();
    queues.sync([backend('a', 3), backend('c', 2)]);
    expect(queues.get('a')).toBe(a);
    expect(queues.get('b')).toBeUndefined();
    expect(queues.get('c')?.stats().limits.maxConcurrent).toBe(2);
    expect(queues.snapshot()).toEqual([
      { backend: 'a', active: 1, queued: 0, limits: { maxConcurrent: 3, maxQueue: 4, queueTimeoutMs: 1_000 } },
      { backend: 'c', active: 0, queued: 0, limits: { maxConcurrent: 2, maxQueue: 4, queueTimeoutMs: 1_000 } },
    ]);
  });
});
