/**
 * Ollama refuses a reasoning effort other than `none` for a model that cannot think: 400
 * `"<model>" does not support thinking` (docs/ollama.md). The message does not name the field,
 * so the generic optional-field retry does not see it; nothing was generated, so the same body
 * without the effort is sent once more.
 */
import type { RetryPlan } from '../adapter.js';

const NO_THINKING = /does not support thinking/i;

export function planNoThinkingRetry(status: number, body: string, sent: Record<string, unknown>): RetryPlan | null {
  if (status !== 400 || !NO_THINKING.test(body)) return null;
  const fields = ['reasoning_effort', 'reasoning'].filter((field) => field in sent);
  if (fields.length === 0) return null;
  const retryBody = { ...sent };
  for (const field of fields) delete retryBody[field];
  return { body: retryBody, change: `retried without ${fields.join(' and ')} (the model does not reason)`, fields };
}
