/**
 * Tokens per second per backend over the last minutes, for the live page's chart
 * (docs/live-page.md). Fed once per finished request, never per chunk: its completion tokens are
 * spread evenly over the time they were generated in (first token to end) across fixed buckets.
 * The streams still open are added at read time (`series`'s `live`), not stored, so a stream
 * shows while it runs and is counted once when it ends.
 */

export interface TokenSpan {
  backend: string;
  tokens: number;
  /** ms since the epoch: the first token, and the last (or now, for an open stream). */
  fromMs: number;
  toMs: number;
}

export interface RateSeries {
  bucketMs: number;
  /** Start of the first bucket, ms since the epoch; bucket i covers [start + i·bucketMs, +bucketMs). */
  start: number;
  /**
   * Tokens per second in each bucket, oldest first, up to the last whole one: the bucket under
   * way is left out, as a rate over the part of it that has passed would read a burst that
   * just ended (a whole answer counted at its end) as a spike.
   */
  backends: Record<string, number[]>;
}

export interface TokenRateHistory {
  add(span: TokenSpan): void;
  /** The last `buckets` whole buckets before `nowMs`, with the open streams' spans added. */
  series(nowMs: number, live?: Iterable<TokenSpan>): RateSeries;
}

export function createTokenRateHistory(options: { bucketMs: number; buckets: number }): TokenRateHistory {
  const { bucketMs, buckets } = options;
  // backend → bucket number (ms / bucketMs) → tokens.
  const stored = new Map<string, Map<number, number>>();

  function spread(into: (backend: string, bucket: number, tokens: number) => void, span: TokenSpan): void {
    if (!(span.tokens > 0)) return;
    const from = Math.min(span.fromMs, span.toMs);
    const to = span.toMs;
    const first = Math.floor(from / bucketMs);
    const last = Math.floor(to / bucketMs);
    if (first === last || to === from) {
      into(span.backend, last, span.tokens);
      return;
    }
    const perMs = span.tokens / (to - from);
    for (let bucket = first; bucket <= last; bucket += 1) {
      const overlap = Math.min(to, (bucket + 1) * bucketMs) - Math.max(from, bucket * bucketMs);
      if (overlap > 0) into(span.backend, bucket, overlap * perMs);
    }
  }

  function addStored(backend: string, bucket: number, tokens: number): void {
    let perBucket = stored.get(backend);
    if (perBucket === undefined) {
      perBucket = new Map();
      stored.set(backend, perBucket);
    }
    perBucket.set(bucket, (perBucket.get(bucket) ?? 0) + tokens);
    // Old buckets go as new ones come, whether the page reads them or not: memory stays bounded.
    if (perBucket.size > buckets + 1) {
      for (const old of perBucket.keys()) if (old <= bucket - buckets) perBucket.delete(old);
    }
  }

  return {
    add(span) {
      spread(addStored, span);
    },
    series(nowMs, live = []) {
      const lastBucket = Math.floor(nowMs / bucketMs) - 1;
      const firstBucket = lastBucket - buckets + 1;
      const tokens = new Map<string, number[]>();
      const row = (backend: string): number[] => {
        let values = tokens.get(backend);
        if (values === undefined) {
          values = new Array<number>(buckets).fill(0);
          tokens.set(backend, values);
        }
        return values;
      };
      const into = (backend: string, bucket: number, count: number): void => {
        if (bucket < firstBucket || bucket > lastBucket) return;
        const values = row(backend);
        values[bucket - firstBucket] = (values[bucket - firstBucket] ?? 0) + count;
      };
      for (const [backend, perBucket] of stored) {
        for (const [bucket, count] of perBucket) {
          // `into` skips the bucket under way; it stays for the next read.
          if (bucket < firstBucket) perBucket.delete(bucket);
          else into(backend, bucket, count);
        }
        // A backend with nothing left in the window leaves the chart.
        if (perBucket.size === 0) stored.delete(backend);
      }
      for (const span of live) spread(into, span);
      const backends: Record<string, number[]> = {};
      for (const [backend, values] of tokens) {
        backends[backend] = values.map((count) => Math.round((count / bucketMs) * 10_000) / 10);
      }
      return { bucketMs, start: firstBucket * bucketMs, backends };
    },
  };
}
