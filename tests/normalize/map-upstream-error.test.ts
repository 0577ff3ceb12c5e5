import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, toErrorResponse } from '../../src/errors.js';
import { mapUpstreamError } from '../../src/normalize/map-upstream-error.js';
import { UPSTREAM_ERROR_FORMS } from '../errors/upstream-error-forms.js';

describe('mapUpstreamError over every upstream error form in the reference', () => {
  it.each(UPSTREAM_ERROR_FORMS.map((form) => [form.name, form] as const))('%s', (_name, form) => {
    const error = mapUpstreamError({
      status: form.status,
      body: form.body,
      backend: 'b',
      channel: form.channel,
      ...(form.retryAfter === undefined ? {} : { retryAfter: form.retryAfter }),
    });
    const response = toErrorResponse(error);
    expect(response.status).toBe(form.expected.status);
    expect(response.body).toEqual({
      error: {
        message: form.expected.message,
        type: ERROR_CATALOGUE[error.code].type,
        param: form.expected.param,
        code: form.expected.code,
      },
    });
    expect(response.headers['x-svir-error-source']).toBe('upstream');
    expect(response.headers['retry-after']).toBe(form.expected.retryAfter);
    expect(response.headers['www-authenticate']).toBeUndefined();
    if (form.expected.retryable !== undefined) expect(error.retryable).toBe(form.expected.retryable);
  });

  it('never answers 401 for a server error, whatever the form', () => {
    for (const form of UPSTREAM_ERROR_FORMS) {
      const response = toErrorResponse(mapUpstreamError({ status: form.status, body: form.body, backend: 'b', channel: form.channel }));
      expect(response.status, form.name).not.toBe(401);
    }
  });

  it('reads every server overflow as the same code with OpenAI\'s words', () => {
    const overflows = UPSTREAM_ERROR_FORMS.filter((form) => form.expected.code === 'context_length_exceeded');
    expect(overflows.length).toBeGreaterThanOrEqual(8);
    for (const form of overflows) {
      const error = mapUpstreamError({ status: form.status, body: form.body, backend: 'b', channel: form.channel });
      expect(error.message, form.name).toMatch(/maximum context length/);
      expect(error.status, form.name).toBe(400);
    }
  });

  it('keeps the token counts a message gave when the body had no fields for them', () => {
    const error = mapUpstreamError({
      status: 400,
      backend: 'b',
      channel: 'http',
      body: '{"error":{"code":400,"message":"request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error"}}',
    });
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toContain("This model's maximum context length is 4096 tokens, but the prompt has 5000 tokens.");
  });

  it('recognises an overflow inside a stream with a numeric code, and uses that code as the status', () => {
    const overflow = mapUpstreamError({
      status: 200,
      backend: 'b',
      channel: 'stream',
      body: '{"error":{"code":400,"message":"request (9 tokens) exceeds the available context size (8 tokens)","type":"exceed_context_size_error","n_prompt_tokens":9,"n_ctx":8}}',
    });
    expect(overflow.code).toBe('context_length_exceeded');
    const rejected = mapUpstreamError({ status: 0, backend: 'b', channel: 'stream', body: '{"error":{"code":400,"message":"bad field"}}' });
    expect(rejected.code).toBe('invalid_request');
  });

  it('keeps Retry-After on an upstream 503', () => {
    const error = mapUpstreamError({ status: 503, body: '', backend: 'b', channel: 'http', retryAfter: 30 });
    expect(toErrorResponse(error).headers['retry-after']).toBe('30');
  });

  it('puts one line of bounded length in the message, never the raw body', () => {
    const long = 'x'.repeat(5000);
    const error = mapUpstreamError({
      status: 400,
      backend: 'b',
      channel: 'http',
      body: JSON.stringify({ error: { message: `line one\nline two\r\n\u0000${long}` } }),
    });
    expect(error.message).not.toMatch(/[\u0000-\u001f]/);
    expect(error.message.startsWith('backend "b" rejected the request: line one line two ')).toBe(true);
    expect(error.message.length).toBeLessThan(1100);
  });

  it('answers any status and any body in the one shape without throwing (seeded)', () => {
    const bodies = fc.oneof(
      fc.string(),
      fc.json(),
      fc.record({ error: fc.oneof(fc.string(), fc.record({ message: fc.anything(), code: fc.anything(), type: fc.anything() })) }).map((value) => JSON.stringify(value)),
      fc.record({ detail: fc.oneof(fc.string(), fc.array(fc.record({ msg: fc.anything(), loc: fc.anything() }))) }).map((value) => JSON.stringify(value)),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.constant(0), fc.constant(200), fc.integer({ min: 400, max: 599 })),
        bodies,
        fc.constantFrom('http' as const, 'stream' as const),
        (status, body, channel) => {
          const response = toErrorResponse(mapUpstreamError({ status, body, backend: 'b', channel }));
          expect(response.status).not.toBe(401);
          expect(Object.values(ERROR_CATALOGUE).map((entry) => entry.status)).toContain(response.status);
          expect(response.body.error.message.startsWith('backend "b"')).toBe(true);
          expect(typeof response.body.error.type).toBe('string');
          expect(typeof response.body.error.code).toBe('string');
          expect(response.body.error.param === null || typeof response.body.error.param === 'string').toBe(true);
          expect(response.headers['x-svir-error-source']).toBe('upstream');
        },
      ),
      { seed: 4, numRuns: 500 },
    );
  });
});
