/**
 * A 400/422 whose body names optional fields that were sent → the same body once more without
 * them (docs/wire-protocol.md#optional-fields: a stricter server may refuse `stream_options` or
 * `reasoning_effort`; nothing was generated, so a resend is safe). Some servers refuse such fields
 * one at a time (422 on `stream_options`, then 400 on `reasoning_effort`): the server layer asks
 * again after each rejection, and takes each field at most once. Null when the body names none of
 * them or they were not sent.
 *
 * Only fields that change how the answer is delivered or tuned, not what was asked, are dropped,
 * and each is a name no prose uses (a field is named when it stands as a whole identifier).
 */
import type { RetryPlan } from '../adapter.js';

export const OPTIONAL_FIELDS = [
  'stream_options',
  'reasoning_effort',
  'parallel_tool_calls',
  'chat_template_kwargs',
  'service_tier',
] as const;

/** `stream_options` as a whole identifier: not inside `x_stream_options_y`. */
const NAMED: ReadonlyMap<string, RegExp> = new Map(
  OPTIONAL_FIELDS.map((field) => [field, new RegExp(`(?<![A-Za-z0-9_])${field}(?![A-Za-z0-9_])`)]),
);

export function planOptionalFieldRetry(status: number, body: string, sent: Record<string, unknown>): RetryPlan | null {
  if (status !== 400 && status !== 422) return null;
  const named = OPTIONAL_FIELDS.filter((field) => field in sent && NAMED.get(field)?.test(body) === true);
  if (named.length === 0) return null;
  const retryBody = { ...sent };
  for (const field of named) delete retryBody[field];
  return { body: retryBody, change: `retried without ${named.join(' and ')} (the backend refused it)`, fields: named };
}
