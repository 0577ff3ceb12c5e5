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
  /**
   * Switches state; time since the last switch is charged to the state being left. Returns the
   * clock's time it read, for the caller's other bookkeeping of the same moment (one clock read
   * per upstream read: its chunks' time for the metrics).
   */
  enter(state: StopwatchState): number;
  /** Stops the watch (idempotent) and returns the milliseconds spent in each state. */
  stop(): Record<StopwatchState, number>;
  readonly state: StopwatchState;
}

/**
 * A class rather than an object literal: a literal with a getter (`state`) is built slowly, with
 * an accessor of its own per object, and one stopwatch is made per request.
 */
class Stopwatch implements OverheadStopwatch {
  private readonly totals: Record<StopwatchState, number> = { svir: 0, queue: 0, upstream: 0, client: 0 };
  private current: StopwatchState = 'svir';
  private stopped = false;

  constructor(
    private readonly now: () => number,
    private since: number,
  ) {}

  private charge(at: number): void {
    this.totals[this.current] += Math.max(0, at - this.since);
    this.since = at;
  }

  enter(next: StopwatchState): number {
    const at = this.now();
    if (this.stopped || next === this.current) return at;
    this.charge(at);
    this.current = next;
    return at;
  }

  stop(): Record<StopwatchState, number> {
    if (!this.stopped) {
      this.charge(this.now());
      this.stopped = true;
    }
    return { ...this.totals };
  }

  get state(): StopwatchState {
    return this.current;
  }
}

export function createOverheadStopwatch(now: () => number, startedAtMs: number = now()): OverheadStopwatch {
  return new Stopwatch(now, startedAtMs);
}
