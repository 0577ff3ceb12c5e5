/**
 * Key comparison is constant-time by construction, checked through svir end to end: every
 * request with a key leads to one timingSafeEqual per configured key (no early exit at the
 * first match or mismatch), always over equal-length digests (so neither a key's length nor
 * how much of it was right changes the work done). Measuring time would be flaky; the
 * structure is what makes it constant.
 */
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFaultUpstream, type FaultUpstream } from '../faults/fault-upstream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

const compared = vi.hoisted(() => ({ calls: [] as Array<[number, number]> }));

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return {
    ...actual,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView): boolean => {
      compared.calls.push([a.byteLength, b.byteLength]);
      return actual.timingSafeEqual(a, b);
    },
  };
});

const KEYS = ['k1-short-key', 'k2-a-much-longer-key-than-the-first-one-0123456789', 'k3-middle-length-key'];

let upstream: FaultUpstream;
let svir: RunningSvir;

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m'] });
  svir = await startSvir({ server: { apiKeys: KEYS }, backends: [{ name: 'fake', type: 'openai', url: upstream.url, models: ['m'] }] });
});

afterAll(async () => {
  await svir?.close();
  await upstream?.close();
});

beforeEach(() => {
  compared.calls.length = 0;
});

async function status(token: string): Promise<number> {
  const response = await request(`${svir.url}/v1/models`, { headers: { authorization: `Bearer ${token}` } });
  await response.body.text();
  return response.statusCode;
}

describe('constant-time key comparison', () => {
  it.each([
    ['the first key', KEYS[0] ?? '', 200],
    ['the last key', KEYS[2] ?? '', 200],
    ['a wrong key of a key\'s length', 'x'.repeat(KEYS[0]?.length ?? 1), 401],
    ['a one-character key', 'x', 401],
    ['a long wrong key', 'y'.repeat(4_000), 401],
    ['a right prefix', (KEYS[1] ?? '').slice(0, 20), 401],
  ])('%s: every configured key is compared, over equal-length digests', async (_name, token, expected) => {
    expect(await status(token)).toBe(expected);
    expect(compared.calls).toHaveLength(KEYS.length);
    for (const [a, b] of compared.calls) {
      expect(a).toBe(32);
      expect(b).toBe(32);
    }
  });
});
