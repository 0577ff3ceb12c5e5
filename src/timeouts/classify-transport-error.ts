/**
 * A failure of the transport (no HTTP answer at all) as the client should see it: a backend that
 * cannot be reached is 503 `backend_unavailable` (failover may try the next backend), a connect
 * that hung is 504 `upstream_timeout`, a connection that broke is 502 `upstream_error`. A
 * SvirError (a deadline's abort reason) passes through unchanged.
 */
import { SvirError } from '../errors.js';

/** Nothing listens, or the host cannot be found or reached: the request never arrived. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** The connection was made and then broke. */
const BROKEN = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** Seconds a client is asked to wait before trying an unreachable backend again. */
export const UNREACHABLE_RETRY_AFTER_S = 5;

function errorCode(err: unknown): string | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const code: unknown = Reflect.get(err, 'code');
  if (typeof code === 'string') return code;
  // fetch() and AggregateError (several addresses tried) put the socket error one level down.
  const cause: unknown = Reflect.get(err, 'cause');
  if (cause !== undefined && cause !== err) return errorCode(cause);
  const errors: unknown = Reflect.get(err, 'errors');
  if (Array.isArray(errors) && errors.length > 0) return errorCode(errors[0]);
  return undefined;
}

export interface TransportErrorContext {
  backend: string;
  connectMs: number;
}

export function classifyTransportError(err: unknown, ctx: TransportErrorContext): SvirError {
  if (err instanceof SvirError) return err;
  const { backend } = ctx;
  const code = errorCode(err);
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new SvirError('upstream_timeout', {
      backend,
      source: 'upstream',
      // Nothing reached the backend: another one may take the request at once.
      retryable: true,
      message: `Connecting to backend "${backend}" took longer than ${ctx.connectMs} ms (timeouts.connectMs).`,
      cause: err,
    });
  }
  if (code !== undefined && UNREACHABLE.has(code)) {
    return new SvirError('backend_unavailable', {
      backend,
      source: 'upstream',
      retryAfter: UNREACHABLE_RETRY_AFTER_S,
      message: `Backend "${backend}" cannot be reached (${code}).`,
      cause: err,
    });
  }
  const what = code !== undefined && BROKEN.has(code) ? `the connection broke (${code})` : 'the request failed';
  return new SvirError('upstream_error', {
    backend,
    source: 'upstream',
    message: `Backend "${backend}" failed: ${what}.`,
    cause: err,
  });
}
