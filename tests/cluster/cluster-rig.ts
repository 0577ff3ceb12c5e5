/**
 * Two (or more) svir programs sharing one real Redis, in front of one fake backend: what the
 * cluster tests share. Each replica is the built `svir` as a child process with its own config
 * file (tests/contract/harness/run-svir.ts), as a team runs replicas.
 */
import { startSvirProcess, type SvirProcess } from '../contract/harness/run-svir.js';

export interface ReplicaOptions {
  redisUrl: string;
  backendUrl: string;
  model: string;
  maxConcurrent?: number;
  queueTimeoutMs?: number;
  leaseMs?: number;
  extraCluster?: Record<string, unknown>;
}

export function replicaConfig(options: ReplicaOptions): string {
  return JSON.stringify({
    server: { host: '127.0.0.1', port: 0, logLevel: 'warn', keepaliveMs: 0 },
    backends: [
      {
        name: 'fake',
        type: 'openai',
        url: options.backendUrl,
        models: [options.model],
        maxConcurrent: options.maxConcurrent ?? 8,
        maxQueue: 1_000,
        queueTimeoutMs: options.queueTimeoutMs ?? 60_000,
      },
    ],
    cluster: { redis: options.redisUrl, leaseMs: options.leaseMs ?? 10_000, probeMs: 100, ...options.extraCluster },
  });
}

export async function startReplica(options: ReplicaOptions): Promise<SvirProcess> {
  return startSvirProcess({ config: replicaConfig(options) });
}

/** Waits until the replica's /readyz says Redis is up. */
export async function redisUp(url: string, want: 'up' | 'down' | 'connecting' = 'up'): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const response = await fetch(`${url}/readyz`).catch(() => undefined);
    if (response !== undefined) {
      const body = (await response.json()) as { redis?: { state?: string } };
      if (body.redis?.state === want) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`Redis never became ${want} for ${url}`);
}
