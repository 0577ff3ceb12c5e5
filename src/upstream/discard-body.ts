/**
 * Closes an upstream body svir will not read (any further). undici reports a body destroyed
 * before its end as an abort error, which nobody may be waiting for: without a listener it
 * would be an uncaught exception.
 */
import type { Dispatcher } from 'undici';
import { closeResponseSocket } from './request-sockets.js';

export function discardBody(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  // The socket first: undici's own abort would open a new connection (request-sockets.ts).
  closeResponseSocket(body);
  body.destroy();
}
