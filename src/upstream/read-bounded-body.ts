/**
 * Reads an upstream error body, bounded in size and in time: a server may send megabytes of
 * HTML or stall the body. Whatever arrived by then is the body; the rest is dropped and the
 * response closed. (A 401/403 body is never read: its answer is known from the status, R§5.)
 */
import type { Dispatcher } from 'undici';
import { discardBody } from './discard-body.js';

export interface BoundedBodyLimits {
  maxBytes: number;
  timeoutMs: number;
}

/** Room for any real error message; an HTML page is cut, which mapUpstreamError tolerates. */
export const ERROR_BODY_LIMITS: BoundedBodyLimits = { maxBytes: 64 * 1024, timeoutMs: 10_000 };

export async function readBoundedBody(body: Dispatcher.ResponseData['body'], limits: BoundedBodyLimits): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  let size = 0;
  let complete = false;
  // Destroying an unfinished body makes undici emit an abort error: heard here, never uncaught.
  body.on('error', () => undefined);
  const timer = setTimeout(() => discardBody(body), limits.timeoutMs);
  try {
    for await (const chunk of body) {
      const bytes: Uint8Array = chunk;
      const room = limits.maxBytes - size;
      text += decoder.decode(bytes.byteLength > room ? bytes.subarray(0, room) : bytes, { stream: true });
      size += Math.min(bytes.byteLength, room);
      if (size >= limits.maxBytes) {
        // Closed here, before the loop's exit destroys the body by undici's abort.
        discardBody(body);
        break;
      }
    }
    complete = size < limits.maxBytes;
  } catch {
    // Timed out or cut: keep what arrived.
  } finally {
    clearTimeout(timer);
    if (!complete) discardBody(body);
  }
  return text + decoder.decode();
}
