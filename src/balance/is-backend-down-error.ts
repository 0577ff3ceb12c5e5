/**
 * Whether a failure says the backend itself is not there (nothing listens, the host is gone, the
 * connect hung), as opposed to a backend that answered badly or a full queue in svir. Such a
 * backend is marked down, so balancing puts it last until it answers again.
 */
import { SvirError } from '../errors.js';

export function isBackendDownError(error: unknown): error is SvirError {
  if (!(error instanceof SvirError) || error.source !== 'upstream') return false;
  if (error.code === 'backend_unavailable') return true;
  // A connect timeout stays retryable; the first-token and idle deadlines are not (the backend
  // was there and took the request).
  return error.code === 'upstream_timeout' && error.retryable;
}
