/**
 * Errors on the Messages routes leave in Anthropic's shape (docs/messages.md, "Errors"):
 * `{"type":"error","error":{"type":T,"message":M},"request_id":ID}` with a `request-id` header,
 * whatever raised them (the auth hook, the JSON parser, the route, a backend). The server's one
 * error handler asks `speaksMessages` of every failed request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { messagesErrorBody, toMessagesFailure } from '../messages/messages-failure.js';
import { pathOf } from '../http/path-of.js';

/** `/v1/messages` and everything under it (count_tokens, an unknown path there). */
export function speaksMessages(request: Pick<FastifyRequest, 'url'>): boolean {
  const path = pathOf(request.url);
  return path === '/v1/messages' || path.startsWith('/v1/messages/');
}

export function sendMessagesError(reply: FastifyReply, err: unknown, requestId: string): FastifyReply {
  const failure = toMessagesFailure(err);
  return reply
    .code(failure.status)
    .headers(failure.headers)
    .header('request-id', requestId)
    .type('application/json; charset=utf-8')
    .send(messagesErrorBody(failure, requestId));
}
