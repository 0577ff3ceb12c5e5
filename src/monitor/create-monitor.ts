/**
 * What the live page (docs/live-page.md) keeps about the requests svir answered: the last ones
 * in a bounded ring, and their generated tokens per backend over time for the chart. server.ts
 * tells it of every routed request when its response closes, from the log line it builds
 * anyway: a ring slot and a bucket add per request, nothing per chunk, and nothing more while
 * nobody watches (the page's feed subscribes; each finished request is handed to subscribers).
 */
import { createRecentRequests, type FinishedRequest } from './recent-requests.js';
import { createTokenRateHistory, type RateSeries, type TokenSpan } from './token-rate-history.js';

/** How many finished requests the page can show. */
export const RECENT_REQUESTS = 300;
/** The chart: 5-second buckets over the last 5 minutes. */
export const RATE_BUCKET_MS = 5_000;
export const RATE_BUCKETS = 60;

export interface Monitor {
  /** A routed request's response closed. */
  finished(request: FinishedRequest): void;
  /** Oldest first. */
  recent(): FinishedRequest[];
  /** Tokens per second per backend, the open streams' `live` spans added. */
  rates(nowMs: number, live?: Iterable<TokenSpan>): RateSeries;
  /** Hands each finished request to `listener` until the returned function is called. */
  subscribe(listener: (request: FinishedRequest) => void): () => void;
}

export function createMonitor(): Monitor {
  const recent = createRecentRequests(RECENT_REQUESTS);
  const history = createTokenRateHistory({ bucketMs: RATE_BUCKET_MS, buckets: RATE_BUCKETS });
  const listeners = new Set<(request: FinishedRequest) => void>();
  return {
    finished(request) {
      recent.push(request);
      const { line, startedAt } = request;
      const tokens = line.tokens?.completion;
      if (line.backend !== undefined && tokens !== undefined && tokens > 0) {
        history.add({ backend: line.backend, tokens, fromMs: startedAt + (line.ttftMs ?? 0), toMs: startedAt + line.durationMs });
      }
      if (listeners.size > 0) for (const listener of listeners) listener(request);
    },
    recent: () => recent.list(),
    rates: (nowMs, live) => history.series(nowMs, live),
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
