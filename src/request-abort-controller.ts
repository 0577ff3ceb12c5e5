/**
 * The AbortController of one routed request (the client's leave, shutdown and a passed deadline
 * abort it). The attempt's deadlines must stop when anyone else aborts it; they are told by a
 * plain call right after the abort rather than by an `abort` listener on the signal: adding and
 * removing an EventTarget listener on an AbortSignal costs about 2.5 µs (micro-benchmark, one
 * core), on every request, for an abort that almost never comes.
 *
 * One watcher at a time: the attempts of a request run one after another, and each attempt's
 * deadlines take the slot when they start and give it back when they finish.
 */
export class RequestAbortController extends AbortController {
  private watcher: (() => void) | undefined;

  /** `onAbort` runs once, after the signal is aborted (and its listeners ran). */
  watch(onAbort: () => void): void {
    this.watcher = onAbort;
  }

  /** Stops watching, when `onAbort` is still the watcher. */
  unwatch(onAbort: () => void): void {
    if (this.watcher === onAbort) this.watcher = undefined;
  }

  override abort(reason?: unknown): void {
    const watcher = this.watcher;
    this.watcher = undefined;
    const first = !this.signal.aborted;
    super.abort(reason);
    if (first) watcher?.();
  }
}
