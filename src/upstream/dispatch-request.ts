/**
 * One upstream request through undici's handler API (`dispatcher.dispatch`), instead of its
 * `request()`: the answer's head resolves the promise, and its body is no Readable but the
 * handler itself (upstream-body.ts), so each read goes from undici's parser straight to svir's
 * reader in the same turn. Backpressure is the parser's own pause: a read the reader cannot
 * take returns false, and undici stops reading the socket at once until svir resumes it.
 *
 * The handler has the callbacks undici 7's client calls itself (onConnect, onHeaders, onData,
 * onComplete, onError: those of its own `request()` and `stream()`), not the newer
 * onRequestStart/onResponseStart/... ones: for those, undici wraps the handler in an adapter
 * that builds a controller per request and an object of every response header (and of the
 * trailers), on every request. svir reads two headers at most (`header`), from the raw pairs.
 *
 * The body is paused from its head until a reader comes, so no read is lost or buffered while
 * the route decides what to do with the answer. An abort (the signal, or `discard`) closes the
 * request's socket before undici's own abort runs (request-sockets.ts says why).
 */
import type { Readable } from 'node:stream';
import { errors, type Dispatcher } from 'undici';
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import { readRawHeader } from './read-raw-header.js';
import type { BodySink, UpstreamBody } from './upstream-body.js';
import { closeRequestSocket, watchRequestSocket, type RequestSocket } from './request-sockets.js';

export interface UpstreamResponse {
  statusCode: number;
  /**
   * One header of the answer, its name in lower case: its value, an array when it was repeated,
   * undefined when absent (as undici's parsed headers would have it).
   */
  header(name: string): string | string[] | undefined;
  body: UpstreamBody;
}

export interface DispatchRequestOptions {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** The request body: one Buffer, or a stream of its pieces (with its content-length header). */
  body?: Buffer | Readable;
  /** Aborts the request, or the reading of its body, at once; its reason is the error. */
  signal: AbortSignalLike;
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

/**
 * Where the pieces of a joined read are copied (#flushJoined): one buffer for every exchange,
 * reused from read to read. Its reader takes the bytes within the call (BodySink.data), and a
 * Buffer.concat per read cost about twice the copy (a new backing store each time, outside the
 * heap, for the collector to count and free). A read longer than the largest kept is concatenated.
 */
let joinBuffer = Buffer.allocUnsafe(64 * 1024);
const JOIN_BUFFER_MAX = 1024 * 1024;

/** The pieces as one run of bytes, valid until the next joined read. */
function joinPieces(pieces: readonly Buffer[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  if (length > JOIN_BUFFER_MAX) return Buffer.concat(pieces, length);
  if (length > joinBuffer.length) joinBuffer = Buffer.allocUnsafe(Math.max(length, joinBuffer.length * 2));
  let at = 0;
  for (const piece of pieces) at += piece.copy(joinBuffer, at);
  return joinBuffer.subarray(0, length);
}

interface Head {
  resolve(response: UpstreamResponse): void;
  reject(err: unknown): void;
}

const OPEN = 0;
const ENDED = 1;
const FAILED = 2;
const DISCARDED = 3;

/** undici's abort of one request (given to onConnect): fails it with `err`, closes its socket. */
type Abort = (err?: Error) => void;

class UpstreamExchange implements Dispatcher.DispatchHandler, UpstreamBody {
  readonly #signal: AbortSignalLike;
  readonly #socket: RequestSocket | undefined;
  /** A request body sent as a stream, ended with a failed request. */
  readonly #payload: Readable | undefined;
  #head: Head | undefined;
  #abort: Abort | undefined;
  /** undici's parser's resume (given with the head): it reads on after a read returned false. */
  #resumeParser: (() => void) | undefined;
  /** A read (or the head) returned false: undici's parser is paused until #resumeParser. */
  #paused = false;
  #sink: BodySink | undefined;
  /** Reads that came while the reader could take none (undici stops after one). */
  #held: Buffer[] = [];
  /** Pieces of the parser's current run, for a reader that joins them (BodySink.joins). */
  #joined: Buffer[] | undefined;
  readonly #handJoined = (): void => {
    this.#flushJoined();
  };
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
    // Before the request has a connection, onConnect aborts it.
    this.#abort?.(this.#reason());
  };

  constructor(signal: AbortSignalLike, payload: Buffer | Readable | undefined, head: Head) {
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
   * listener from an AbortSignalLike costs more than all the rest of this bookkeeping.
   */
  #settle(state: number): void {
    this.#state = state;
  }

  // The handler, called by undici. A return of false pauses its parser.

  onConnect(abort: Abort): void {
    this.#abort = abort;
    if (this.#signal.aborted) abort(this.#reason());
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    // 1xx: informational, the answer is still to come.
    if (statusCode < 200 || this.#head === undefined) return true;
    const head = this.#head;
    this.#head = undefined;
    this.#resumeParser = resume;
    // Nothing is read until a reader comes (`read`).
    this.#paused = true;
    head.resolve({ statusCode, header: (name) => readRawHeader(rawHeaders, name), body: this });
    return false;
  }

  onData(chunk: Buffer): boolean {
    if (this.#state !== OPEN) return true;
    const joined = this.#joined;
    if (joined !== undefined) {
      joined.push(chunk);
      return true;
    }
    const sink = this.#sink;
    if (sink !== undefined && !this.#waiting && sink.joins?.() === true) {
      // The rest of this socket read is parsed in this same run: its pieces go to the reader
      // as one read, once the run and the turn's synchronous work are over.
      this.#joined = [chunk];
      queueMicrotask(this.#handJoined);
      return true;
    }
    if (sink === undefined || this.#waiting) {
      this.#held.push(chunk);
      this.#paused = true;
      return false;
    }
    if (!sink.data(chunk) && this.#state === OPEN && this.#sink === sink) {
      this.#waiting = true;
      this.#paused = true;
      return false;
    }
    return true;
  }

  onComplete(): void {
    if (this.#state !== OPEN) return;
    // What the run parsed before the end is read first.
    this.#flushJoined();
    if (this.#state !== OPEN) return;
    this.#settle(ENDED);
    if (this.#sink === undefined || this.#waiting || this.#held.length > 0) this.#ending = 'end';
    else this.#sink.end();
  }

  onError(err: Error): void {
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
    // What the run parsed before the failure is read first, as it would have been piece by piece.
    this.#flushJoined();
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
    this.#joined = undefined;
    this.#ending = undefined;
    if (this.#state !== OPEN) return;
    this.#settle(DISCARDED);
    if (this.#socket !== undefined) closeRequestSocket(this.#socket);
    this.#abort?.(new errors.RequestAbortedError('svir closed the upstream body'));
  }

  /**
   * The pieces of a parser run, to the reader as one read. The reader said it could take them
   * (joins), and nothing in between could change that but a step of this same stream; should it
   * refuse them after all, reading stops at undici's next piece, as for a held read.
   */
  #flushJoined(): void {
    const joined = this.#joined;
    if (joined === undefined) return;
    this.#joined = undefined;
    const sink = this.#sink;
    if (sink === undefined || this.#state !== OPEN) return;
    const bytes = joined.length === 1 ? joined[0] : joinPieces(joined);
    if (bytes !== undefined && !sink.data(bytes) && this.#state === OPEN && this.#sink === sink) this.#waiting = true;
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
    if (this.#state === OPEN && this.#paused) this.#resumeSoon();
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
      if (this.#state !== OPEN || this.#waiting || !this.#paused) return;
      this.#paused = false;
      this.#resumeParser?.();
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
