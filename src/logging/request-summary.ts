/**
 * What svir logs about each request, gathered while it runs and written as ONE line when the
 * response closes: backend, model, status, time to first token, duration, finish reason,
 * tokens. Never a header, a key or a message body. Started by start-summary.ts, found again by
 * summary-of.ts, filled by the routes (observe-chunks.ts, record-error.ts) and written by
 * create-request-log-hook.ts as summary-line.ts builds it.
 */
import type { Usage } from '../normalize/parts.js';

export interface RequestSummary {
  /** ms (the server's clock). */
  startedAt: number;
  /**
   * The routed request's route (`chat`, `responses`, `embeddings`, `completions`, `messages`:
   * routes/route-label.ts), set by routeToBackend, which every routed request passes; the live
   * page lists the requests that have one.
   */
  route?: string;
  model?: string;
  backend?: string;
  stream?: boolean;
  /** When the first clean chunk (the first token) was ready, ms. */
  firstChunkAt?: number;
  finishReason?: string;
  usage?: Usage;
  changes?: string[];
  retried?: boolean;
  error?: { code: string; message: string; source: string };
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The request's summary, kept on the request itself (buildServer decorates every request
     * with the slot): a WeakMap keyed by requests cost about 1 µs per request (micro), mostly
     * in the collector's weak-table work.
     */
    svirSummary?: RequestSummary | null;
  }
}
