/** How a routed answer ended, as the requests metric counts it. */
import type { RequestSummary } from '../logging/request-summary.js';
import type { RecordedFinish } from '../metrics/request-recorder.js';

const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter'] as const;

function isFinishReason(reason: string | undefined): reason is (typeof FINISH_REASONS)[number] {
  return FINISH_REASONS.some((known) => known === reason);
}

/** How the answer ended, for the requests metric, once the response is closed. */
export function finishOf(summary: RequestSummary, clientLeft: boolean): RecordedFinish {
  if (clientLeft) return 'aborted';
  const reason = summary.finishReason;
  return summary.error === undefined && isFinishReason(reason) ? reason : 'error';
}
