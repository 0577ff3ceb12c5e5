/**
 * The upstream event stream → clean steps, in one synchronous pass per upstream read: each read
 * undici's parser hands over (upstream-body.ts) runs bytes → SSE events (decoder) → neutral
 * parts (adapter) → clean chunks (normalizer) and hands the step to the consumer at once, which
 * encodes and writes it in the same turn. No stream, promise or generator lies between the
 * socket read and the client write.
 *
 * Backpressure: when the consumer says it cannot take more (the client's socket is full), the
 * read returns false and undici stops reading the upstream socket at once; `resume()` (on the
 * client's `drain`) starts it again.
 */
import type { AbortSignalLike } from '../abort/abort-signal-like.js';
import type { Adapter } from '../adapters/adapter.js';
import type { StreamContext } from '../normalize/stream-context.js';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import type { ChunkGather, Normalizer, NormalizerStep } from '../normalize/normalizer.js';
import type { SseEvent } from '../normalize/parts.js';
import type { SseDecoder } from '../normalize/sse-decoder.js';
import { mapTransportError } from './map-transport-error.js';
import type { UpstreamBody } from './upstream-body.js';

export interface ReadCleanStepsArgs {
  body: UpstreamBody;
  /** Reads one SSE event: the adapter's chat reader, or its legacy completions reader. */
  adapter: Pick<Adapter, 'readEvent'>;
  ctx: StreamContext;
  decoder: SseDecoder;
  normalizer: Normalizer;
  /** The reason the consumer aborted (client gone, shutdown), rethrown as is instead of mapped. */
  signal: AbortSignalLike;
  /** Told around each upstream read (deadlines, overhead metrics). */
  observer?: ReadObserver;
}

export interface ReadObserver {
  /** svir starts waiting for the upstream's next bytes. */
  beforeRead(): void;
  /** They came, holding this many SSE events (0: a comment or part of an event). */
  afterRead(events: number): void;
  /** A step was handed over (metrics read its chunks here, once per read). */
  step?(step: NormalizerStep): void;
}

export interface StepSink {
  /**
   * Takes one step, synchronously; the step that is `done` or carries an error is the last.
   * Returns false when it cannot take another for now (the client's socket is full): reading
   * stops until the pump's `resume()`.
   */
  take(step: NormalizerStep): boolean;
  /**
   * Whether it would take the next step now, and may take the pieces of one socket read as one
   * step (upstream-body.ts, BodySink.joins): fewer steps, each of more chunks. Without it, a
   * step per piece.
   */
  joins?(): boolean;
}

export interface CleanStepPump {
  /** The consumer can take steps again. */
  resume(): void;
  /** The consumer gives up before the last step: the upstream body is closed. */
  cancel(): void;
  /**
   * Resolves once the last step was taken (or the pump was cancelled). Rejects with the abort
   * reason when the signal ended the read (client gone, shutdown, a deadline), or with what
   * `take` threw.
   */
  readonly finished: Promise<void>;
}

/** After `[DONE]`, what the server still sends is read (to keep its connection) up to this. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/**
 * ...and for this long: a server that sends `[DONE]` and then neither ends the body nor closes
 * would otherwise hold the connection, and a graceful shutdown, until the idle deadline.
 */
const DRAIN_LIMIT_MS = 1_000;

/** Reads the rest of a body after `[DONE]`, so that its connection goes back to the pool. */
function drainRest(body: UpstreamBody): void {
  if (body.over) return;
  let size = 0;
  const timer = setTimeout(() => {
    // The server closed it first, or took too long: nothing to reuse.
    body.discard();
  }, DRAIN_LIMIT_MS);
  const stop = (): void => clearTimeout(timer);
  body.read({
    data(bytes) {
      size += bytes.byteLength;
      if (size <= DRAIN_LIMIT_BYTES) return true;
      stop();
      body.discard();
      return false;
    },
    end: stop,
    error: stop,
  });
}

/**
 * Runs the events of one read through the adapter and the normalizer, their chunks gathered in
 * `gather` (no step per event); returns the step that ends the stream, which holds them.
 */
function pushEvents(events: readonly SseEvent[], args: ReadCleanStepsArgs, gather: ChunkGather): NormalizerStep | undefined {
  for (const event of events) {
    const step = args.normalizer.pushTo(args.adapter.readEvent(event, args.ctx), gather);
    if (step !== undefined) return step;
  }
  return undefined;
}

/**
 * Hands `sink` a step whenever a read produced chunks, and a last step that is `done` or
 * carries the error. An upstream failure becomes that error step; an abort rejects `finished`.
 */
export function pumpCleanSteps(args: ReadCleanStepsArgs, sink: StepSink): CleanStepPump {
  const { body, observer } = args;
  let over = false;
  let paused = false;
  let settle: { resolve(): void; reject(err: unknown): void } = { resolve: () => undefined, reject: () => undefined };
  const finished = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  /** The chunks of the read being run; emptied before its step is handed over. */
  const gather: ChunkGather = { chunks: undefined };

  function takeGathered(): CleanChunk[] {
    const chunks = gather.chunks ?? [];
    gather.chunks = undefined;
    return chunks;
  }

  /** The last step was taken. After `[DONE]` the rest of the body is read, so the connection is reused. */
  function complete(step: NormalizerStep, ended: boolean): void {
    over = true;
    if (!ended) {
      // Anything but a clean end (error, abort) closes the connection, which also tells a
      // local server to stop generating.
      if (step.done) drainRest(body);
      else body.discard();
    }
    settle.resolve();
  }

  function fail(err: unknown): void {
    over = true;
    body.discard();
    settle.reject(err);
  }

  /** Hands `step` over; false when the consumer cannot take another for now. */
  function deliver(step: NormalizerStep, last: boolean, ended = false): boolean {
    let room = false;
    let failure: { err: unknown } | undefined;
    try {
      room = sink.take(step);
    } catch (err) {
      failure = { err };
    }
    // After the take, which may be the stream's first write: the metrics are bookkeeping, and
    // they time the step's chunks by the read they came in, not by when they are read here.
    try {
      observer?.step?.(step);
    } catch (err) {
      failure ??= { err };
    }
    if (failure !== undefined) {
      fail(failure.err);
      return false;
    }
    if (last) complete(step, ended);
    else if (room) observer?.beforeRead();
    else paused = true;
    return room;
  }

  /** One read (the pieces of one parser run joined, when the sink joins). */
  function onData(bytes: Uint8Array): boolean {
    if (over) return false;
    let step: NormalizerStep | undefined;
    try {
      const events = args.decoder.feed(bytes);
      observer?.afterRead(events.length);
      step = pushEvents(events, args, gather);
    } catch (err) {
      // The decoder refuses an endless line with a SvirError; mapTransportError keeps it.
      return deliver({ chunks: takeGathered(), error: mapTransportError(err, args.ctx.backend, 'stream'), done: false }, true);
    }
    const chunks = takeGathered();
    if (step !== undefined) return deliver(step, true);
    if (chunks.length > 0) return deliver({ chunks, done: false }, false);
    observer?.beforeRead();
    return true;
  }

  function onEnd(): void {
    if (over) return;
    let step: NormalizerStep | undefined;
    try {
      const events = args.decoder.end();
      observer?.afterRead(events.length);
      step = pushEvents(events, args, gather);
    } catch (err) {
      deliver({ chunks: takeGathered(), error: mapTransportError(err, args.ctx.backend, 'stream'), done: false }, true, true);
      return;
    }
    const chunks = takeGathered();
    if (step !== undefined) {
      deliver(step, true, true);
      return;
    }
    // The body ended without `[DONE]`: the normalizer's error, after what the last events made.
    const end = args.normalizer.end();
    deliver(end.error === undefined ? { chunks, done: end.done } : { chunks, error: end.error, done: end.done }, true, true);
  }

  function onError(err: unknown): void {
    if (over) return;
    if (args.signal.aborted) {
      fail(args.signal.reason);
      return;
    }
    deliver({ chunks: [], error: mapTransportError(err, args.ctx.backend, 'stream'), done: false }, true);
  }

  observer?.beforeRead();
  const joins = sink.joins === undefined ? undefined : (): boolean => !over && !paused && sink.joins?.() === true;
  body.read(joins === undefined ? { data: onData, end: onEnd, error: onError } : { data: onData, end: onEnd, error: onError, joins });

  return {
    resume() {
      if (over || !paused) return;
      paused = false;
      observer?.beforeRead();
      body.resume();
    },
    cancel() {
      if (over) return;
      over = true;
      body.discard();
      settle.resolve();
    },
    finished,
  };
}
