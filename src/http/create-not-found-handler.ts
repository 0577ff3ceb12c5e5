/**
 * Fastify's 404 handler: a path svir serves with another method is 405 `method_not_allowed`,
 * any other path 404 `not_found`, both in the one error shape and in the request's log line.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SvirError } from '../errors.js';
import { recordError } from '../logging/record-error.js';
import { summaryOf } from '../logging/summary-of.js';
import { pathOf } from './path-of.js';
import { sendError } from './send-error.js';

export function createNotFoundHandler(app: FastifyInstance): (request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  return (request, reply) => {
    const path = pathOf(request.url);
    // `/` is the live page's, for browsers only: any other request there is answered as before
    // the page existed (404).
    const otherMethod =
      path !== '/' && ['GET', 'POST'].some((method) => method !== request.method && app.hasRoute({ url: path, method }));
    const error = otherMethod
      ? new SvirError('method_not_allowed', { message: `${request.method} is not allowed on ${path}.` })
      : new SvirError('not_found', { message: `No route for ${request.method} ${path}.` });
    const summary = summaryOf(request);
    if (summary !== undefined) recordError(summary, error);
    return sendError(reply, error);
  };
}
