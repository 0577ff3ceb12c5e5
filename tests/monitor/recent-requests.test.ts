import { describe, expect, it } from 'vitest';
import { createRecentRequests, type FinishedRequest } from '../../src/monitor/recent-requests.js';

function finished(n: number): FinishedRequest {
  return { route: 'chat', startedAt: n, line: { reqId: `r${n}`, method: 'POST', path: '/v1/chat/completions', status: 200, durationMs: 1 } };
}

describe('recent requests', () => {
  it('lists what was pushed, oldest first, until full', () => {
    const ring = createRecentRequests(4);
    expect(ring.list()).toEqual([]);
    for (const n of [1, 2, 3]) ring.push(finished(n));
    expect(ring.list().map((r) => r.startedAt)).toEqual([1, 2, 3]);
  });

  it('keeps the last `capacity` once full, whatever came before', () => {
    const ring = createRecentRequests(3);
    for (let n = 1; n <= 10; n += 1) {
      ring.push(finished(n));
      const expected = Array.from({ length: Math.min(n, 3) }, (_, i) => Math.max(n - 3, 0) + i + 1);
      expect(ring.list().map((r) => r.startedAt)).toEqual(expected);
    }
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => createRecentRequests(0)).toThrow(RangeError);
    expect(() => createRecentRequests(2.5)).toThrow(RangeError);
  });
});
