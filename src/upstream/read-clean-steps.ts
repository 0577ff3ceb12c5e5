/**
 * The clean steps of an upstream stream, pulled one by one: for a consumer that awaits each
 * step (the folded `stream: false` answer, `svir check`). It runs the same pass as
 * pumpCleanSteps and pauses the body after each step until the next one is asked for, so a
 * consumer that waits stops the reading, and undici then stops reading the socket
 * (backpressure). A streamed answer takes the steps pushed instead (pump-clean-steps.ts), without
 * a promise per read.
 */
import type { NormalizerStep } from '../normalize/normalizer.js';
import { pumpCleanSteps, type ReadCleanStepsArgs } from './pump-clean-steps.js';

export type { ReadCleanStepsArgs, ReadObserver } from './pump-clean-steps.js';

/**
 * Yields a step whenever a read produced chunks, and a last step that is `done` or carries the
 * error. Never throws for an upstream failure (it becomes the error step); rethrows the abort
 * reason when the consumer aborted. Leaving early closes the upstream body.
 */
export async function* readCleanSteps(args: ReadCleanStepsArgs): AsyncGenerator<NormalizerStep, void, undefined> {
  const ready: NormalizerStep[] = [];
  let wake: (() => void) | undefined;
  let failure: { err: unknown } | undefined;
  const pump = pumpCleanSteps(args, {
    take(step) {
      ready.push(step);
      wake?.();
      // One step at a time: the next read waits until this one is asked for.
      return false;
    },
  });
  pump.finished.catch((err: unknown) => {
    failure = { err };
    wake?.();
  });
  try {
    for (;;) {
      const step = ready.shift();
      if (step !== undefined) {
        yield step;
        if (step.done || step.error !== undefined) return;
        pump.resume();
        continue;
      }
      if (failure !== undefined) throw failure.err;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } finally {
    pump.cancel();
  }
}
