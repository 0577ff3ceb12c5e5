/**
 * Graceful shutdown: stop accepting, let open streams finish for `graceMs`, then end the ones
 * still open (each gets one error event, so its client knows the answer is partial) and close.
 */
import type { FastifyInstance } from 'fastify';
import { SvirError } from '../errors.js';

/** Time for the error events of ended streams to reach their clients before sockets close. */
const FLUSH_MS = 250;
/**
 * A keep-alive connection whose stream ended after close() began is idle from then on; Node
 * closes idle connections only when asked, so ask again until the server is closed. A
 * connection that never sent a byte is no request in flight either: it is closed too.
 */
const IDLE_SWEEP_MS = 100;

export async function shutdownServer(app: FastifyInstance, graceMs: number): Promise<void> {
  app.svir.closing = true;
  const closeIdle = (): void => {
    app.server.closeIdleConnections();
    app.svir.connections.closeUnused();
  };
  const closed = app.close();
  closeIdle();
  let flushTimer: NodeJS.Timeout | undefined;
  const sweep = setInterval(closeIdle, IDLE_SWEEP_MS);
  const graceTimer = setTimeout(() => {
    app.svir.streams.abortAll(
      new SvirError('backend_unavailable', { message: 'svir is shutting down; the answer was cut short.', retryAfter: 1 }),
    );
    flushTimer = setTimeout(() => app.server.closeAllConnections(), FLUSH_MS);
  }, graceMs);
  try {
    await closed;
  } finally {
    clearTimeout(graceTimer);
    clearInterval(sweep);
    if (flushTimer !== undefined) clearTimeout(flushTimer);
  }
}
