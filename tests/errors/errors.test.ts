import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, SvirError, toErrorResponse } from '../../src/errors.js';

describe('toErrorResponse', () => {
  it('turns a SvirError into the one shape with its status', () => {
    const response = toErrorResponse(new SvirError('model_not_found', { message: 'no model "x"' }));
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: { message: 'no model "x"', type: 'invalid_request_error', param: null, code: 'model_not_found' },
    });
    expect(response.headers['x-svir-error-source']).toBe('proxy');
  });

  it('keeps Retry-After and marks upstream errors', () => {
    const response = toErrorResponse(new SvirError('rate_limit_exceeded', { retryAfter: 7, source: 'upstream' }));
    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('7');
    expect(response.headers['x-svir-error-source']).toBe('upstream');
  });

  it('answers anything unknown as a 500 internal_error without leaking it', () => {
    const response = toErrorResponse(new TypeError('secret-key-123 exploded'));
    expect(response.status).toBe(500);
    expect(response.body.error.code).toBe('internal_error');
    expect(JSON.stringify(response.body)).not.toContain('secret-key-123');
  });

  it('gives every catalogue entry a status, a type and a message', () => {
    for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
      expect(entry.status, code).toBeGreaterThanOrEqual(400);
      expect(entry.type.length, code).toBeGreaterThan(0);
      expect(entry.message.length, code).toBeGreaterThan(0);
    }
  });
});
