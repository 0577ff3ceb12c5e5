/**
 * One backend's maxConcurrent shared by two svir programs through a real Redis: under load sent
 * to both, the backend never has more requests at once than the limit; a replica killed while
 * it holds every slot gives them back within its lease, and the other replica's waiting request
 * is then served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { answerOkAfter, chatStatus, replicaMetric, startClusterRig, type ClusterRig } from './cluster-rig.js';

const MODEL = 'limited-model';
const LIMIT = 3;
let rig: ClusterRig;
let inFlight = 0;
let most = 0;
/** Requests the fake holds open until a test lets them go (or their client, svir, leaves). */
let holding = false;
const held: ServerResponse[] = [];

beforeAll(async () => {
  rig = await startClusterRig(MODEL, (_req, res) => {
    inFlight += 1;
    most = Math.max(most, inFlight);
    res.once('close', () => (inFlight -= 1));
    if (holding) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      held.push(res);
      return;
    }
    answerOkAfter(res, 20);
  });
}, 60_000);

afterAll(async () => {
  await rig?.close();
});

const chat = (url: string): Promise<number> => chatStatus(url, MODEL);
const waitingOn = (url: string): Promise<number | undefined> => replicaMetric(url, 'svir_shared_slots_waiting', { backend: 'fake' });

describe('a shared maxConcurrent', () => {
  it('under load through both replicas, the backend never has more than the limit at once', async () => {
    const replicas = await rig.startReplicas(2, { maxConcurrent: LIMIT });
    try {
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
    const [a, b] = await rig.startReplicas(2, { maxConcurrent: LIMIT, leaseMs });
    if (a === undefined || b === undefined) throw new Error('two replicas');
    try {
      holding = true;
      const onA = Array.from({ length: LIMIT }, () => chat(a.url).catch(() => 0));
      while (held.length < LIMIT) await new Promise((resolve) => setTimeout(resolve, 10));
      holding = false;
      const waiting = chat(b.url);
      // B waits for a shared slot: every one is A's.
      for (let i = 0; i < 100 && (await waitingOn(b.url)) !== 1; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await waitingOn(b.url)).toBe(1);
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
