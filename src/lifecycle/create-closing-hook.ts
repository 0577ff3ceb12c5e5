/**
 * Requests that come while svir shuts down (lifecycle/shutdown-server.ts) are answered 503
 * backend_unavailable with retry-after 1 and `connection: close`, before a route sees them. It
 * runs after the request log hook, so they still have their request id and their log line.
 */
import type { onRequestHookHandler } from 'fastify';
import { SvirError } from '../errors.js';
import type { SvirRuntime } from './svir-runtime.js';

export function createClosingHook(runtime: Pick<SvirRuntime, 'closing'>): onRequestHookHandler {
  return (_request, reply, done) => {
    if (!runtime.closing) {
      done();
      return;
    }
    reply.header('connection', 'close');
    done(new SvirError('backend_unavailable', { message: 'svir is shutting down.', retryAfter: 1 }));
  };
}
