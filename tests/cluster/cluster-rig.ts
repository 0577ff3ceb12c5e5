/**
 * Two (or more) svir programs sharing one real Redis, in front of one fake backend: what the
 * cluster tests share. Each replica is the built `svir` as a child process with its own config
 * file (tests/contract/harness/run-svir.ts), as a team runs replicas.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { startSvirProcess, type SvirProcess } from '../contract/harness/run-svir.js';
import { startScriptedUpstream, type RecordedRequest, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { readMetric } from '../helpers/read-metric.js';
import { startRedis, type RedisProcess } from './redis-process.js';

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

/** The backend's whole answer: "ok", then stop. */
export const OK_ANSWER =
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] })}\n\n` +
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

/** Answers OK_ANSWER as an event stream after `ms`. */
export function answerOkAfter(res: ServerResponse, ms: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  setTimeout(() => res.end(OK_ANSWER), ms);
}

export interface ClusterRig {
  redis: RedisProcess;
  upstream: ScriptedUpstream;
  /**
   * Starts `count` replicas in front of the rig's backend (the rig's model, Redis and backend
   * URL; the rest from `options`) and waits until each sees Redis up.
   */
  startReplicas(count: number, options?: Omit<ReplicaOptions, 'redisUrl' | 'backendUrl' | 'model'>): Promise<SvirProcess[]>;
  /** Stops every replica the rig started, the backend and Redis. */
  close(): Promise<void>;
}

/** A real Redis and a fake backend that lists `model` and answers every chat request with `handle`. */
export async function startClusterRig(
  model: string,
  handle: (req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest) => void,
): Promise<ClusterRig> {
  const redis = await startRedis();
  const upstream = await startScriptedUpstream();
  upstream.models([model]);
  upstream.chat({ kind: 'handler', handle });
  const started: SvirProcess[] = [];
  return {
    redis,
    upstream,
    async startReplicas(count, options = {}) {
      const replicas: SvirProcess[] = [];
      for (let i = 0; i < count; i++) {
        const replica = await startReplica({ ...options, redisUrl: redis.url, backendUrl: upstream.baseUrl, model });
        started.push(replica);
        replicas.push(replica);
      }
      for (const replica of replicas) await redisUp(replica.url);
      return replicas;
    },
    async close() {
      for (const replica of started.splice(0)) await replica.stop();
      await upstream.close();
      await redis.close();
    },
  };
}

/** One chat request to a replica: its status once the answer was read whole. */
export async function chatStatus(url: string, model: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.text();
  return response.status;
}

/** One series of a replica's /metrics, as a scraper reads it (undefined when absent). */
export async function replicaMetric(url: string, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  return readMetric(await (await fetch(`${url}/metrics`)).text(), name, labels);
}
