/**
 * The SvirError a call refuses with (a request translation that rejects the client's request),
 * for a test that reads its code, param and message; anything else it throws is thrown on, and a
 * call that does not refuse fails the test.
 */
import { SvirError } from '../../src/errors.js';

export function refusalOf(call: () => unknown): SvirError {
  try {
    call();
  } catch (err) {
    if (err instanceof SvirError) return err;
    throw err;
  }
  throw new Error('the request was not refused');
}
