/**
 * Runs one request against its candidate backends in order: the first attempt on the first
 * candidate, and, when it fails in a way shouldFailover allows (before anything reached the
 * client, retryable, once), a second attempt on the next candidate. Any other failure, and the
 * second attempt's, is the request's.
 */
import { shouldFailover } from './should-failover.js';

export interface FailoverHooks<T> {
  /** Whether anything has been written to the client (then no second attempt). */
  clientCommitted(): boolean;
  /** Called before the second attempt, with the failure of the first (for the log and metrics). */
  onFailover?(error: unknown, from: T, to: T): void;
}

export function runWithFailover<T>(
  candidates: readonly T[],
  attempt: (candidate: T) => Promise<void>,
  hooks: FailoverHooks<T>,
): Promise<void> {
  // One candidate (most models): nothing to fail over to, so its attempt's promise is the
  // request's, with no async frame around it to resume.
  const only = candidates.length === 1 ? candidates[0] : undefined;
  if (only !== undefined) return attempt(only);
  return tryInTurn(candidates, attempt, hooks);
}

async function tryInTurn<T>(
  candidates: readonly T[],
  attempt: (candidate: T) => Promise<void>,
  hooks: FailoverHooks<T>,
): Promise<void> {
  for (let i = 0; i < candidates.length; i += 1) {
    const candidate = candidates[i];
    if (candidate === undefined) break;
    try {
      await attempt(candidate);
      return;
    } catch (err) {
      const next = candidates[i + 1];
      const again = shouldFailover(err, {
        clientCommitted: hooks.clientCommitted(),
        attempts: i + 1,
        hasNext: next !== undefined,
      });
      if (!again || next === undefined) throw err;
      hooks.onFailover?.(err, candidate, next);
    }
  }
  throw new Error('runWithFailover needs at least one candidate');
}
