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

export function createStreamDeadlines(options: StreamDeadlinesOptions): StreamDeadlines {
  const { backend, timeouts, keepaliveMs, onKeepalive } = options;
  const controller = options.controller ?? new AbortController();
  const signal = controller.signal;
  let phase: DeadlinePhase = 'first_token';
  let sawEvent = false;
  let expired: SvirError | undefined;
  let deadline: ReturnType<typeof setTimeout> | undefined;
  let keepalive: ReturnType<typeof setInterval> | undefined;

  function clearTimers(): void {
    if (deadline !== undefined) clearTimeout(deadline);
    if (keepalive !== undefined) clearInterval(keepalive);
    deadline = undefined;
    keepalive = undefined;
  }

  function expire(error: SvirError): void {
    if (phase === 'done') return;
    expired = error;
    phase = 'done';
    clearTimers();
    signal.removeEventListener('abort', onAbort);
    controller.abort(error);
  }

  /** The idle timer, once armed: an event restarts it in place (refresh, no new timer per read). */
  let idle: ReturnType<typeof setTimeout> | undefined;

  function armIdle(): void {
    if (idle !== undefined && idle === deadline) {
      idle.refresh();
      return;
    }
    if (deadline !== undefined) clearTimeout(deadline);
    idle = deadline = setTimeout(() => {
      expire(
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

  /** Someone else aborted the controller: the deadlines have nothing left to guard. */
  function onAbort(): void {
    if (phase === 'done') return;
    phase = 'done';
    clearTimers();
  }

  deadline = setTimeout(() => {
    expire(
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
    keepalive = setInterval(() => {
      if (phase === 'first_token') onKeepalive();
    }, keepaliveMs);
  }
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });

  return {
    signal,
    get expired() {
      return expired;
    },
    get phase() {
      return phase;
    },
    event() {
      if (phase === 'done') return;
      if (!sawEvent) {
        sawEvent = true;
        if (keepalive !== undefined) clearInterval(keepalive);
        keepalive = undefined;
      }
      if (phase === 'paused') return;
      phase = 'idle';
      armIdle();
    },
    pause() {
      if (phase !== 'idle') return;
      phase = 'paused';
      if (deadline !== undefined) clearTimeout(deadline);
      deadline = undefined;
    },
    resume() {
      if (phase !== 'paused') return;
      phase = 'idle';
      armIdle();
    },
    finish() {
      if (phase === 'done') return;
      phase = 'done';
      clearTimers();
      signal.removeEventListener('abort', onAbort);
    },
  };
}
