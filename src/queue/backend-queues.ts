/**
 * The queues of every configured backend, kept across config reloads: a backend that stays in
 * the config keeps its queue (running requests and waiters with it) and takes the new limits; a
 * backend that leaves it is dropped from the map, while requests already holding its queue
 * object finish on it undisturbed.
 */
import type { BackendConfig } from '../config/schema.js';
import { createBackendQueue, type BackendQueue, type BackendQueueDeps, type QueueStats } from './backend-queue.js';

export interface BackendQueues {
  /** The queue of a configured backend; undefined for a name the config does not have. */
  get(backend: string): BackendQueue | undefined;
  /** Brings the set in line with a (re)loaded config. */
  sync(backends: readonly QueueSettings[]): void;
  /** Current numbers of every backend, for metrics and readiness. */
  snapshot(): Array<{ backend: string } & QueueStats>;
}

export type QueueSettings = Pick<BackendConfig, 'name' | 'maxConcurrent' | 'maxQueue' | 'queueTimeoutMs'>;

function limitsOf(backend: QueueSettings): { maxConcurrent: number; maxQueue: number; queueTimeoutMs: number } {
  return { maxConcurrent: backend.maxConcurrent, maxQueue: backend.maxQueue, queueTimeoutMs: backend.queueTimeoutMs };
}

export function createBackendQueues(backends: readonly QueueSettings[], deps: BackendQueueDeps = {}): BackendQueues {
  const queues = new Map<string, BackendQueue>();

  function sync(next: readonly QueueSettings[]): void {
    const names = new Set(next.map((backend) => backend.name));
    for (const name of [...queues.keys()]) if (!names.has(name)) queues.delete(name);
    for (const backend of next) {
      const existing = queues.get(backend.name);
      if (existing === undefined) queues.set(backend.name, createBackendQueue(backend.name, limitsOf(backend), deps));
      else existing.setLimits(limitsOf(backend));
    }
  }

  sync(backends);
  return {
    get: (backend) => queues.get(backend),
    sync,
    snapshot: () => [...queues.values()].map((queue) => ({ backend: queue.backend, ...queue.stats() })),
  };
}
