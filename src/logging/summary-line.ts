/**
 * The one log line per request (request-summary.ts), built from the request and its summary when
 * the response closes (create-request-log-hook.ts).
 */
import { pathOf } from '../http/path-of.js';
import type { RequestSummary } from './request-summary.js';

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
