/**
 * The server's open client connections, so that shutdown can close the ones that never sent a
 * byte. Node's `closeIdleConnections()` closes a keep-alive connection between two requests,
 * but not one that has not started its first request: an HTTP client that opened a spare
 * connection (undici does, after a client aborts a streaming response) then held every
 * shutdown for the whole grace period.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

export interface ConnectionTracker {
  /** Destroys every connection that has not sent a byte yet, or only sends a refused body. */
  closeUnused(): void;
  /** The socket only reads a refused body now (linger-after-refusal.ts): shutdown closes it at once. */
  lingers(socket: Socket): void;
}

export function trackConnections(server: Server): ConnectionTracker {
  const sockets = new Set<Socket>();
  const lingering = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    // `on`: a socket closes once (a once-listener is wrapped and taken off again).
    socket.on('close', () => sockets.delete(socket));
  });
  return {
    closeUnused() {
      for (const socket of sockets) {
        if ((socket.bytesRead === 0 || lingering.has(socket)) && !socket.destroyed) socket.destroy();
      }
    },
    lingers(socket) {
      lingering.add(socket);
    },
  };
}
