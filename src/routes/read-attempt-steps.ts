/**
 * One attempt's upstream event stream → clean steps, with the attempt's deadlines and metrics
 * told of each read and each step: what chat, legacy completions and Responses share between
 * the opened stream and their sender. `reader` is the adapter's chat reader or its legacy
 * completions reader; the normalizer is the one for both.
 */
import type { Adapter, StreamContext } from '../adapters/adapter.js';
import { createNormalizer, type NormalizerStep } from '../normalize/normalizer.js';
import { createSseDecoder } from '../normalize/sse-decoder.js';
import { watchSteps } from '../timeouts/watch-steps.js';
import type { UpstreamBody } from '../upstream/open-chat-stream.js';
import { readCleanSteps } from '../upstream/read-clean-steps.js';
import type { AttemptIO } from './route-to-backend.js';

export interface ReadAttemptStepsArgs {
  io: AttemptIO;
  body: UpstreamBody;
  reader: Pick<Adapter, 'readEvent'>;
  ctx: StreamContext;
  makeId(kind: 'completion' | 'call'): string;
  /** ms since the epoch. */
  now(): number;
}

export function readAttemptSteps(args: ReadAttemptStepsArgs): AsyncGenerator<NormalizerStep, void, undefined> {
  const { deadlines, recorder } = args.io;
  const read = readCleanSteps({
    body: args.body,
    adapter: args.reader,
    ctx: args.ctx,
    decoder: createSseDecoder(),
    normalizer: createNormalizer(args.ctx, { makeId: args.makeId, now: args.now }),
    signal: deadlines.signal,
    observer: {
      beforeRead: () => recorder.stopwatch.enter('upstream'),
      afterRead(events) {
        recorder.stopwatch.enter('svir');
        if (events > 0) deadlines.event();
      },
    },
  });
  return watchSteps(read, {
    onStep(step) {
      for (const chunk of step.chunks) recorder.chunk(chunk);
      if (step.error !== undefined && step.error.source === 'upstream') recorder.upstreamError(step.error);
    },
    // The sender writes to the client now: its time is not the backend's idle time.
    handedOver: () => deadlines.pause(),
    resumed: () => deadlines.resume(),
  });
}
