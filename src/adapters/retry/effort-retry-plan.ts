/**
 * The retry after a server refused the reasoning effort asked and listed the ones it takes: the
 * nearest listed effort (nearest-effort.ts), or, when it lists none svir knows, no effort at all
 * (the server's default). `refused` says by whom, in the changes header.
 */
import type { RetryPlan } from '../adapter.js';
import { nearestEffort } from './nearest-effort.js';

export function effortRetryPlan(sent: Record<string, unknown>, asked: string, listed: readonly string[], refused: string): RetryPlan {
  const nearest = nearestEffort(asked, listed);
  if (nearest !== undefined) {
    return {
      body: { ...sent, reasoning_effort: nearest },
      change: `reasoning_effort "${asked}" ${refused}: retried with "${nearest}"`,
      fields: ['reasoning_effort'],
    };
  }
  const retryBody = { ...sent };
  delete retryBody.reasoning_effort;
  return { body: retryBody, change: `reasoning_effort "${asked}" ${refused}: retried without it`, fields: ['reasoning_effort'] };
}
