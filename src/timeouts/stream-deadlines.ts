/**
 * The deadlines of one upstream attempt after the connection: the first token, then the gap
 * between two chunks, counted on SSE events rather than bytes (a server's keepalive comments do not
 * count as a first token). The connect deadline belongs to the socket and is the backend's undici
 * Agent's (upstream/create-upstream-pool.ts).
 *
 * The chat route creates one per attempt, hands `signal` to the upstream request so that a
 * passed deadline aborts it, and reports each upstream event. When a deadline passes, `signal`
 * aborts with a SvirError `upstream_timeout` (504): the route answers it as an HTTP error when
 * nothing was sent yet, as an error event inside the stream otherwise.
 *
 * The deadlines abort the request's own controller (the one the client's leave and shutdown
 * abort) rather than a controller of their own chained to it: one controller per request, and
 * no listener from one signal to another. A passed deadline is never retried elsewhere
 * (both are `retryable: false`), so the request's signal may well end with it.
 *
 * While the first token is awaited longer than `keepaliveMs`, `onKeepalive` fires every
 * `keepaliveMs`: the route may commit the stream and send a `: keepalive` comment so clients
 * with their own read timeout do not give up during a long prompt.
 */
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import { SvirError } from '../errors.js';
import { RequestAbortController } from '../abort/request-abort-controller.js';

export interface StreamTimeouts {
  firstTokenMs: number;
  idleMs: number;
}

export interface StreamDeadlinesOptions {
  backend: string;
  timeouts: StreamTimeouts;
  /** 0: never. */
  keepaliveMs: number;
  onKeepalive?: () => void;
  /**
   * The request's controller: a passed deadline aborts it, and its abort by anyone else (the
   * client went away, shutdown) stops the deadlines. One of their own when absent.
   */
  controller?: RequestAbortController;
  /**
   * When the deadlines start (performance.now() ms), if not at their making: the route reads the
   * clock before the request leaves and makes them after, off the way to the server.
   */
  startedAt?: number;
}

export type DeadlinePhase = 'first_token' | 'idle' | 'paused' | 'done';

export interface StreamDeadlines {
  /** The controller's: aborts when a deadline passes (reason: the SvirError) or the controller is aborted otherwise. */
  readonly signal: AbortSignalLike;
  /** The timeout that fired, if one did. */
  readonly expired: SvirError | undefined;
  readonly phase: DeadlinePhase;
  /** One upstream SSE event arrived: the first one ends the first-token wait; each restarts the idle deadline. */
  event(): void;
  /**
   * svir is waiting on its client (a full socket), not on the upstream: the idle deadline stops
   * so a slow reader is not blamed on the backend. `resume` restarts it afresh.
   */
  pause(): void;
  resume(): void;
  /** The attempt is over: clears every timer. */
  finish(): void;
}

/** Timers are set in whole milliseconds: a timer list is kept per distinct duration. */
function delayUntil(dueAt: number, at: number): number {
  return Math.max(1, Math.ceil(dueAt - at));
}

/**
 * A class rather than an object literal: a literal with getters (`expired`, `phase`) is built
 * slowly, with accessors of its own per object, and one is made per attempt.
 *
 * ONE timer per attempt, set lazily: the deadlines are times (`firstTokenAt`, `idleAt`, the next
 * keepalive) and the timer is only ever due at or before the earliest of them. When it fires it
 * compares the clock with them and acts, or sets itself again for what is left. An event moves
 * `idleAt` and touches no timer (refreshing one re-inserts it into Node's timer list, on every
 * read); a pause leaves the timer to fire idle. Per attempt that is one setTimeout and one
 * clearTimeout where a first-token timer, a keepalive interval and an idle timer (with a new one
 * on every resume) were made and cleared.
 */
class Deadlines implements StreamDeadlines {
  readonly signal: AbortSignalLike;
  private current: DeadlinePhase = 'first_token';
  private timedOut: SvirError | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the pending timer fires (clock ms); never after the deadline in force. */
  private timerDueAt = 0;
  private readonly firstTokenAt: number;
  /** The next keepalive while the first token is awaited; Infinity: none. */
  private keepaliveAt = Infinity;
  /** When the idle deadline passes, once the first event came (moved by each event and by resume). */
  private idleAt = Infinity;

  constructor(
    private readonly options: StreamDeadlinesOptions,
    private readonly controller: RequestAbortController,
  ) {
    this.signal = controller.signal;
    const at = options.startedAt ?? performance.now();
    this.firstTokenAt = at + options.timeouts.firstTokenMs;
    if (options.keepaliveMs > 0 && options.onKeepalive !== undefined) this.keepaliveAt = at + options.keepaliveMs;
    if (this.signal.aborted) {
      this.current = 'done';
      return;
    }
    this.signal.addEventListener('abort', this.onAbort);
    // Made after their start: the timer is due at the same time all the same.
    this.arm(Math.min(this.firstTokenAt, this.keepaliveAt), options.startedAt === undefined ? at : performance.now());
  }

  get expired(): SvirError | undefined {
    return this.timedOut;
  }

  get phase(): DeadlinePhase {
    return this.current;
  }

  /** Someone else aborted the controller: the deadlines have nothing left to guard. */
  private readonly onAbort = (): void => {
    if (this.current === 'done') return;
    this.current = 'done';
    this.clearTimer();
  };

  private readonly onTimer = (): void => {
    this.timer = undefined;
    const at = performance.now();
    const { backend, timeouts, keepaliveMs, onKeepalive } = this.options;
    if (this.current === 'first_token') {
      // In the order they fell due: on a loop held up past both, the keepalive that was due
      // first still goes out before the 504 (as an interval and a timeout fired in order did).
      if (at >= this.keepaliveAt && this.keepaliveAt < this.firstTokenAt) {
        // From this tick, as an interval counts (a late tick is not caught up).
        this.keepaliveAt = at + keepaliveMs;
        onKeepalive?.();
        // The keepalive may have ended the attempt (a write that throws closes the response).
        if (this.current !== 'first_token') return;
      }
      if (at >= this.firstTokenAt) {
        this.expire(
          new SvirError('upstream_timeout', {
            backend,
            source: 'upstream',
            // The client has already waited the whole first-token deadline; a second one on another
            // backend would double it.
            retryable: false,
            message: `Backend "${backend}" sent no first token within ${timeouts.firstTokenMs} ms (timeouts.firstTokenMs).`,
          }),
        );
        return;
      }
      this.arm(Math.min(this.firstTokenAt, this.keepaliveAt), at);
      return;
    }
    // Paused: svir waits on its client; resume sets the timer again.
    if (this.current !== 'idle') return;
    if (at >= this.idleAt) {
      this.expire(
        new SvirError('upstream_timeout', {
          backend,
          source: 'upstream',
          // The backend was generating: sending the prompt again elsewhere restarts the work.
          retryable: false,
          message: `Backend "${backend}" sent nothing for ${timeouts.idleMs} ms in the middle of the stream (timeouts.idleMs).`,
        }),
      );
      return;
    }
    this.arm(this.idleAt, at);
  };

  private arm(dueAt: number, at: number): void {
    this.timerDueAt = dueAt;
    this.timer = setTimeout(this.onTimer, delayUntil(dueAt, at));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private expire(error: SvirError): void {
    if (this.current === 'done') return;
    this.timedOut = error;
    this.current = 'done';
    this.clearTimer();
    this.signal.removeEventListener('abort', this.onAbort);
    this.controller.abort(error);
  }

  /** The idle deadline runs again from now; the timer is set anew only when it would fire too late. */
  private startIdle(): void {
    this.current = 'idle';
    const at = performance.now();
    this.idleAt = at + this.options.timeouts.idleMs;
    if (this.timer === undefined) this.arm(this.idleAt, at);
    else if (this.timerDueAt > this.idleAt) {
      // The first token's (or a keepalive's) timer, due after the idle deadline: once per attempt.
      clearTimeout(this.timer);
      this.arm(this.idleAt, at);
    }
  }

  event(): void {
    if (this.current === 'done' || this.current === 'paused') return;
    this.startIdle();
  }

  pause(): void {
    if (this.current !== 'idle') return;
    this.current = 'paused';
  }

  resume(): void {
    if (this.current !== 'paused') return;
    this.startIdle();
  }

  finish(): void {
    if (this.current === 'done') return;
    this.current = 'done';
    this.clearTimer();
    this.signal.removeEventListener('abort', this.onAbort);
  }
}

export function createStreamDeadlines(options: StreamDeadlinesOptions): StreamDeadlines {
  return new Deadlines(options, options.controller ?? new RequestAbortController());
}
