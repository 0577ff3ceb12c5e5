/**
 * One upstream request through undici's handler API (`dispatcher.dispatch`), instead of its
 * `request()`: the answer's head resolves the promise, and its body is no Readable but the
 * handler itself (upstream-body.ts), so each read goes from undici's parser straight to svir's
 * reader in the same turn. Backpressure is the dispatch controller's pause and resume: undici
 * stops reading the socket the moment the reader cannot take more.
 *
 * The body is paused from its head until a reader comes, so no read is lost or buffered while
 * the route decides what to do with the answer. An abort (the signal, or `discard`) closes the
 * request's socket before undici's own abort runs (request-sockets.ts says why).
 */
import type { Readable } from 'node:stream';
import { errors, type Dispatcher } from 'undici';
import type { BodySink, UpstreamBody } from './upstream-body.js';
import { closeRequestSocket, watchRequestSocket, type RequestSocket } from './request-sockets.js';

/** Header names in lower case; a repeated header is an array. */
export type UpstreamHeaders = Record<string, string | string[] | undefined>;

export interface UpstreamResponse {
  statusCode: number;
  headers: UpstreamHeaders;
  body: UpstreamBody;
}

export interface DispatchRequestOptions {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** The request body: one Buffer, or a stream of its pieces (with its content-length header). */
  body?: Buffer | Readable;
  /** Aborts the request, or the reading of its body, at once; its reason is the error. */
  signal: AbortSignal;
}

interface UrlParts {
  origin: string;
  path: string;
}

/** Parsed call URLs: a backend has a handful, and parsing one costs more than the lookup. */
const urlParts = new Map<string, UrlParts>();
const URL_PARTS_LIMIT = 256;

function partsOf(url: string): UrlParts {
  let parts = urlParts.get(url);
  if (parts === undefined) {
    const parsed = new URL(url);
    parts = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (urlParts.size >= URL_PARTS_LIMIT) urlParts.clear();
    urlParts.set(url, parts);
  }
  return parts;
}

interface Head {
  resolve(response: UpstreamResponse): void;
  reject(err: unknown): void;
}

const OPEN = 0;
const ENDED = 1;
const FAILED = 2;
const DISCARDED = 3;

class UpstreamExchange implements Dispatcher.DispatchHandler, UpstreamBody {
  readonly #signal: AbortSignal;
  readonly #socket: RequestSocket | undefined;
  /** A request body sent as a stream, ended with a failed request. */
  readonly #payload: Readable | undefined;
  #head: Head | undefined;
  #controller: Dispatcher.DispatchController | undefined;
  #sink: BodySink | undefined;
  /** Reads that came while the reader could take none (undici stops after one). */
  #held: Buffer[] = [];
  /** The reader cannot take a read now; undici's reading is paused. */
  #waiting = true;
  #resuming = false;
  #state = OPEN;
  /** How the body ended, while the reader had still to hear it. */
  #ending: { err: unknown } | 'end' | undefined;
  readonly #onAbort = (): void => {
    if (this.#state !== OPEN) return;
    // The socket first: undici's own abort would open a new connection (request-sockets.ts).
    if (this.#socket !== undefined) closeRequestSocket(this.#socket);
    // Before the request has a connection, onRequestStart aborts it.
    this.#controller?.abort(this.#reason());
  };

  constructor(signal: AbortSignal, payload: Buffer | Readable | undefined, head: Head) {
    this.#signal = signal;
    // Listening before undici does, the socket is closed before undici's own abort runs.
    this.#socket = payload === undefined ? undefined : watchRequestSocket(payload);
    this.#payload = payload === undefined || Buffer.isBuffer(payload) ? undefined : payload;
    this.#head = head;
    signal.addEventListener('abort', this.#onAbort, { once: true });
  }

  #reason(): Error {
    const reason: unknown = this.#signal.reason;
    return reason instanceof Error ? reason : new errors.RequestAbortedError();
  }

  /**
   * The abort listener stays (it does nothing once the state moved on): the signal is made for
   * the request (the attempt's deadlines, a listing's timeout) and goes with it, and removing a
   * listener from an AbortSignal costs more than all the rest of this bookkeeping.
   */
  #settle(state: number): void {
    this.#state = state;
  }

  // The handler, called by undici.

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.#controller = controller;
    if (this.#signal.aborted) controller.abort(this.#reason());
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: UpstreamHeaders): void {
    // 1xx: informational, the answer is still to come.
    if (statusCode < 200 || this.#head === undefined) return;
    const head = this.#head;
    this.#head = undefined;
    // Nothing is read until a reader comes (`read`).
    controller.pause();
    head.resolve({ statusCode, headers, body: this });
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.#state !== OPEN) return;
    const sink = this.#sink;
    if (sink === undefined || this.#waiting) {
      this.#held.push(chunk);
      controller.pause();
      return;
    }
    if (!sink.data(chunk) && this.#state === OPEN && this.#sink === sink) {
      this.#waiting = true;
      controller.pause();
    }
  }

  onResponseEnd(): void {
    if (this.#state !== OPEN) return;
    this.#settle(ENDED);
    if (this.#sink === undefined || this.#waiting || this.#held.length > 0) this.#ending = 'end';
    else this.#sink.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, err: Error): void {
    if (this.#payload !== undefined && !this.#payload.destroyed) {
      // undici leaves a request body stream it did not finish to its sender.
      this.#payload.on('error', () => undefined);
      this.#payload.destroy(err);
    }
    if (this.#head !== undefined) {
      const head = this.#head;
      this.#head = undefined;
      this.#settle(FAILED);
      head.reject(err);
      return;
    }
    if (this.#state !== OPEN) return;
    this.#settle(FAILED);
    // A failure is told at once, even to a reader that cannot take reads now: what it still
    // held is lost with the connection anyway.
    this.#held = [];
    if (this.#sink === undefined) this.#ending = { err };
    else this.#sink.error(err);
  }

  // The body, called by svir.

  get over(): boolean {
    return this.#state !== OPEN;
  }

  read(sink: BodySink): void {
    this.#sink = sink;
    this.#flow();
  }

  resume(): void {
    if (this.#waiting) this.#flow();
  }

  discard(): void {
    this.#sink = undefined;
    this.#held = [];
    this.#ending = undefined;
    if (this.#state !== OPEN) return;
    this.#settle(DISCARDED);
    if (this.#socket !== undefined) closeRequestSocket(this.#socket);
    this.#controller?.abort(new errors.RequestAbortedError('svir closed the upstream body'));
  }

  /** Hands the reader what it has still to hear, then lets undici read on. */
  #flow(): void {
    const sink = this.#sink;
    if (sink === undefined) return;
    this.#waiting = false;
    while (this.#held.length > 0) {
      const chunk = this.#held.shift();
      if (chunk === undefined) break;
      if (!sink.data(chunk)) {
        if (this.#sink === sink) this.#waiting = true;
        return;
      }
      if (this.#sink !== sink) return;
    }
    const ending = this.#ending;
    if (ending !== undefined) {
      this.#ending = undefined;
      if (ending === 'end') sink.end();
      else sink.error(ending.err);
      return;
    }
    if (this.#state === OPEN && this.#controller?.paused === true) this.#resumeSoon();
  }

  /**
   * undici's resume runs its parser at once, which it refuses from inside another parser's
   * callback: it waits for the current turn's end.
   */
  #resumeSoon(): void {
    if (this.#resuming) return;
    this.#resuming = true;
    queueMicrotask(() => {
      this.#resuming = false;
      if (this.#state === OPEN && !this.#waiting) this.#controller?.resume();
    });
  }
}

/** Sends the request; resolves with the answer's head once it came, rejects with what failed before it. */
export function dispatchRequest(dispatcher: Dispatcher, options: DispatchRequestOptions): Promise<UpstreamResponse> {
  const payload = options.body;
  return new Promise((resolve, reject) => {
    const { origin, path } = partsOf(options.url);
    const exchange = new UpstreamExchange(options.signal, payload, { resolve, reject });
    // undici reports its own failures to the handler (onResponseError), a bad argument included.
    dispatcher.dispatch({ origin, path, method: options.method, headers: options.headers, body: payload ?? null }, exchange);
  });
}
