/**
 * A failure of the connection itself (undici or socket error, no HTTP answer to read) → one
 * SvirError: unreachable is 503, too slow is 504, cut off is 502. The message names the backend
 * and never carries the URL (it may hold a path the user considers private) or any header.
 */
import { z } from 'zod';
import { SvirError } from '../errors.js';

/** Where the request was when it failed: before the response headers, or reading the stream. */
export type TransportPhase = 'request' | 'stream';

const UNREACHABLE: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EADDRNOTAVAIL']);
const TIMEOUTS: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connecting',
  ETIMEDOUT: 'connecting',
  UND_ERR_HEADERS_TIMEOUT: 'answering',
  UND_ERR_BODY_TIMEOUT: 'sending the next chunk',
};

/** Seconds a client should wait before trying an unreachable backend again. */
export const UNREACHABLE_RETRY_AFTER_SECONDS = 5;

const errorShape = z.looseObject({
  code: z.string().optional(),
  errors: z.array(z.unknown()).optional(),
  cause: z.unknown().optional(),
});

/** Every error code in an error, its `cause` chain and an AggregateError's `errors` (happy eyeballs). */
function collectCodes(err: unknown, depth = 0): string[] {
  if (depth > 4) return [];
  const parsed = errorShape.safeParse(err);
  if (!parsed.success) return [];
  const codes = parsed.data.code === undefined ? [] : [parsed.data.code];
  for (const inner of parsed.data.errors ?? []) codes.push(...collectCodes(inner, depth + 1));
  if (parsed.data.cause !== undefined) codes.push(...collectCodes(parsed.data.cause, depth + 1));
  return codes;
}

export function mapTransportError(err: unknown, backend: string, phase: TransportPhase): SvirError {
  if (err instanceof SvirError) return err;
  const codes = collectCodes(err);
  const base = { source: 'upstream' as const, backend, cause: err };
  const prefix = `backend "${backend}"`;

  const timeout = codes.find((code) => TIMEOUTS[code] !== undefined);
  if (timeout !== undefined) {
    return new SvirError('upstream_timeout', { ...base, message: `${prefix} took too long ${TIMEOUTS[timeout]}.` });
  }
  const unreachable = codes.find((code) => UNREACHABLE.has(code));
  if (unreachable !== undefined) {
    return new SvirError('backend_unavailable', {
      ...base,
      retryAfter: UNREACHABLE_RETRY_AFTER_SECONDS,
      message: `${prefix} is unreachable (${unreachable}).`,
    });
  }
  const what = codes[0] === undefined ? '' : ` (${codes[0]})`;
  if (phase === 'stream') {
    return new SvirError('upstream_error', { ...base, message: `${prefix} cut the stream off${what}.` });
  }
  return new SvirError('upstream_error', { ...base, message: `${prefix} closed the connection without an answer${what}.` });
}
