/**
 * A 400/422 whose body names `stream_options` or `reasoning_effort` → the same body once more
 * without the fields it names (R§2.5: a stricter server may refuse either; nothing was
 * generated, so a resend is safe). Null when the body names neither or they were not sent.
 */
import type { RetryPlan } from '../adapter.js';

const OPTIONAL_FIELDS = ['stream_options', 'reasoning_effort'] as const;

export function planOptionalFieldRetry(status: number, body: string, sent: Record<string, unknown>): RetryPlan | null {
  if (status !== 400 && status !== 422) return null;
  const named = OPTIONAL_FIELDS.filter((field) => body.includes(field) && field in sent);
  if (named.length === 0) return null;
  const retryBody = { ...sent };
  for (const field of named) delete retryBody[field];
  return { body: retryBody, change: `retried without ${named.join(' and ')} (the backend refused it)` };
}
