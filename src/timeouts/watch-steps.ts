/**
 * Passes clean steps from the upstream reader to the sender and tells `hooks` about each one.
 * Between handing a step over and being asked for the next, the sender is writing to the client
 * (and maybe waiting for it to read): that time is the client's, so the idle deadline is paused
 * for it rather than blamed on the backend.
 */
import type { NormalizerStep } from '../normalize/normalizer.js';

export interface StepHooks {
  /** A step is ready (its chunks were just produced). */
  onStep(step: NormalizerStep): void;
  /** The sender has the step / asks for the next one. */
  handedOver(): void;
  resumed(): void;
}

export async function* watchSteps(
  steps: AsyncGenerator<NormalizerStep, void, undefined>,
  hooks: StepHooks,
): AsyncGenerator<NormalizerStep, void, undefined> {
  for await (const step of steps) {
    hooks.onStep(step);
    hooks.handedOver();
    try {
      yield step;
    } finally {
      hooks.resumed();
    }
  }
}
