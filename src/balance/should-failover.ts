/**
 * Whether a failed attempt may be sent once more to the next backend that serves the model:
 * only when nothing has reached the client yet (after the first byte a second answer cannot be
 * spliced into the first), only once per request, and only for failures the error marks
 * retryable (unreachable, 5xx, a full queue, a connect timeout; not a request the backend
 * rejected, nor a first-token or idle timeout the client has already sat through).
 */
import { SvirError } from '../errors.js';

export interface FailoverState {
  /** Anything (headers, a keepalive comment, a chunk) was written to the client. */
  clientCommitted: boolean;
  /** Attempts already made for this request. */
  attempts: number;
  /** Another candidate backend is left to try. */
  hasNext: boolean;
}

/** One retry on the next backend at most: a request is never sent more than twice. */
export const MAX_ATTEMPTS = 2;

export function shouldFailover(error: unknown, state: FailoverState): boolean {
  if (state.clientCommitted || !state.hasNext || state.attempts >= MAX_ATTEMPTS) return false;
  return error instanceof SvirError && error.retryable;
}
