import { describe, expect, it } from 'vitest';
import { createTokenRateHistory } from '../../src/monitor/token-rate-history.js';

const BUCKET = 1_000;

describe('token rate history', () => {
  it('spreads a request over the buckets it generated in, as tokens per second', () => {
    const history = createTokenRateHistory({ bucketMs: BUCKET, buckets: 5 });
    // 40 tokens from 10.5 s to 12.5 s: 10 in [10, 11), 20 in [11, 12), 10 in [12, 13).
    history.add({ backend: 'a', tokens: 40, fromMs: 10_500, toMs: 12_500 });
    const series = history.series(15_200);
    expect(series.start).toBe(10_000);
    expect(series.bucketMs).toBe(BUCKET);
    expect(series.backends).toEqual({ a: [10, 20, 10, 0, 0] });
  });

  it('leaves out the bucket under way until it is whole', () => {
    const history = createTokenRateHistory({ bucketMs: BUCKET, buckets: 3 });
    history.add({ backend: 'a', tokens: 5, fromMs: 20_100, toMs: 20_100 });
    expect(history.series(20_900).backends).toEqual({});
    expect(history.series(21_000).backends['a']).toEqual([0, 0, 5]);
  });

  it('adds the open streams given at read time without keeping them', () => {
    const history = createTokenRateHistory({ bucketMs: BUCKET, buckets: 3 });
    history.add({ backend: 'a', tokens: 3, fromMs: 30_000, toMs: 30_000 });
    const live = [{ backend: 'b', tokens: 8, fromMs: 30_000, toMs: 33_000 }];
    // b: 8 tokens over 3 s, the last second still under way.
    expect(history.series(33_000, live).backends).toEqual({ a: [3, 0, 0], b: [2.7, 2.7, 2.7] });
    expect(history.series(33_000).backends).toEqual({ a: [3, 0, 0] });
  });

  it('keeps backends apart and drops what left the window', () => {
    const history = createTokenRateHistory({ bucketMs: BUCKET, buckets: 3 });
    history.add({ backend: 'a', tokens: 2, fromMs: 1_000, toMs: 1_000 });
    history.add({ backend: 'b', tokens: 4, fromMs: 3_000, toMs: 3_000 });
    expect(history.series(4_000).backends).toEqual({ a: [2, 0, 0], b: [0, 0, 4] });
    expect(history.series(5_000).backends).toEqual({ b: [0, 4, 0] });
    expect(history.series(9_000).backends).toEqual({});
  });

  it('ignores spans without tokens', () => {
    const history = createTokenRateHistory({ bucketMs: BUCKET, buckets: 2 });
    history.add({ backend: 'a', tokens: 0, fromMs: 0, toMs: 500 });
    expect(history.series(2_000).backends).toEqual({});
  });

  it('reads right after a long run it was never read in (old buckets dropped as it goes)', () => {
    const history = createTokenRateHistory({ bucketMs: BUCKET, buckets: 4 });
    for (let at = 0; at < 3_000_000; at += 3 * BUCKET) history.add({ backend: 'a', tokens: 1, fromMs: at, toMs: at });
    // The last request came at 2 997 s; the window is [2 996, 3 000).
    expect(history.series(3_000_000).backends['a']).toEqual([0, 1, 0, 0]);
  });
});
