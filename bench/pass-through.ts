/**
 * The floor of issue 15: a bare fastify 5 + @fastify/http-proxy pass-through. `/v1/*` goes to
 * the upstream with its path kept; the request body is handed on as the stream it arrives as
 * (the plugin's own content-type parser), and the answer is piped back as it comes
 * (@fastify/reply-from sends undici's body stream: no buffering). Every ratio and target of the
 * benchmark divides by this process's figures.
 *
 * One option differs from the plugin's defaults, for the memory-per-open-stream measure:
 * @fastify/reply-from caps undici at 128 connections per origin, so 1,000 concurrent streams
 * would wait in its queue instead of being open; svir's upstream agent has no cap, and neither
 * has this one. Under the load section's 32 connections the cap never binds.
 */
import proxy from '@fastify/http-proxy';
import Fastify, { type FastifyInstance } from 'fastify';

/** `upstream` is the origin, e.g. `http://127.0.0.1:1234`. */
export function createPassThrough(upstream: string): FastifyInstance {
  const app = Fastify({ logger: false });
  void app.register(proxy, {
    upstream,
    prefix: '/v1',
    rewritePrefix: '/v1',
    undici: { connections: null },
  });
  return app;
}
