/**
 * One load run with autocannon: `connections` clients sending the streamed chat request back to
 * back for `durationS` seconds. Latency is autocannon's, taken when the whole response has
 * arrived; a response that does not end as a whole answer of its route (`data: [DONE]` for chat) counts
 * as a mismatch.
 */
import autocannon from 'autocannon';
import type { BenchRoute } from './routes.js';

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

export async function runLoad(options: { port: number; route: BenchRoute; connections: number; durationS: number }): Promise<LoadResult> {
  const { route } = options;
  const result = await autocannon({
    url: `http://127.0.0.1:${options.port}${route.path}`,
    method: 'POST',
    headers: { ...route.headers, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: route.body,
    connections: options.connections,
    duration: options.durationS,
    timeout: 10,
    verifyBody: (body) => route.complete(body),
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
