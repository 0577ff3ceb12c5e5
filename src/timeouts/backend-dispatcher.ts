/**
 * The undici dispatcher of one backend. Its connect timeout is the backend's `timeouts.connectMs`
 * (undici measures it on the socket, which is the only place a connect can be timed: a server
 * such as llama.cpp sends its response headers only with the first token, so the headers cannot
 * mark the end of the connect). undici's own header and body timeouts are off: the first-token
 * and idle deadlines are svir's (stream-deadlines.ts), counted on SSE events rather than bytes,
 * and undici's 300 s defaults would cut a long prompt the config allows.
 */
import { Agent } from 'undici';

export interface DispatcherTimeouts {
  connectMs: number;
}

export function createBackendDispatcher(timeouts: DispatcherTimeouts): Agent {
  return new Agent({
    connect: { timeout: timeouts.connectMs },
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}
