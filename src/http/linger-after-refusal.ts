/**
 * A lingering close, as nginx does it: an answer sent before the request's body arrived (413 for
 * a body over the limit, 415, 401, 404, a 503 at shutdown) goes out with `connection: close`,
 * and then the rest of the body is read and thrown away before the socket closes.
 *
 * Why: closing a socket while the client still sends makes the kernel answer its next bytes
 * with a reset, and a reset throws away what the client had not read yet: most clients (fetch,
 * openai-node, curl uploading) write the whole body before they read, so they lost the 413 and
 * reported a connection error instead. Reading on is bounded in time, in silence and in bytes
 * (LINGER_LIMITS), so a client cannot hold the socket or make svir read without end.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface LingerLimits {
  /** The whole lingering read, from the answer on. */
  readonly maxMs: number;
  /** The longest silence of the client while svir waits for the rest of the body. */
  readonly idleMs: number;
  /** How much more svir reads and throws away. */
  readonly maxBytes: number;
}

/** nginx's lingering_time and lingering_timeout; bytes: more than any body svir accepts by default (100 MiB). */
export const LINGER_LIMITS: LingerLimits = { maxMs: 30_000, idleMs: 5_000, maxBytes: 256 * 1024 * 1024 };

/** Whether the request's body is still on its way (the answer would go out before it). */
export function bodyStillArriving(req: IncomingMessage): boolean {
  if (req.complete || req.readableEnded) return false;
  const length = Number(req.headers['content-length'] ?? 0);
  return length > 0 || req.headers['transfer-encoding'] !== undefined;
}

/**
 * Call before the answer is written: marks it `connection: close`, and lingers once it is sent.
 * `lingers` is told the socket then, so that shutdown closes it at once (track-connections.ts).
 */
export function lingerAfterRefusal(req: IncomingMessage, res: ServerResponse, lingers: (socket: Socket) => void, limits: LingerLimits = LINGER_LIMITS): void {
  res.setHeader('connection', 'close');
  res.once('finish', () => {
    const socket = req.socket;
    // Node has ended the socket after the answer (`connection: close`) and would destroy it as
    // soon as the answer is flushed; it stays open for reading instead, until the body is in.
    socket.removeListener('finish', socket.destroy);
    if (socket.destroyed) return;
    lingers(socket);
    let bytes = 0;
    const close = (): void => {
      clearTimeout(total);
      clearTimeout(idle);
      req.removeListener('data', onData);
      // The answer first: destroying a socket drops what it has not written yet.
      if (socket.writableFinished || socket.destroyed) socket.destroy();
      else socket.once('finish', () => socket.destroy());
    };
    const onData = (chunk: Buffer): void => {
      bytes += chunk.byteLength;
      if (bytes > limits.maxBytes) close();
      else idle.refresh();
    };
    const total = setTimeout(close, limits.maxMs);
    const idle = setTimeout(close, limits.idleMs);
    socket.once('close', () => {
      clearTimeout(total);
      clearTimeout(idle);
    });
    if (req.readableEnded) {
      close();
      return;
    }
    req.on('data', onData);
    req.once('end', close);
    req.once('error', close);
    req.resume();
  });
}
