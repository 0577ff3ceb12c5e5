/**
 * The OpenAI client's APIError a call fails with, for a test that reads what the client made of
 * svir's error (its class, status, code); a call that succeeds, or fails otherwise, fails the test.
 */
import OpenAI from 'openai';

export type ApiError = InstanceType<typeof OpenAI.APIError>;

export async function apiFailureOf(promise: Promise<unknown>): Promise<ApiError> {
  const outcome = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(outcome instanceof OpenAI.APIError)) throw new Error(`expected an APIError, got ${String(outcome)}`);
  return outcome;
}
