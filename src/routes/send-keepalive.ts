import type { FastifyReply } from 'fastify';
import { encodeComment } from '../normalize/sse-encoder.js';
import { commitStream } from './send-stream.js';

/** While the first token is awaited: commit the stream and send a comment the client skips. */
export function sendKeepalive(reply: FastifyReply): void {
  const raw = reply.raw;
  if (raw.destroyed || raw.writableEnded) return;
  commitStream(reply);
  raw.write(encodeComment('keepalive'));
}
