import { describe, expect, it } from 'vitest';
import { SvirError, toErrorResponse } from '../../src/errors.js';
import { UNREACHABLE_RETRY_AFTER_SECONDS, mapTransportError } from '../../src/upstream/map-transport-error.js';

/** An error as undici and node:net raise them: a message, a code, maybe a cause. */
function coded(code: string, message = `failed: ${code}`, cause?: unknown): Error {
  return Object.assign(new Error(message, { cause }), { code });
}

describe('mapTransportError (issue 4: an undici error or a timeout in the one shape)', () => {
  it.each(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'EADDRNOTAVAIL'])(
    '%s is 503 backend_unavailable with Retry-After, naming the backend',
    (code) => {
      const err = mapTransportError(coded(code), 'lms', 'request');
      expect(err.code).toBe('backend_unavailable');
      expect(err.status).toBe(503);
      expect(err.retryAfter).toBe(String(UNREACHABLE_RETRY_AFTER_SECONDS));
      expect(err.source).toBe('upstream');
      expect(err.retryable).toBe(true);
      expect(err.message).toBe(`backend "lms" is unreachable (${code}).`);
    },
  );

  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'connecting'],
    ['ETIMEDOUT', 'connecting'],
    ['UND_ERR_HEADERS_TIMEOUT', 'answering'],
    ['UND_ERR_BODY_TIMEOUT', 'sending the next chunk'],
  ])('%s is 504 upstream_timeout, saying at which step', (code, step) => {
    const err = mapTransportError(coded(code), 'vllm', 'request');
    expect(err.code).toBe('upstream_timeout');
    expect(err.status).toBe(504);
    expect(err.message).toBe(`backend "vllm" took too long ${step}.`);
  });

  it('finds the code in the cause chain and in an AggregateError (happy eyeballs tried two addresses)', () => {
    const wrapped = new TypeError('fetch failed', { cause: coded('ECONNREFUSED') });
    expect(mapTransportError(wrapped, 'a', 'request').code).toBe('backend_unavailable');
    const both = new AggregateError([coded('ECONNREFUSED'), coded('ETIMEDOUT')], 'connect failed');
    // A timeout found anywhere in the error is checked first, so it wins over unreachable.
    expect(mapTransportError(both, 'a', 'request').code).toBe('upstream_timeout');
    const deep = new Error('outer', { cause: new AggregateError([coded('EHOSTUNREACH')]) });
    expect(mapTransportError(deep, 'a', 'request').code).toBe('backend_unavailable');
  });

  it('reads a cut connection as 502 upstream_error, worded by where it happened', () => {
    const before = mapTransportError(coded('ECONNRESET'), 'llama', 'request');
    expect(before.code).toBe('upstream_error');
    expect(before.status).toBe(502);
    expect(before.message).toBe('backend "llama" closed the connection without an answer (ECONNRESET).');
    const during = mapTransportError(coded('UND_ERR_SOCKET'), 'llama', 'stream');
    expect(during.message).toBe('backend "llama" cut the stream off (UND_ERR_SOCKET).');
    expect(mapTransportError(new Error('other side closed'), 'llama', 'stream').message).toBe('backend "llama" cut the stream off.');
  });

  it('answers anything at all in the one shape, never with a URL, a header or the raw message', () => {
    const secretUrl = 'http://user:pw@10.0.0.5:8080/private/v1/chat/completions';
    const failures: unknown[] = [
      coded('ECONNREFUSED', `connect ECONNREFUSED ${secretUrl}`),
      coded('UND_ERR_SOCKET', `other side closed, authorization: Bearer sk-secret ${secretUrl}`),
      new Error(secretUrl),
      'a string thrown',
      null,
      undefined,
      42,
      { code: 17 },
      { code: 'ECONNREFUSED', cause: { cause: { cause: { cause: { cause: { cause: 'deep' } } } } } },
    ];
    for (const failure of failures) {
      const err = mapTransportError(failure, 'b', 'request');
      const answer = toErrorResponse(err);
      expect(answer.body.error.code === null || typeof answer.body.error.code === 'string').toBe(true);
      expect([502, 503, 504]).toContain(answer.status);
      const text = JSON.stringify(answer);
      expect(text).not.toContain('10.0.0.5');
      expect(text).not.toContain('sk-secret');
      expect(text).not.toContain('/private');
    }
  });

  it('passes a SvirError through as it is', () => {
    const own = new SvirError('upstream_timeout', { message: 'no first token', retryable: false });
    expect(mapTransportError(own, 'b', 'stream')).toBe(own);
  });
});
