/**
 * Answers with the one error shape (toErrorResponse): its status, headers and JSON body; on the
 * Messages routes in Anthropic's vocabulary, whatever failed (docs/messages.md).
 */
import type { FastifyReply } from 'fastify';
import { toErrorResponse } from '../errors.js';
import { sendMessagesError, speaksMessages } from '../routes/send-messages-error.js';

export function sendError(reply: FastifyReply, err: unknown): FastifyReply {
  if (speaksMessages(reply.request)) return sendMessagesError(reply, err, reply.request.id);
  const response = toErrorResponse(err);
  return reply.code(response.status).headers(response.headers).type('application/json; charset=utf-8').send(response.body);
}
