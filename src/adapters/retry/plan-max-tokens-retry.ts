/**
 * OpenAI's and Azure's reasoning models refuse `max_tokens` ("Unsupported parameter:
 * 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."):
 * the same limit is sent once more under the name they read.
 */
import type { RetryPlan } from '../adapter.js';

export function planMaxTokensRetry(status: number, body: string, sent: Record<string, unknown>): RetryPlan | null {
  if (status !== 400 && status !== 422) return null;
  if (!('max_tokens' in sent) || 'max_completion_tokens' in sent) return null;
  if (!/max_tokens/.test(body) || !/max_completion_tokens/.test(body)) return null;
  const retryBody: Record<string, unknown> = { ...sent, max_completion_tokens: sent.max_tokens };
  delete retryBody.max_tokens;
  return { body: retryBody, change: 'retried with max_tokens sent as max_completion_tokens', fields: ['max_tokens', 'max_completion_tokens'] };
}
