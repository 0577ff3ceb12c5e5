/**
 * vLLM hands `reasoning_effort` to the chat template, and a value the template does not name is
 * refused with 400: "Unexpected reasoning effort high. Supported types are xhigh (default),
 * medium, and low." (docs/wire-protocol.md#optional-fields). The retry sends the nearest supported
 * value, or, when the message lists none svir knows, no effort at all (the template's default).
 */
import type { RetryPlan } from '../adapter.js';
import { effortRetryPlan } from './effort-retry-plan.js';

const REJECTED = /unexpected reasoning effort\s+"?([\w-]+)"?[.,]?\s*supported (?:types|values) are ([^.]*)\./i;

export function planEffortRetry(status: number, body: string, sent: Record<string, unknown>): RetryPlan | null {
  if (status !== 400 && status !== 422) return null;
  const asked = sent.reasoning_effort;
  if (typeof asked !== 'string') return null;
  const match = REJECTED.exec(body);
  if (!match) return null;
  const supported = (match[2] ?? '')
    .replace(/\([^)]*\)/g, ' ')
    .split(/,|\band\b|\bor\b/)
    .map((piece) => piece.trim().replace(/^["'`]|["'`]$/g, '').toLowerCase())
    .filter((piece) => piece.length > 0);
  return effortRetryPlan(sent, asked, supported, 'refused by the template');
}
