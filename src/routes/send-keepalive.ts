import type { FastifyReply } from 'fastify';
import { encodeComment } from '../normalize/sse-encoder.js';
import { commitStream } from './send-stream.js';

const KEEPALIVE_COMMENT = encodeComment('keepalive');

/**
 * While the first token is awaited: commit the stream and send what the client skips, a
 * comment unless the route names its own keepalive (the Messages route's `event: ping`).
 */
export function sendKeepalive(reply: FastifyReply, text: string = KEEPALIVE_COMMENT): void {
  const raw = reply.raw;
  if (raw.destroyed || raw.writableEnded) return;
  commitStream(reply);
  raw.write(text);
}
