/**
 * Closes the socket of an upstream request svir gives up on (client gone, shutdown, a deadline,
 * a body it will not read), so that ending a request never opens a new connection.
 *
 * Why this exists: undici 7 ends an aborted request by destroying its socket with an
 * "informational" error; the socket's close handler then puts the aborted request back among
 * the pending ones, and the client connects again for it before it notices the abort
 * (nodejs/undici#5845). Each aborted stream thus left one connection that never carried a
 * request, and a llama.cpp server gives every connection one of its few HTTP slots. When svir
 * destroys the socket itself first, with an ordinary error, undici fails the request instead of
 * re-queueing it, and its own abort then finds the socket already gone. The abort undici hands
 * a dispatch handler (onConnect) is that very function, so the handler API svir uses does not
 * avoid this, and it names no socket either.
 *
 * undici names a request's socket on its `undici:client:sendHeaders` diagnostics channel; the
 * request is recognised by its body, which is the very Buffer or stream svir passed.
 */
import { subscribe } from 'node:diagnostics_channel';
import { Socket } from 'node:net';

/** One upstream request svir sent: its socket once undici has written the headers to one. */
export interface RequestSocket {
  socket?: Socket;
  /** undici's request object; `completed` says the socket went back to the pool. */
  request?: Record<string, unknown>;
}

/**
 * The requests being watched, by body. Module state, as the diagnostics channel it listens on is
 * the process's; each entry belongs to one request (keyed by that request's own body object,
 * which no other request holds), so no stream reads another's, and it goes with the body.
 */
const byPayload = new WeakMap<object, RequestSocket>();

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

subscribe('undici:client:sendHeaders', (message) => {
  if (!isObject(message) || !isObject(message.request) || !(message.socket instanceof Socket)) return;
  const body = message.request.body;
  if (!isObject(body)) return;
  const entry = byPayload.get(body);
  if (entry === undefined) return;
  entry.socket = message.socket;
  entry.request = message.request;
});

/** Starts watching for the socket of the request that sends this body (a Buffer or a stream). */
export function watchRequestSocket(payload: object): RequestSocket {
  const entry: RequestSocket = {};
  byPayload.set(payload, entry);
  return entry;
}

/** Destroys the request's socket, unless undici already finished with it (then it may serve another request). */
export function closeRequestSocket(entry: RequestSocket): void {
  const { socket, request } = entry;
  if (socket === undefined || request === undefined || request.completed === true || socket.destroyed) return;
  socket.destroy(new Error('svir closed the upstream request'));
}
