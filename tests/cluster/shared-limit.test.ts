/**
 * One backend's maxConcurrent shared by two svir programs through a real Redis: under load sent
 * to both, the backend never has more requests at once than the limit; a replica killed while
 * it holds every slot gives them back within its lease, and the other replica's waiting request
 * is then served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import type { SvirProcess } from '../contract/harness/run-svir.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { redisUp, startReplica } from './cluster-rig.js';
import { startRedis, type RedisProcess } from './redis-process.js';

const MODEL = 'limited-model';
const LIMIT = 3;
let redis: RedisProcess;
let upstream: ScriptedUpstream;
let inFlight = 0;
let most = 0;
/** Requests the fake holds open until a test lets them go (or their client, svir, leaves). */
let holding = false;
const held: ServerResponse[] = [];

const ANSWER =
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: 'ok' }, finish_reason: null }] })}\n\n` +
  `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`;

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startScriptedUpstream();
  upstream.models([MODEL]);
  upstream.chat({
    kind: 'handler',
    handle: (_req, res) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      res.once('close', () => (inFlight -= 1));
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (holding) {
        held.push(res);
        return;
      }
      setTimeout(() => res.end(ANSWER), 20);
    },
  });
}, 60_000);

afterAll(async () => {
  await upstream?.close();
  await redis?.close();
});

async function chat(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }),
  });
  await response.text();
  return response.status;
}

async function metric(url: string, name: string): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(`${name}{backend="fake"}`) || row.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('a shared maxConcurrent', () => {
  it('under load through both replicas, the backend never has more than the limit at once', async () => {
    const replicas: SvirProcess[] = [];
    try {
      for (let i = 0; i < 2; i++) replicas.push(await startReplica({ redisUrl: redis.url, backendUrl: upstream.baseUrl, model: MODEL, maxConcurrent: LIMIT }));
      for (const replica of replicas) await redisUp(replica.url);
      most = 0;
      const statuses = await Promise.all(Array.from({ length: 60 }, (_, i) => chat(replicas[i % 2]?.url ?? '')));
      expect(statuses.every((status) => status === 200)).toBe(true);
      expect(most).toBeLessThanOrEqual(LIMIT);
      // The limit was reached, not merely kept by a load too light to test it.
      expect(most).toBe(LIMIT);
    } finally {
      for (const replica of replicas) await replica.stop();
    }
  }, 60_000);

  it('a replica killed while it holds every slot frees them within its lease; the other one then serves', async () => {
    const leaseMs = 1_000;
    const a = await startReplica({ redisUrl: redis.url, backendUrl: upstream.baseUrl, model: MODEL, maxConcurrent: LIMIT, leaseMs });
    const b = await startReplica({ redisUrl: redis.url, backendUrl: upstream.baseUrl, model: MODEL, maxConcurrent: LIMIT, leaseMs });
    try {
      await redisUp(a.url);
      await redisUp(b.url);
      holding = true;
      const onA = Array.from({ length: LIMIT }, () => chat(a.url).catch(() => 0));
      while (held.length < LIMIT) await new Promise((resolve) => setTimeout(resolve, 10));
      holding = false;
      const waiting = chat(b.url);
      // B waits for a shared slot: every one is A's.
      for (let i = 0; i < 100 && (await metric(b.url, 'svir_shared_slots_waiting')) !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await metric(b.url, 'svir_shared_slots_waiting')).toBe(1);
      a.child.kill('SIGKILL');
      await a.stop();
      expect(await waiting).toBe(200);
      await Promise.all(onA);
    } finally {
      holding = false;
      for (const res of held.splice(0)) res.destroy();
      await a.stop();
      await b.stop();
    }
  }, 60_000);
});
