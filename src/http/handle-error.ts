/**
 * Fastify's error handler: whatever a route or hook threw is the request's error in its log line
 * (when none was recorded yet) and goes out in the one error shape. An `internal_error` is also
 * logged with its stack: it is svir's own failure.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { toErrorResponse } from '../errors.js';
import { recordError } from '../logging/record-error.js';
import { summaryOf } from '../logging/summary-of.js';
import { sendError } from './send-error.js';

export function handleError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const summary = summaryOf(request);
  if (summary !== undefined && summary.error === undefined) recordError(summary, err);
  if (toErrorResponse(err).body.error.code === 'internal_error') request.log.error({ err }, 'svir failed unexpectedly');
  return sendError(reply, err);
}
