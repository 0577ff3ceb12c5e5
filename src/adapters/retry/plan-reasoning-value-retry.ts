/**
 * Ollama before v0.32.11 takes only the efforts it lists and refuses the rest with 400
 * `invalid reasoning value: 'xhigh' (must be "high", "medium", "low", or "none")`
 * (docs/ollama.md). The retry sends the nearest value it lists (higher on a tie), or no effort
 * when it lists none svir knows.
 */
import type { RetryPlan } from '../adapter.js';
import { effortRetryPlan } from './effort-retry-plan.js';

const REJECTED = /invalid reasoning value:\s*['"]?([\w-]+)['"]?\s*\(must be ([^)]*)\)/i;

export function planReasoningValueRetry(status: number, body: string, sent: Record<string, unknown>): RetryPlan | null {
  if (status !== 400) return null;
  const asked = sent.reasoning_effort;
  if (typeof asked !== 'string') return null;
  const match = REJECTED.exec(body.replace(/\\"/g, '"'));
  if (match === null) return null;
  const listed = [...(match[2] ?? '').matchAll(/[A-Za-z-]+/g)]
    .map((word) => word[0].toLowerCase())
    .filter((word) => word !== 'or');
  return effortRetryPlan(sent, asked, listed, 'refused');
}
