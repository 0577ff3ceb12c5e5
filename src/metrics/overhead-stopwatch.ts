/**
 * svir's own overhead per request, measured by elimination: the request's wall time is split
 * into what svir was waiting on (a queue slot, the upstream's next bytes, the client draining
 * its socket) and everything else, which is svir at work (validation, routing, the adapter,
 * decoding, normalization, encoding, writing). The route says which state it enters before
 * each await; whatever is not a wait counts as svir.
 *
 * It is an upper bound rather than a CPU profile: time the event loop spent on other requests
 * between two steps of this one lands in the `svir` state too. On a busy proxy that is part of
 * the latency svir adds, so it is what a user wants to see. Pure: the clock is injected.
 */

export type StopwatchState = 'svir' | 'queue' | 'upstream' | 'client';

export interface OverheadStopwatch {
  /** Switches state; time since the last switch is charged to the state being left. */
  enter(state: StopwatchState): void;
  /** Stops the watch (idempotent) and returns the milliseconds spent in each state. */
  stop(): Record<StopwatchState, number>;
  readonly state: StopwatchState;
}

export function createOverheadStopwatch(now: () => number, startedAtMs: number = now()): OverheadStopwatch {
  const totals: Record<StopwatchState, number> = { svir: 0, queue: 0, upstream: 0, client: 0 };
  let state: StopwatchState = 'svir';
  let since = startedAtMs;
  let stopped = false;

  function charge(): void {
    const at = now();
    totals[state] += Math.max(0, at - since);
    since = at;
  }

  return {
    enter(next) {
      if (stopped || next === state) return;
      charge();
      state = next;
    },
    stop() {
      if (!stopped) {
        charge();
        stopped = true;
      }
      return { ...totals };
    },
    get state() {
      return state;
    },
  };
}
