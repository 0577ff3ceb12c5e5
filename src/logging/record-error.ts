import { SvirError, toSvirError } from '../errors.js';
import type { RequestSummary } from './request-summary.js';

/** The error as the client got it (its code, e.g. a 413's `request_too_large`); an unexpected one keeps its own words. */
export function recordError(summary: RequestSummary, err: unknown): void {
  const answered = toSvirError(err);
  const message = answered.code === 'internal_error' && !(err instanceof SvirError) ? (err instanceof Error ? err.message : String(err)) : answered.message;
  summary.error = { code: answered.code, message, source: answered.source };
}
