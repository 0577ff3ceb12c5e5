/**
 * The upstream event stream → clean chunks, one step per upstream read: bytes → SSE events
 * (decoder) → neutral parts (adapter) → clean chunks (normalizer). The generator reads the next
 * upstream bytes only when the consumer asks for the next step, so a consumer that waits for a
 * slow client stops the reading, and undici then stops reading the socket (backpressure).
 */
import type { Adapter, StreamContext } from '../adapters/adapter.js';
import type { SvirError } from '../errors.js';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import type { Normalizer, NormalizerStep } from '../normalize/normalizer.js';
import type { SseEvent } from '../normalize/parts.js';
import type { SseDecoder } from '../normalize/sse-decoder.js';
import { discardBody } from './discard-body.js';
import { mapTransportError } from './map-transport-error.js';
import type { UpstreamBody } from './open-chat-stream.js';

export interface ReadCleanStepsArgs {
  body: UpstreamBody;
  /** Reads one SSE event: the adapter's chat reader, or its legacy completions reader. */
  adapter: Pick<Adapter, 'readEvent'>;
  ctx: StreamContext;
  decoder: SseDecoder;
  normalizer: Normalizer;
  /** The reason the consumer aborted (client gone, shutdown), rethrown as is instead of mapped. */
  signal: AbortSignal;
  /** Told around each upstream read (deadlines, overhead metrics). */
  observer?: ReadObserver;
}

export interface ReadObserver {
  /** svir starts waiting for the upstream's next bytes. */
  beforeRead(): void;
  /** They came, holding this many SSE events (0: a comment or part of an event). */
  afterRead(events: number): void;
}

/** After `[DONE]`, what the server still sends is read (to keep its connection) up to this. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
/**
 * ...and for this long: a server that sends `[DONE]` and then neither ends the body nor closes
 * would otherwise hold the connection, and a graceful shutdown, until the idle deadline.
 */
const DRAIN_LIMIT_MS = 1_000;

async function drainRest(iterator: AsyncIterator<Uint8Array>, body: UpstreamBody): Promise<void> {
  let size = 0;
  const timer = setTimeout(() => discardBody(body), DRAIN_LIMIT_MS);
  try {
    for (;;) {
      const read = await iterator.next();
      if (read.done === true) return;
      size += read.value.byteLength;
      if (size > DRAIN_LIMIT_BYTES) {
        discardBody(body);
        return;
      }
    }
  } catch {
    // The server closed it first, or took too long: nothing to reuse.
  } finally {
    clearTimeout(timer);
  }
}

/** Runs the events of one read through the adapter and the normalizer. */
function pushEvents(events: readonly SseEvent[], args: ReadCleanStepsArgs, chunks: CleanChunk[]): NormalizerStep | undefined {
  for (const event of events) {
    const step = args.normalizer.push(args.adapter.readEvent(event, args.ctx));
    if (step.chunks.length > 0) chunks.push(...step.chunks);
    if (step.error !== undefined || step.done) return step;
  }
  return undefined;
}

function finalStep(chunks: CleanChunk[], step: NormalizerStep): NormalizerStep {
  return step.error === undefined ? { chunks, done: step.done } : { chunks, error: step.error, done: step.done };
}

/**
 * Yields a step whenever a read produced chunks, and a last step that is `done` or carries the
 * error. Never throws for an upstream failure (it becomes the error step); rethrows the abort
 * reason when the consumer aborted.
 */
export async function* readCleanSteps(args: ReadCleanStepsArgs): AsyncGenerator<NormalizerStep, void, undefined> {
  const iterator = args.body[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      const chunks: CleanChunk[] = [];
      let read: IteratorResult<Uint8Array>;
      try {
        args.observer?.beforeRead();
        read = await iterator.next();
      } catch (err) {
        if (args.signal.aborted) throw args.signal.reason;
        const error: SvirError = mapTransportError(err, args.ctx.backend, 'stream');
        yield { chunks, error, done: false };
        return;
      }
      if (read.done === true) {
        finished = true;
        let step: NormalizerStep | undefined;
        try {
          const events = args.decoder.end();
          args.observer?.afterRead(events.length);
          step = pushEvents(events, args, chunks);
        } catch (err) {
          yield { chunks, error: mapTransportError(err, args.ctx.backend, 'stream'), done: false };
          return;
        }
        yield finalStep(chunks, step ?? args.normalizer.end());
        return;
      }
      let step: NormalizerStep | undefined;
      try {
        const events = args.decoder.feed(read.value);
        args.observer?.afterRead(events.length);
        step = pushEvents(events, args, chunks);
      } catch (err) {
        // The decoder refuses an endless line with a SvirError; mapTransportError keeps it.
        yield { chunks, error: mapTransportError(err, args.ctx.backend, 'stream'), done: false };
        return;
      }
      if (step !== undefined) {
        finished = step.done;
        yield finalStep(chunks, step);
        return;
      }
      if (chunks.length > 0) yield { chunks, done: false };
    }
  } finally {
    // After `[DONE]` the server's connection can be reused once its body is read to the end;
    // that runs after the last step was taken, so it never holds up the client. Anything else
    // (error, abort) closes the connection, which also tells a local server to stop generating.
    if (finished) void drainRest(iterator, args.body);
    else discardBody(args.body);
  }
}
