/**
 * Each backend's `maxConcurrent`, shared by the replicas (README "Several replicas"): a
 * lease-based semaphore in Redis. A second stage after the backend's local FIFO queue
 * (src/queue/): a request that has its local slot waits here, in the same order, for a shared
 * one; its queue timeout (what is left of `queueTimeoutMs`) and the client's abort still hold.
 *
 * - A slot is a lease: a member of the backend's sorted set, scored by its expiry on Redis's own
 *   clock (TIME inside the script: replicas' clocks never enter into it). Taking one is one
 *   atomic script: drop the expired leases, count, add.
 * - Every lease this replica holds is refreshed in one script call every `leaseMs / 3`, with the
 *   replica's heartbeat (how many replicas are alive); a replica that dies stops refreshing, and
 *   its slots come free within `leaseMs`. The refresh catches its errors.
 * - Redis not up: each replica takes slots from its share, max(1, floor(maxConcurrent / n)), n
 *   the live replicas Redis last counted (or `cluster.replicas` before it ever answered). Those
 *   slots are leases too: the refresh writes every held lease back when Redis returns, so the
 *   shared count is right again within one refresh.
 * - A waiter asks again every POLL_MS, and at once when a slot of this replica comes free.
 */
import { randomBytes } from 'node:crypto';
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import { SvirError } from '../errors.js';
import { luaScript as script, type RedisLink } from './redis-link.js';

export interface SharedLimitsOptions {
  keyPrefix: string;
  leaseMs: number;
  /** Replicas assumed before Redis has counted them. */
  replicas: number;
}

export interface SharedSlot {
  /** Frees the slot; idempotent. */
  release(): void;
}

export interface SharedLimitsSnapshot {
  backend: string;
  /** Slots this replica holds. */
  held: number;
  /** Requests of this replica waiting for one. */
  waiting: number;
}

export interface SharedLimits {
  /**
   * A shared slot of the backend. Rejects with `backend_unavailable` past `timeoutMs`, with the
   * signal's reason when it aborts first.
   */
  acquire(backend: string, maxConcurrent: number, signal: AbortSignalLike, timeoutMs: number): Promise<SharedSlot>;
  /** Live replicas as Redis last counted them (undefined before it answered). */
  liveReplicas(): number | undefined;
  snapshot(): SharedLimitsSnapshot[];
  close(): void;
}

/** KEYS: the backend's leases. ARGV: limit, lease id, lease ms. 1 when the lease was taken. */
const ACQUIRE = script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 2)
  return 1
end
return 0
`);

/**
 * KEYS: the replicas' heartbeats, then one backend's leases per lease. ARGV: lease ms, replica
 * id, then the lease ids. Every lease held is written (back) with a new expiry; the live
 * replicas are counted.
 */
const REFRESH = script(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], now + lease, ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('PEXPIRE', KEYS[1], lease * 2)
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], now + lease, ARGV[i + 1])
  redis.call('PEXPIRE', KEYS[i], lease * 2)
end
return redis.call('ZCARD', KEYS[1])
`);

/** How often a waiter asks Redis again for a slot another replica may have freed. */
const POLL_MS = 25;

interface Waiter {
  maxConcurrent: number;
  grant(slot: SharedSlot): void;
}

interface Stage {
  waiters: Waiter[];
  /** A take is in flight, or a poll is due: the head is being served. */
  busy: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
}

export function createSharedLimits(link: RedisLink, options: SharedLimitsOptions): SharedLimits {
  const replicaId = randomBytes(8).toString('hex');
  const leaseKey = (backend: string): string => `${options.keyPrefix}leases:${backend}`;
  const replicasKey = `${options.keyPrefix}replicas`;
  /** lease id → backend. */
  const held = new Map<string, string>();
  const stages = new Map<string, Stage>();
  let counter = 0;
  let live: number | undefined;
  let closed = false;

  const heldBy = (backend: string): number => {
    let n = 0;
    for (const owner of held.values()) if (owner === backend) n += 1;
    return n;
  };

  const share = (maxConcurrent: number): number => Math.max(1, Math.floor(maxConcurrent / (live ?? options.replicas)));

  /**
   * Leases ended in this turn, told to Redis in one ZREM per backend at its end: under load one
   * command for many ends. A lease Redis does not hear of the end of expires by itself within
   * leaseMs.
   */
  const ended = new Map<string, string[]>();
  const flushEnded = (): void => {
    for (const [backend, ids] of ended) link.send(['ZREM', leaseKey(backend), ...ids]).catch(() => undefined);
    ended.clear();
  };
  const forget = (backend: string, id: string): void => {
    if (ended.size === 0) setImmediate(flushEnded);
    const ids = ended.get(backend);
    if (ids === undefined) ended.set(backend, [id]);
    else ids.push(id);
  };

  const makeSlot = (backend: string, id: string): SharedSlot => {
    let released = false;
    return {
      release() {
        if (released) return;
        released = true;
        held.delete(id);
        if (link.state() === 'up') forget(backend, id);
        pump(backend);
      },
    };
  };

  /** A slot now if one is free (Redis's count, or this replica's share when Redis is not up). */
  const tryTake = async (backend: string, maxConcurrent: number): Promise<SharedSlot | undefined> => {
    const id = `${replicaId}:${(counter += 1)}`;
    if (link.state() === 'up') {
      try {
        const taken = await link.evalScript(ACQUIRE, [leaseKey(backend)], [String(maxConcurrent), id, String(options.leaseMs)]);
        if (taken !== 1) return undefined;
        held.set(id, backend);
        return makeSlot(backend, id);
      } catch {
        // Redis failed this very call: the share below, as when it is known down.
      }
    }
    if (heldBy(backend) >= share(maxConcurrent)) return undefined;
    held.set(id, backend);
    return makeSlot(backend, id);
  };

  const stageOf = (backend: string): Stage => {
    let stage = stages.get(backend);
    if (stage === undefined) {
      stage = { waiters: [], busy: false, timer: undefined };
      stages.set(backend, stage);
    }
    return stage;
  };

  /** Serves the head waiter of the backend: a slot, or another try after POLL_MS. */
  function pump(backend: string): void {
    const stage = stages.get(backend);
    if (stage === undefined || closed) return;
    if (stage.timer !== undefined) {
      // Woken before the poll (a slot of this replica came free): ask now.
      clearTimeout(stage.timer);
      stage.timer = undefined;
      stage.busy = false;
    }
    const head = stage.waiters[0];
    if (head === undefined || stage.busy) return;
    stage.busy = true;
    void tryTake(backend, head.maxConcurrent).then((slot) => {
      stage.busy = false;
      if (slot === undefined) {
        if (stage.waiters.length === 0) return;
        stage.busy = true;
        stage.timer = setTimeout(() => {
          stage.timer = undefined;
          stage.busy = false;
          pump(backend);
        }, POLL_MS);
        return;
      }
      const waiter = stage.waiters.shift();
      if (waiter === undefined) slot.release();
      else waiter.grant(slot);
      pump(backend);
    });
  }

  const refresh = (): void => {
    if (link.state() !== 'up') return;
    const keys = [replicasKey];
    const args = [String(options.leaseMs), replicaId];
    for (const [id, backend] of held) {
      keys.push(leaseKey(backend));
      args.push(id);
    }
    link
      .evalScript(REFRESH, keys, args)
      .then((count) => {
        if (typeof count === 'number' && count > 0) live = count;
      })
      // Never an unhandled rejection: an unrefreshed lease lasts its lease time, and the next refresh writes it back.
      .catch(() => undefined);
  };
  const refreshTimer = setInterval(refresh, Math.max(1, Math.floor(options.leaseMs / 3)));
  refreshTimer.unref();
  link.onState((state) => {
    if (state === 'up') refresh();
  });

  return {
    acquire(backend, maxConcurrent, signal, timeoutMs) {
      if (signal.aborted) return Promise.reject(signal.reason);
      const stage = stageOf(backend);
      return new Promise<SharedSlot>((resolve, reject) => {
        let settled = false;
        const leave = (): void => {
          clearTimeout(timer);
          signal.removeEventListener('abort', onAbort);
          const at = stage.waiters.indexOf(waiter);
          if (at !== -1) stage.waiters.splice(at, 1);
        };
        const onAbort = (): void => {
          if (settled) return;
          settled = true;
          leave();
          reject(signal.reason);
        };
        const waiter: Waiter = {
          maxConcurrent,
          grant(slot) {
            if (settled) {
              slot.release();
              return;
            }
            settled = true;
            leave();
            resolve(slot);
          },
        };
        const timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          leave();
          reject(
            new SvirError('backend_unavailable', {
              backend,
              retryAfter: 1,
              message: `Backend "${backend}" is busy: every one of its ${maxConcurrent} slots, shared by the replicas, stayed taken for ${Math.round(timeoutMs)} ms (queueTimeoutMs).`,
            }),
          );
        }, Math.max(0, timeoutMs));
        signal.addEventListener('abort', onAbort, { once: true });
        stage.waiters.push(waiter);
        pump(backend);
      });
    },
    liveReplicas: () => live,
    snapshot() {
      return [...stages.entries()].map(([backend, stage]) => ({ backend, held: heldBy(backend), waiting: stage.waiters.length }));
    },
    close() {
      closed = true;
      clearInterval(refreshTimer);
      for (const stage of stages.values()) clearTimeout(stage.timer);
    },
  };
}
