import { describe, expect, it } from 'vitest';
import { SvirError } from '../../src/errors.js';
import { classifyTransportError } from '../../src/timeouts/classify-transport-error.js';

const ctx = { backend: 'lms', connectMs: 250 };

function withCode(code: string): Error {
  return Object.assign(new Error(`connect ${code}`), { code });
}

describe('classifyTransportError', () => {
  it('answers an unreachable backend as 503 backend_unavailable with Retry-After, retryable', () => {
    const error = classifyTransportError(withCode('ECONNREFUSED'), ctx);
    expect(error).toMatchObject({ code: 'backend_unavailable', status: 503, source: 'upstream', backend: 'lms', retryable: true });
    expect(error.retryAfter).toBeDefined();
    expect(error.message).toContain('lms');
  });

  it('finds the socket code under fetch causes and AggregateError', () => {
    const fetchFailed = new TypeError('fetch failed', { cause: withCode('ECONNREFUSED') });
    expect(classifyTransportError(fetchFailed, ctx).code).toBe('backend_unavailable');
    const both = new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')], 'all failed');
    expect(classifyTransportError(both, ctx).code).toBe('backend_unavailable');
  });

  it('answers a hung connect as 504 upstream_timeout naming the setting, still retryable', () => {
    const error = classifyTransportError(withCode('UND_ERR_CONNECT_TIMEOUT'), ctx);
    expect(error).toMatchObject({ code: 'upstream_timeout', status: 504, retryable: true });
    expect(error.message).toContain('250 ms');
  });

  it('answers a broken connection as 502 upstream_error', () => {
    expect(classifyTransportError(withCode('ECONNRESET'), ctx)).toMatchObject({ code: 'upstream_error', status: 502 });
    expect(classifyTransportError(withCode('UND_ERR_SOCKET'), ctx).message).toContain('connection broke');
    expect(classifyTransportError(new Error('odd'), ctx).code).toBe('upstream_error');
  });

  it('passes a SvirError through unchanged', () => {
    const deadline = new SvirError('upstream_timeout', { retryable: false });
    expect(classifyTransportError(deadline, ctx)).toBe(deadline);
  });
});
