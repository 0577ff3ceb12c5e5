/**
 * The same table as map-upstream-error.test.ts, through each backend type's adapter: readError
 * for the forms that arrive as an HTTP answer, readEvent for those inside a stream. Every
 * adapter must answer every form as the contract says, whichever server sent it.
 */
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { BACKEND_TYPES, type BackendType } from '../../src/config/schema.js';
import { toErrorResponse, type SvirError } from '../../src/errors.js';
import { UPSTREAM_ERROR_FORMS, type UpstreamErrorForm } from '../errors/upstream-error-forms.js';
import { fixtureContext } from '../helpers/replay-fixture.js';

const ctx = fixtureContext({ model: 'm', backend: 'b' });

function readThrough(type: BackendType, form: UpstreamErrorForm): SvirError {
  const adapter = getAdapter(type);
  if (form.channel === 'http') {
    return adapter.readError(form.status, form.body, {
      backend: 'b',
      ...(form.retryAfter === undefined ? {} : { retryAfter: form.retryAfter }),
    });
  }
  const parts = adapter.readEvent({ event: form.sseEvent, data: form.body }, ctx);
  const errors = parts.flatMap((part) => (part.kind === 'error' ? [part.error] : []));
  expect(errors, 'exactly one error part').toHaveLength(1);
  const [error] = errors;
  if (error === undefined) throw new Error('no error part');
  return error;
}

// Each form through the adapter of the server that sent it, and through every other adapter:
// the wordings are unambiguous, so no adapter may read them differently.
const cases = UPSTREAM_ERROR_FORMS.flatMap((form) =>
  BACKEND_TYPES.map((type) => [`${type} ← ${form.name}`, type, form] as const),
);

describe('adapter readError / readEvent over every upstream error form', () => {
  it.each(cases)('%s', (_name, type, form) => {
    const error = readThrough(type, form);
    const response = toErrorResponse(error);
    expect(response.status).toBe(form.expected.status);
    expect(response.body.error).toMatchObject({
      message: form.expected.message,
      param: form.expected.param,
      code: form.expected.code,
    });
    expect(response.headers['x-svir-error-source']).toBe('upstream');
    expect(response.headers['retry-after']).toBe(form.expected.retryAfter);
    if (form.expected.retryable !== undefined) expect(error.retryable).toBe(form.expected.retryable);
  });
});
