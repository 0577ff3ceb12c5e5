import type { FastifyRequest } from 'fastify';
import type { RequestSummary } from './request-summary.js';

/** Starts the summary of one request. */
export function startSummary(request: FastifyRequest, now: number): RequestSummary {
  const summary: RequestSummary = { startedAt: now };
  request.svirSummary = summary;
  return summary;
}
