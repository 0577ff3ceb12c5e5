/** Answers with the one error shape (toErrorResponse): its status, headers and JSON body. */
import type { FastifyReply } from 'fastify';
import { toErrorResponse } from '../errors.js';

export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  const response = toErrorResponse(err);
  return reply.code(response.status).headers(response.headers).type('application/json; charset=utf-8').send(response.body);
}
