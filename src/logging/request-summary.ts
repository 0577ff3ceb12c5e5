/**
 * What svir logs about each request, gathered while it runs and written as ONE line when the
 * response closes: backend, model, status, time to first token, duration, finish reason,
 * tokens. Never a header, a key or a message body.
 */
import type { FastifyRequest } from 'fastify';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import type { Usage } from '../normalize/parts.js';
import { SvirError, toSvirError } from '../errors.js';
import { pathOf } from '../http/path-of.js';

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

/** Starts the summary of one request. */
export function startSummary(request: FastifyRequest, now: number): RequestSummary {
  const summary: RequestSummary = { startedAt: now };
  request.svirSummary = summary;
  return summary;
}

export function summaryOf(request: FastifyRequest): RequestSummary | undefined {
  return request.svirSummary ?? undefined;
}

/**
 * Reads what the log line needs out of the clean chunks of one step on their way to the client.
 * The clock is read for the request's first chunk only: the only time the line keeps.
 */
export function observeChunks(summary: RequestSummary, chunks: readonly CleanChunk[], now: () => number): void {
  if (chunks.length === 0) return;
  summary.firstChunkAt ??= now();
  for (const chunk of chunks) {
    if (chunk.usage !== undefined) summary.usage = chunk.usage;
    const reason = chunk.choices[0]?.finish_reason;
    if (reason !== undefined && reason !== null) summary.finishReason = reason;
  }
}

/** The error as the client got it (its code, e.g. a 413's `request_too_large`); an unexpected one keeps its own words. */
export function recordError(summary: RequestSummary, err: unknown): void {
  const answered = toSvirError(err);
  const message = answered.code === 'internal_error' && !(err instanceof SvirError) ? (err instanceof Error ? err.message : String(err)) : answered.message;
  summary.error = { code: answered.code, message, source: answered.source };
}

export interface SummaryLine {
  /** First: the line reads as request.log's would (its binding comes first there). */
  reqId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  model?: string;
  backend?: string;
  stream?: boolean;
  ttftMs?: number;
  finishReason?: string;
  tokens?: { prompt: number; completion: number; total: number; reasoning?: number; cached?: number };
  changes?: string[];
  retried?: boolean;
  error?: { code: string; message: string; source: string };
  clientClosed?: boolean;
}

/** What the line names the request by (a Fastify request is one). */
export interface SummarizedRequest {
  id: string;
  method: string;
  url: string;
}

/** The fields of the one log line, built in the order they are written (no copy into another object). */
export function summaryLine(request: SummarizedRequest, summary: RequestSummary, status: number, now: number, clientClosed: boolean): SummaryLine {
  const line: SummaryLine = { reqId: request.id, method: request.method, path: pathOf(request.url), status, durationMs: now - summary.startedAt };
  if (summary.model !== undefined) line.model = summary.model;
  if (summary.backend !== undefined) line.backend = summary.backend;
  if (summary.stream !== undefined) line.stream = summary.stream;
  if (summary.firstChunkAt !== undefined) line.ttftMs = summary.firstChunkAt - summary.startedAt;
  if (summary.finishReason !== undefined) line.finishReason = summary.finishReason;
  if (summary.usage !== undefined) {
    const usage = summary.usage;
    line.tokens = { prompt: usage.prompt_tokens, completion: usage.completion_tokens, total: usage.total_tokens };
    const reasoning = usage.completion_tokens_details?.reasoning_tokens;
    if (reasoning !== undefined) line.tokens.reasoning = reasoning;
    const cached = usage.prompt_tokens_details?.cached_tokens;
    if (cached !== undefined) line.tokens.cached = cached;
  }
  if (summary.changes !== undefined && summary.changes.length > 0) line.changes = summary.changes;
  if (summary.retried === true) line.retried = true;
  if (summary.error !== undefined) line.error = summary.error;
  if (clientClosed) line.clientClosed = true;
  return line;
}
