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
 * abort) rather than a controller of their own chained to it: an AbortSignal costs a few µs to
 * create and more to collect, on every request. A passed deadline is never retried elsewhere
 * (both are `retryable: false`), so the request's signal may well end with it.
 *
 * While the first token is awaited longer than `keepaliveMs`, `onKeepalive` fires every
 * `keepaliveMs`: the route may commit the stream and send a `: keepalive` comment so clients
 * with their own read timeout do not give up during a long prompt.
 */
import { SvirError } from '../errors.js';

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
  controller?: AbortController;
}

export type DeadlinePhase = 'first_token' | 'idle' | 'paused' | 'done';

export interface StreamDeadlines {
  /** The controller's: aborts when a deadline passes (reason: the SvirError) or the controller is aborted otherwise. */
  readonly signal: AbortSignal;
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

/**
 * A class rather than an object literal: a literal with getters (`expired`, `phase`) is built
 * slowly, with accessors of its own per object, and one is made per attempt.
 */
class Deadlines implements StreamDeadlines {
  readonly signal: AbortSignal;
  private current: DeadlinePhase = 'first_token';
  private sawEvent = false;
  private timedOut: SvirError | undefined;
  /** The first-token timer, then the idle one. */
  private deadline: ReturnType<typeof setTimeout> | undefined;
  /** The idle timer, once armed: an event restarts it in place (refresh, no new timer per read). */
  private idle: ReturnType<typeof setTimeout> | undefined;
  private keepalive: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly options: StreamDeadlinesOptions,
    private readonly controller: AbortController,
  ) {
    this.signal = controller.signal;
    const { backend, timeouts, keepaliveMs, onKeepalive } = options;
    this.deadline = setTimeout(() => {
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
    }, timeouts.firstTokenMs);
    if (keepaliveMs > 0 && onKeepalive !== undefined) {
      this.keepalive = setInterval(() => {
        if (this.current === 'first_token') onKeepalive();
      }, keepaliveMs);
    }
    if (this.signal.aborted) this.onAbort();
    else this.signal.addEventListener('abort', this.onAbort, { once: true });
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
    this.clearTimers();
  };

  private clearTimers(): void {
    if (this.deadline !== undefined) clearTimeout(this.deadline);
    if (this.keepalive !== undefined) clearInterval(this.keepalive);
    this.deadline = undefined;
    this.keepalive = undefined;
  }

  private expire(error: SvirError): void {
    if (this.current === 'done') return;
    this.timedOut = error;
    this.current = 'done';
    this.clearTimers();
    this.signal.removeEventListener('abort', this.onAbort);
    this.controller.abort(error);
  }

  private armIdle(): void {
    if (this.idle !== undefined && this.idle === this.deadline) {
      this.idle.refresh();
      return;
    }
    if (this.deadline !== undefined) clearTimeout(this.deadline);
    const { backend, timeouts } = this.options;
    this.idle = this.deadline = setTimeout(() => {
      this.expire(
        new SvirError('upstream_timeout', {
          backend,
          source: 'upstream',
          // The backend was generating: sending the prompt again elsewhere restarts the work.
          retryable: false,
          message: `Backend "${backend}" sent nothing for ${timeouts.idleMs} ms in the middle of the stream (timeouts.idleMs).`,
        }),
      );
    }, timeouts.idleMs);
  }

  event(): void {
    if (this.current === 'done') return;
    if (!this.sawEvent) {
      this.sawEvent = true;
      if (this.keepalive !== undefined) clearInterval(this.keepalive);
      this.keepalive = undefined;
    }
    if (this.current === 'paused') return;
    this.current = 'idle';
    this.armIdle();
  }

  pause(): void {
    if (this.current !== 'idle') return;
    this.current = 'paused';
    if (this.deadline !== undefined) clearTimeout(this.deadline);
    this.deadline = undefined;
  }

  resume(): void {
    if (this.current !== 'paused') return;
    this.current = 'idle';
    this.armIdle();
  }

  finish(): void {
    if (this.current === 'done') return;
    this.current = 'done';
    this.clearTimers();
    this.signal.removeEventListener('abort', this.onAbort);
  }
}

export function createStreamDeadlines(options: StreamDeadlinesOptions): StreamDeadlines {
  return new Deadlines(options, options.controller ?? new AbortController());
}
