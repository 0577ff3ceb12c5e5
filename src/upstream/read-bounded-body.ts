/**
 * Reads an upstream error body, bounded in size and in time: a server may send megabytes of
 * HTML or stall the body. Whatever arrived by then is the body; the rest is dropped and the
 * response closed. (A 401/403 body is never read: its answer is known from the status,
 * docs/wire-protocol.md#http-errors.)
 */
import type { UpstreamBody } from './upstream-body.js';

export interface BoundedBodyLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
}

/** Room for any real error message; an HTML page is cut, which mapUpstreamError tolerates. */
export const ERROR_BODY_LIMITS: BoundedBodyLimits = { maxBytes: 64 * 1024, timeoutMs: 10_000 };

export function readBoundedBody(body: UpstreamBody, limits: BoundedBodyLimits): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let size = 0;
  return new Promise((resolve) => {
    const finish = (): void => {
      clearTimeout(timer);
      resolve(text + decoder.decode());
    };
    const timer = setTimeout(() => {
      // Too slow: keep what arrived.
      body.discard();
      finish();
    }, limits.timeoutMs);
    body.read({
      data(bytes) {
        const room = limits.maxBytes - size;
        text += decoder.decode(bytes.byteLength > room ? bytes.subarray(0, room) : bytes, { stream: true });
        size += Math.min(bytes.byteLength, room);
        if (size < limits.maxBytes) return true;
        body.discard();
        finish();
        return false;
      },
      end: finish,
      // Cut: keep what arrived.
      error: finish,
    });
  });
}
