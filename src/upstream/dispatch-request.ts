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
 *
 * States (UpstreamExchange). The exchange's Phase, and undici's Parser as the exchange drives it;
 * beside them the reader's side: `#sink` (the reader, once `read` named one), `#waiting` (it
 * cannot take a read now), `#held` (reads that came meanwhile), `#joined` (the pieces of the
 * parser's current run, for a reader that joins them), `#ending` (the end or failure it has
 * still to hear), `#head` (the promise of the answer's head, until it came or failed).
 *
 *   Phase   Open      → Ended      onComplete (the reader hears the end after what it holds)
 *           Open      → Failed     onError, the head's or the body's (an abort among them)
 *           Open      → Discarded  discard() (socket closed, request aborted)
 *           Ended, Failed and Discarded are final: every callback after them does nothing.
 *   Parser  Running   → Paused        the head came (nothing is read before a reader comes);
 *                                     onData with no reader, a waiting one, or one that refused it
 *           Paused    → ResumeQueued  #flow: the reader took what was held and can take more
 *           ResumeQueued → Running    at the turn's end, still Open and the reader not waiting
 *           ResumeQueued → Paused     at the turn's end otherwise
 *   Reader  #waiting  true → false    #flow (read(), resume())
 *           #waiting  false → true    the reader refused a read (its data returned false)
 *           #joined   set             onData, when the reader joins: the rest of the run collects
 *           #joined   cleared         #flushJoined at the turn's end (or before the end or a
 *                                     failure), discard()
 */
import type { Readable } from 'node:stream';
import { errors, type Dispatcher } from 'undici';
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import type { JoinBuffer } from './create-join-buffer.js';
import { createUrlMemo } from './create-url-memo.js';
import type { DispatcherScratch } from './dispatcher-scratch.js';
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

interface Head {
  resolve(response: UpstreamResponse): void;
  reject(err: unknown): void;
}

/** Where the exchange is: open until the body ends, fails or is discarded (or the head fails). */
const enum Phase {
  /** Sent, then its head and body read: reads go on to the reader. */
  Open,
  /** The body came whole (onComplete); the reader hears the end once it took what it holds. */
  Ended,
  /** The request or its body failed (onError, an abort among them); the reader hears it at once. */
  Failed,
  /** svir will not read the body (discard): socket closed, request aborted, nobody hears more. */
  Discarded,
}

/** undici's parser, as this exchange drives it: a read or head refused pauses it. */
const enum Parser {
  /** Reading the socket: each piece comes to onData in the parser's run. */
  Running,
  /** A read (or the head) returned false: undici reads nothing until it is resumed. */
  Paused,
  /** Paused, with its resume queued for the end of the turn (#resumeSoon). */
  ResumeQueued,
}

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
  #parser = Parser.Running;
  #sink: BodySink | undefined;
  /** Reads that came while the reader could take none (undici stops after one). */
  #held: Buffer[] = [];
  /** Pieces of the parser's current run, for a reader that joins them (BodySink.joins). */
  #joined: Buffer[] | undefined;
  /** Where the pieces of a run are joined: the dispatcher's (create-join-buffer.ts), else a concat. */
  readonly #joinBuffer: JoinBuffer | undefined;
  readonly #handJoined = (): void => {
    this.#flushJoined();
  };
  /** The reader cannot take a read now; undici's reading is paused. */
  #waiting = true;
  #phase = Phase.Open;
  /** How the body ended, while the reader had still to hear it. */
  #ending: { err: unknown } | 'end' | undefined;
  readonly #onAbort = (): void => {
    if (this.#phase !== Phase.Open) return;
    // The socket first: undici's own abort would open a new connection (request-sockets.ts).
    if (this.#socket !== undefined) closeRequestSocket(this.#socket);
    // Before the request has a connection, onConnect aborts it.
    this.#abort?.(this.#reason());
  };

  constructor(signal: AbortSignalLike, payload: Buffer | Readable | undefined, head: Head, joinBuffer: JoinBuffer | undefined) {
    this.#signal = signal;
    this.#joinBuffer = joinBuffer;
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
  #settle(phase: Phase): void {
    this.#phase = phase;
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
    this.#pause();
    head.resolve({ statusCode, header: (name) => readRawHeader(rawHeaders, name), body: this });
    return false;
  }

  onData(chunk: Buffer): boolean {
    if (this.#phase !== Phase.Open) return true;
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
      this.#pause();
      return false;
    }
    if (!sink.data(chunk) && this.#phase === Phase.Open && this.#sink === sink) {
      this.#waiting = true;
      this.#pause();
      return false;
    }
    return true;
  }

  onComplete(): void {
    if (this.#phase !== Phase.Open) return;
    // What the run parsed before the end is read first.
    this.#flushJoined();
    if (this.#phase !== Phase.Open) return;
    this.#settle(Phase.Ended);
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
      this.#settle(Phase.Failed);
      head.reject(err);
      return;
    }
    if (this.#phase !== Phase.Open) return;
    // What the run parsed before the failure is read first, as it would have been piece by piece.
    this.#flushJoined();
    if (this.#phase !== Phase.Open) return;
    this.#settle(Phase.Failed);
    // A failure is told at once, even to a reader that cannot take reads now: what it still
    // held is lost with the connection anyway.
    this.#held = [];
    if (this.#sink === undefined) this.#ending = { err };
    else this.#sink.error(err);
  }

  // The body, called by svir.

  get over(): boolean {
    return this.#phase !== Phase.Open;
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
    if (this.#phase !== Phase.Open) return;
    this.#settle(Phase.Discarded);
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
    if (sink === undefined || this.#phase !== Phase.Open) return;
    const first = joined[0];
    let bytes: Buffer;
    if (joined.length === 1 && first !== undefined) bytes = first;
    else bytes = this.#joinBuffer === undefined ? Buffer.concat(joined) : this.#joinBuffer.join(joined);
    if (!sink.data(bytes) && this.#phase === Phase.Open && this.#sink === sink) this.#waiting = true;
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
    if (this.#phase === Phase.Open && this.#parser !== Parser.Running) this.#resumeSoon();
  }

  /**
   * undici's resume runs its parser at once, which it refuses from inside another parser's
   * callback: it waits for the current turn's end.
   */
  #resumeSoon(): void {
    if (this.#parser !== Parser.Paused) return;
    this.#parser = Parser.ResumeQueued;
    queueMicrotask(() => {
      this.#parser = Parser.Paused;
      if (this.#phase !== Phase.Open || this.#waiting) return;
      this.#parser = Parser.Running;
      this.#resumeParser?.();
    });
  }

  /** A read or the head was refused: undici's parser stops (a resume already queued stays). */
  #pause(): void {
    if (this.#parser === Parser.Running) this.#parser = Parser.Paused;
  }
}

/**
 * Sends the request; resolves with the answer's head once it came, rejects with what failed before
 * it. A dispatcher of svir's pool lends its scratch space (dispatcher-scratch.ts).
 */
export function dispatchRequest(dispatcher: Dispatcher & Partial<DispatcherScratch>, options: DispatchRequestOptions): Promise<UpstreamResponse> {
  const payload = options.body;
  return new Promise((resolve, reject) => {
    const { origin, path } = (dispatcher.urlParts ?? createUrlMemo())(options.url);
    const exchange = new UpstreamExchange(options.signal, payload, { resolve, reject }, dispatcher.joinBuffer);
    // undici reports its own failures to the handler (onResponseError), a bad argument included.
    dispatcher.dispatch({ origin, path, method: options.method, headers: options.headers, body: payload ?? null }, exchange);
  });
}
