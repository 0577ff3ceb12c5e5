/**
 * The routed requests in flight: shutdown ends the ones still open when its grace period runs
 * out (each is aborted with a reason the route turns into a clean end: an error event inside a
 * stream, or an HTTP error before one), and the live page lists them (docs/live-page.md).
 *
 * What is kept is the request's own scope object from the route (routes/route-to-backend.ts),
 * which already holds its controller, summary and recorder: nothing is made per request for it.
 */
import type { SpeedResult } from '../metrics/measure-speed.js';
import type { RequestSummary } from '../logging/request-summary.js';

export interface Abortable {
  abort(reason: unknown): void;
}

export interface ActiveRequest {
  readonly controller: Abortable;
  /** Route, model, backend, start: what the live page shows of it. */
  readonly summary: RequestSummary;
  /** Its tokens so far (undefined before its first chunks), read only when the page asks. */
  readonly recorder: { progress(): SpeedResult | undefined };
}

export interface ActiveStreams {
  add(request: ActiveRequest): void;
  delete(request: ActiveRequest): void;
  abortAll(reason: unknown): void;
  values(): IterableIterator<ActiveRequest>;
  readonly size: number;
}

export function createActiveStreams(): ActiveStreams {
  const requests = new Set<ActiveRequest>();
  return {
    add(request) {
      requests.add(request);
    },
    delete(request) {
      requests.delete(request);
    },
    abortAll(reason) {
      for (const request of [...requests]) request.controller.abort(reason);
    },
    values() {
      return requests.values();
    },
    get size() {
      return requests.size;
    },
  };
}
