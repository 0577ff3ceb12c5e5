/**
 * One attempt's upstream event stream → clean steps, with the attempt's deadlines and metrics
 * told of each read and each step: what chat, legacy completions and Responses share between
 * the opened stream and their sender. `reader` is the adapter's chat reader or its legacy
 * completions reader; the normalizer is the one for both.
 *
 * Every sender takes the steps pushed (`pump`: one synchronous pass per upstream read, no
 * promise between the read and the write, or the fold), once.
 */
import type { Adapter } from '../adapters/adapter.js';
import type { StreamContext } from '../normalize/stream-context.js';
import { createNormalizer } from '../normalize/normalizer.js';
import { createSseDecoder } from '../normalize/sse-decoder.js';
import type { UpstreamBody } from '../upstream/open-chat-stream.js';
import { pumpCleanSteps, type CleanStepPump, type ReadCleanStepsArgs, type StepSink } from '../upstream/pump-clean-steps.js';
import type { AttemptIO } from './backend-route.js';

export interface ReadAttemptStepsArgs {
  io: AttemptIO;
  body: UpstreamBody;
  reader: Pick<Adapter, 'readEvent'>;
  ctx: StreamContext;
  makeId(kind: 'completion' | 'call'): string;
  /** ms since the epoch. */
  now(): number;
}

export interface AttemptSteps {
  /** Starts the reading; each read's step is handed to `sink` in the same turn. */
  pump(sink: StepSink): CleanStepPump;
  /** For the sender: told when svir starts (true) and stops (false) waiting for its client. */
  onClientWait(waiting: boolean): void;
}

export function readAttemptSteps(args: ReadAttemptStepsArgs): AttemptSteps {
  const { deadlines, recorder } = args.io;
  /** When the read being handled came (the stopwatch's clock read), for its chunks' metrics. */
  let readAt: number | undefined;
  const read: ReadCleanStepsArgs = {
    body: args.body,
    adapter: args.reader,
    ctx: args.ctx,
    decoder: createSseDecoder(),
    normalizer: createNormalizer(args.ctx, { makeId: args.makeId, now: args.now }),
    signal: deadlines.signal,
    observer: {
      beforeRead: () => recorder.stopwatch.enter('upstream'),
      afterRead(events) {
        readAt = recorder.stopwatch.enter('svir');
        if (events > 0) deadlines.event();
      },
      step(step) {
        // The stream's markers: a chunk that was only one of them (reasoningTags off) is no token.
        recorder.chunks(step.chunks, readAt, args.ctx.reasoningMarkers);
        readAt = undefined;
        if (step.error !== undefined && step.error.source === 'upstream') recorder.upstreamError(step.error);
      },
    },
  };
  return {
    pump: (sink) => pumpCleanSteps(read, sink),
    onClientWait(waiting) {
      recorder.stopwatch.enter(waiting ? 'client' : 'svir');
      // svir waits on its client, not on the backend: the idle deadline stops meanwhile.
      if (waiting) deadlines.pause();
      else deadlines.resume();
    },
  };
}
