/**
 * One load run with autocannon: `connections` clients sending the streamed chat request back to
 * back for `durationS` seconds. Latency is autocannon's, taken when the whole response has
 * arrived; a response that does not end with `data: [DONE]` counts as a mismatch.
 */
import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSec: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Responses complete with a 2xx status. */
  completed: number;
  errors: number;
  non2xx: number;
  mismatches: number;
  durationS: number;
}

export async function runLoad(options: { port: number; body: string; connections: number; durationS: number }): Promise<LoadResult> {
  const result = await autocannon({
    url: `http://127.0.0.1:${options.port}/v1/chat/completions`,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: options.body,
    connections: options.connections,
    duration: options.durationS,
    timeout: 10,
    verifyBody: (body) => body.endsWith('data: [DONE]\n\n'),
  });
  const completed = result['2xx'];
  return {
    requestsPerSec: completed / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    completed,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    mismatches: result.mismatches,
    durationS: result.duration,
  };
}
