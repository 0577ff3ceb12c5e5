/**
 * An answer that goes out before the request's body arrived (413, 415, 401, 404, ...) is
 * followed by a lingering close (linger-after-refusal.ts), so the client reads it instead of a
 * connection reset.
 */
import type { onSendHookHandler } from 'fastify';
import { bodyStillArriving, LINGER_LIMITS, lingerAfterRefusal, type LingerLimits } from './linger-after-refusal.js';
import type { ConnectionTracker } from './track-connections.js';

export function createLingerHook(connections: Pick<ConnectionTracker, 'lingers'>, limits: LingerLimits = LINGER_LIMITS): onSendHookHandler {
  return (request, reply, payload, done) => {
    if (bodyStillArriving(request.raw)) lingerAfterRefusal(request.raw, reply.raw, connections.lingers, limits);
    done(null, payload);
  };
}
