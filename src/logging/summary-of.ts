import type { FastifyRequest } from 'fastify';
import type { RequestSummary } from './request-summary.js';

/** The request's summary (request-summary.ts), when startSummary has begun one. */
export function summaryOf(request: FastifyRequest): RequestSummary | undefined {
  return request.svirSummary ?? undefined;
}
