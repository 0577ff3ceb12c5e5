/**
 * The server's open client connections, so that shutdown can close the ones that never sent a
 * byte. Node's `closeIdleConnections()` closes a keep-alive connection between two requests,
 * but not one that has not started its first request: an HTTP client that opened a spare
 * connection (undici does, after a client aborts a streaming response) then held every
 * shutdown for the whole grace period.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { isLingering } from './linger-after-refusal.js';

export interface ConnectionTracker {
  /** Destroys every connection that has not sent a byte yet, or only sends a refused body. */
  closeUnused(): void;
}

export function trackConnections(server: Server): ConnectionTracker {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    // `on`: a socket closes once (a once-listener is wrapped and taken off again).
    socket.on('close', () => sockets.delete(socket));
  });
  return {
    closeUnused() {
      for (const socket of sockets) {
        if ((socket.bytesRead === 0 || isLingering(socket)) && !socket.destroyed) socket.destroy();
      }
    },
  };
}
