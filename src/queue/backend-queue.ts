/**
 * One backend's admission control: at most `maxConcurrent` requests run at once, the rest wait
 * in a FIFO queue (local servers serve one or a few requests at a time, and a request that
 * waits is better than one that fails). The queue is bounded in length and in wait; past
 * either bound the request is refused with 503 `backend_unavailable` and a `Retry-After`
 * estimate. A waiter whose client went away leaves the queue at once.
 */
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import { SvirError } from '../errors.js';

export interface QueueLimits {
  maxConcurrent: number;
  /** Waiters beyond the running ones; 0: refuse as soon as every slot is taken. */
  maxQueue: number;
  queueTimeoutMs: number;
}

export interface QueueTicket {
  /** Frees the slot; idempotent, so `finally` blocks and abort handlers may both call it. */
  release(): void;
  /** How long the request waited in the queue, in milliseconds (0 when a slot was free). */
  readonly waitedMs: number;
}

export interface QueueStats {
  /** Requests holding a slot. */
  active: number;
  /** Requests waiting for one. */
  queued: number;
  limits: QueueLimits;
}

export interface BackendQueueDeps {
  /** Monotonic milliseconds; injected by tests. */
  now?: () => number;
}

export interface BackendQueue {
  readonly backend: string;
  /**
   * Waits for a slot. Rejects with SvirError `backend_unavailable` when the queue is full or the
   * wait passes `queueTimeoutMs`, and with the signal's reason when the signal aborts first.
   */
  acquire(signal?: AbortSignalLike): Promise<QueueTicket>;
  /**
   * A slot at once, when one is free and nobody waits (what `acquire` would grant without
   * waiting), with no promise; undefined otherwise (an aborted signal too): then `acquire`.
   */
  tryAcquire(signal?: AbortSignalLike): QueueTicket | undefined;
  /** New limits from a reloaded config. Running requests keep their slots; waiters keep their place. */
  setLimits(limits: QueueLimits): void;
  stats(): QueueStats;
}

interface Waiter {
  enqueuedAt: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  grant(): void;
  detach(): void;
}

/** Before any request has finished, a hold is assumed to last this long for Retry-After. */
const DEFAULT_HOLD_MS = 1_000;
/** Weight of the newest hold duration in the moving average behind Retry-After. */
const HOLD_AVERAGE_WEIGHT = 0.2;

function abortReason(signal: AbortSignalLike): unknown {
  return signal.reason ?? new DOMException('The client went away while waiting for a slot.', 'AbortError');
}

export function createBackendQueue(backend: string, initialLimits: QueueLimits, deps: BackendQueueDeps = {}): BackendQueue {
  const now = deps.now ?? (() => performance.now());
  let limits: QueueLimits = { ...initialLimits };
  let active = 0;
  const waiters: Waiter[] = [];
  let averageHoldMs: number | undefined;

  /**
   * Seconds until a slot is likely free: the average hold time times the rounds of slots ahead
   * of a newcomer. An estimate for clients that honour Retry-After, never under 1 s.
   */
  function retryAfterSeconds(): number {
    const hold = averageHoldMs ?? DEFAULT_HOLD_MS;
    const rounds = Math.ceil((waiters.length + 1) / limits.maxConcurrent);
    return Math.max(1, Math.ceil((hold * rounds) / 1000));
  }

  function makeTicket(waitedMs: number): QueueTicket {
    const heldSince = now();
    let released = false;
    return {
      waitedMs,
      release() {
        if (released) return;
        released = true;
        const held = now() - heldSince;
        averageHoldMs = averageHoldMs === undefined ? held : averageHoldMs + HOLD_AVERAGE_WEIGHT * (held - averageHoldMs);
        active -= 1;
        pump();
      },
    };
  }

  /** Hands free slots to the oldest waiters, in order. */
  function pump(): void {
    while (active < limits.maxConcurrent) {
      const next = waiters.shift();
      if (next === undefined) return;
      active += 1;
      next.grant();
    }
  }

  /** A free slot, taken only when nobody is waiting: a newcomer does not overtake the queue. */
  function takeFreeSlot(): QueueTicket | undefined {
    if (active >= limits.maxConcurrent || waiters.length > 0) return undefined;
    active += 1;
    return makeTicket(0);
  }

  return {
    backend,

    tryAcquire(signal?: AbortSignalLike): QueueTicket | undefined {
      return signal?.aborted === true ? undefined : takeFreeSlot();
    },

    acquire(signal?: AbortSignalLike): Promise<QueueTicket> {
      if (signal?.aborted) return Promise.reject(abortReason(signal));
      const free = takeFreeSlot();
      if (free !== undefined) return Promise.resolve(free);
      if (waiters.length >= limits.maxQueue) {
        return Promise.reject(
          new SvirError('backend_unavailable', {
            backend,
            retryAfter: retryAfterSeconds(),
            message: `Backend "${backend}" is busy: ${active} running and ${waiters.length} waiting (maxQueue ${limits.maxQueue}).`,
          }),
        );
      }
      const timeoutMs = limits.queueTimeoutMs;
      return new Promise<QueueTicket>((resolve, reject) => {
        const onAbort = (): void => {
          waiter.detach();
          reject(signal === undefined ? new Error('aborted') : abortReason(signal));
        };
        const waiter: Waiter = {
          enqueuedAt: now(),
          timer: undefined,
          grant() {
            clearTimeout(waiter.timer);
            signal?.removeEventListener('abort', onAbort);
            resolve(makeTicket(now() - waiter.enqueuedAt));
          },
          detach() {
            clearTimeout(waiter.timer);
            signal?.removeEventListener('abort', onAbort);
            const at = waiters.indexOf(waiter);
            if (at !== -1) waiters.splice(at, 1);
          },
        };
        waiter.timer = setTimeout(() => {
          waiter.detach();
          reject(
            new SvirError('backend_unavailable', {
              backend,
              retryAfter: retryAfterSeconds(),
              message: `Backend "${backend}" is busy: no slot came free within ${timeoutMs} ms (queueTimeoutMs).`,
            }),
          );
        }, timeoutMs);
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },

    setLimits(next: QueueLimits): void {
      limits = { ...next };
      pump();
    },

    stats(): QueueStats {
      return { active, queued: waiters.length, limits: { ...limits } };
    },
  };
}
