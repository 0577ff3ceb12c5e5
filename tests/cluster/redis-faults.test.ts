/**
 * Redis killed, paused (SIGSTOP) and started again while two svir programs serve a steady load
 * (chat requests, Responses turns that are stored, lookups of a stored response). What clients
 * see at each step is recorded (and printed); the contract (README "Several replicas"):
 * - chat is always served (200), whatever Redis does;
 * - a Responses turn is always answered; while Redis is away it says `store: false`;
 * - a lookup answers 503 `store_unavailable` while Redis is away, never 404; after a pause the
 *   record is found again, after a restart (an empty Redis) it is an honest 404;
 * - nothing hangs (every request within the test's client timeout), nothing crashes (both
 *   processes alive, no unhandled rejection), and svir is back without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SvirProcess } from '../contract/harness/run-svir.js';
import { answerOkAfter, redisUp, replicaMetric, startClusterRig, type ClusterRig } from './cluster-rig.js';

const MODEL = 'fault-model';
/** Far above any bound svir states (commandTimeoutMs, the queue's): a request past it hung. */
const CLIENT_TIMEOUT_MS = 10_000;
let rig: ClusterRig;
let replicas: SvirProcess[] = [];

beforeAll(async () => {
  rig = await startClusterRig(MODEL, (_req, res) => answerOkAfter(res, 5));
  replicas = await rig.startReplicas(2, { maxConcurrent: 4, leaseMs: 1_000, extraCluster: { commandTimeoutMs: 200 } });
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

type Seen = string;

async function request(url: string, init: RequestInit): Promise<{ status: number; body: string } | 'hung'> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    return { status: response.status, body: await response.text() };
  } catch {
    return 'hung';
  }
}

const json = { 'content-type': 'application/json' };

async function chatOnce(url: string): Promise<Seen> {
  const answer = await request(`${url}/v1/chat/completions`, { method: 'POST', headers: json, body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] }) });
  return answer === 'hung' ? 'hung' : `chat ${answer.status}`;
}

async function turnOnce(url: string): Promise<Seen> {
  const answer = await request(`${url}/v1/responses`, { method: 'POST', headers: json, body: JSON.stringify({ model: MODEL, input: 'hi' }) });
  if (answer === 'hung') return 'hung';
  if (answer.status !== 200) return `turn ${answer.status}`;
  const body = JSON.parse(answer.body) as { store: boolean };
  return `turn 200 store:${String(body.store)}`;
}

async function lookup(url: string, id: string): Promise<Seen> {
  const answer = await request(`${url}/v1/responses/${id}`, { method: 'GET' });
  if (answer === 'hung') return 'hung';
  const code = answer.status === 200 ? '' : ` ${(JSON.parse(answer.body) as { error: { code: string } }).error.code}`;
  return `lookup ${answer.status}${code}`;
}

/** Runs the load for `ms`: what the clients saw, counted. */
async function load(ms: number, storedId: string): Promise<Map<Seen, number>> {
  const seen = new Map<Seen, number>();
  const until = performance.now() + ms;
  const worker = async (i: number): Promise<void> => {
    for (let n = 0; performance.now() < until; n++) {
      const url = replicas[(i + n) % 2]?.url ?? '';
      const kind = n % 3;
      const what = kind === 0 ? await chatOnce(url) : kind === 1 ? await turnOnce(url) : await lookup(url, storedId);
      seen.set(what, (seen.get(what) ?? 0) + 1);
    }
  };
  await Promise.all([0, 1, 2, 3].map(worker));
  return seen;
}

/** svir_redis_up and svir_redis_latency_seconds of a replica's /metrics (undefined when absent). */
async function redisMetrics(url: string): Promise<{ up: number | undefined; latency: number | undefined }> {
  return { up: await replicaMetric(url, 'svir_redis_up'), latency: await replicaMetric(url, 'svir_redis_latency_seconds') };
}

function alive(): boolean {
  return replicas.every((replica) => replica.child.exitCode === null && replica.child.signalCode === null);
}

describe('Redis faults under load', () => {
  it('killed, paused, restarted: chat always served, lookups 503 (never 404) while Redis is away, nothing hangs or crashes, svir recovers', async () => {
    const first = JSON.parse((await request(`${replicas[0]?.url}/v1/responses`, { method: 'POST', headers: json, body: JSON.stringify({ model: MODEL, input: 'keep me' }) }).then((a) => (a === 'hung' ? { body: '{}' } : a))).body) as { id: string };
    const steps: { step: string; seen: Map<Seen, number> }[] = [];

    steps.push({ step: 'Redis up', seen: await load(800, first.id) });

    rig.redis.pause();
    steps.push({ step: 'Redis paused (SIGSTOP)', seen: await load(1_500, first.id) });
    rig.redis.resume();
    for (const replica of replicas) await redisUp(replica.url);
    steps.push({ step: 'Redis resumed', seen: await load(800, first.id) });

    await rig.redis.kill();
    for (const replica of replicas) await redisUp(replica.url, 'down');
    expect((await redisMetrics(replicas[0]?.url ?? '')).up).toBe(0);
    steps.push({ step: 'Redis killed', seen: await load(1_500, first.id) });

    await rig.redis.restart();
    for (const replica of replicas) await redisUp(replica.url);
    const back = await redisMetrics(replicas[1]?.url ?? '');
    expect(back.up).toBe(1);
    expect(back.latency).toBeGreaterThan(0);
    steps.push({ step: 'Redis restarted (empty)', seen: await load(800, first.id) });

    // What the clients saw, step by step (the test's record of the faults).
    for (const { step, seen } of steps) console.log(`${step}: ${[...seen].map(([what, n]) => `${what} ×${n}`).join(', ')}`);

    const all = (step: number): Seen[] => [...(steps[step]?.seen.keys() ?? [])];
    for (const step of steps) {
      expect(step.seen.get('hung') ?? 0, step.step).toBe(0);
      // Chat is served whatever Redis does.
      expect([...step.seen.keys()].filter((what) => what.startsWith('chat')), step.step).toEqual(['chat 200']);
      // A Responses turn is always answered.
      expect([...step.seen.keys()].filter((what) => what.startsWith('turn') && !what.startsWith('turn 200')), step.step).toEqual([]);
    }
    expect(all(0).filter((what) => what.startsWith('lookup'))).toEqual(['lookup 200']);
    expect(all(0)).not.toContain('turn 200 store:false');
    // Away (paused or killed): lookups are 503 store_unavailable, never 404; turns say store: false.
    for (const away of [1, 3]) {
      expect(all(away)).not.toContain('lookup 404 response_not_found');
      expect(all(away)).toContain('lookup 503 store_unavailable');
      expect(all(away)).toContain('turn 200 store:false');
    }
    // Back: stored again; the record outlived the pause, not the restart of a Redis that keeps nothing.
    expect(all(2).filter((what) => what.startsWith('lookup'))).toEqual(['lookup 200']);
    expect(all(2)).toContain('turn 200 store:true');
    expect(all(4).filter((what) => what.startsWith('lookup'))).toEqual(['lookup 404 response_not_found']);
    expect(all(4)).toContain('turn 200 store:true');
    expect(alive()).toBe(true);
    for (const replica of replicas) expect(replica.stderr()).not.toMatch(/unhandled|uncaught/i);
  }, 120_000);
});
