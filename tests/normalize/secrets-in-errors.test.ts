import { describe, expect, it } from 'vitest';
import { checkApiKey } from '../../src/auth/check-api-key.js';
import { toErrorResponse } from '../../src/errors.js';
import { mapUpstreamError } from '../../src/normalize/map-upstream-error.js';
import { REDACTED, redactSecrets } from '../../src/normalize/redact-secrets.js';
import { UPSTREAM_ERROR_FORMS } from '../errors/upstream-error-forms.js';

const BACKEND_KEY = 'backend-key-7f3a9c2e';
const SVIR_KEY = 'svir-own-key-41d8e0';
const KEYS = [BACKEND_KEY, SVIR_KEY];

/** Upstream bodies that echo a key back, in each way a server might. */
const ECHOES: readonly { status: number; body: string; channel: 'http' | 'stream' }[] = [
  { status: 400, channel: 'http', body: JSON.stringify({ error: { message: `bad key ${BACKEND_KEY} in header` } }) },
  { status: 401, channel: 'http', body: JSON.stringify({ error: { message: `Incorrect API key provided: ${BACKEND_KEY}` } }) },
  { status: 403, channel: 'http', body: JSON.stringify({ detail: `forbidden for ${BACKEND_KEY}` }) },
  { status: 500, channel: 'http', body: JSON.stringify({ error: `Authorization: Bearer ${BACKEND_KEY} failed` }) },
  { status: 500, channel: 'http', body: `<html>Authorization: Bearer ${BACKEND_KEY}</html>` },
  { status: 429, channel: 'http', body: JSON.stringify({ error: { message: `slow down ${SVIR_KEY}` } }) },
  { status: 422, channel: 'http', body: JSON.stringify({ detail: [{ msg: `bad ${BACKEND_KEY}`, loc: ['body', 'messages'] }] }) },
  { status: 400, channel: 'http', body: JSON.stringify({ error: { message: `maximum context length ... ${BACKEND_KEY}`, code: 'context_length_exceeded' } }) },
  { status: 400, channel: 'http', body: JSON.stringify({ error: { message: `blocked ${BACKEND_KEY}`, code: 'content_filter' } }) },
  { status: 200, channel: 'stream', body: JSON.stringify({ error: { message: `stream died ${BACKEND_KEY}` }, message: BACKEND_KEY }) },
];

describe('error messages never carry a configured key', () => {
  it.each(ECHOES.map((echo) => [echo.status, echo.channel, echo] as const))('upstream %i (%s) echoing a key', (_status, _channel, echo) => {
    const response = toErrorResponse(mapUpstreamError({ ...echo, backend: 'b', secrets: KEYS }));
    const wire = JSON.stringify(response);
    for (const key of KEYS) expect(wire).not.toContain(key);
  });

  it('drops every word of a 401 or 403 body, even without the keys to scrub', () => {
    for (const status of [401, 403]) {
      const error = mapUpstreamError({ status, backend: 'b', channel: 'http', body: JSON.stringify({ error: { message: `key ${BACKEND_KEY}` } }) });
      expect(error.message).not.toContain(BACKEND_KEY);
    }
  });

  it('scrubs bearer tokens and sk- keys a server echoes, even when not configured', () => {
    const error = mapUpstreamError({
      status: 500,
      backend: 'b',
      channel: 'http',
      body: JSON.stringify({ error: { message: 'sent Bearer abc.def-123 and sk-proj-AbCdEf123456' } }),
    });
    expect(error.message).toBe(`backend "b" failed: sent Bearer ${REDACTED} and ${REDACTED}`);
  });

  it('never puts the raw body of any reference form into the message', () => {
    for (const form of UPSTREAM_ERROR_FORMS) {
      const error = mapUpstreamError({ status: form.status, body: form.body, backend: 'b', channel: form.channel });
      if (form.body.length > 0) expect(error.message, form.name).not.toContain(form.body);
      expect(error.message, form.name).not.toMatch(/[{}<>]/);
    }
  });

  it('svir\'s own 401 does not repeat a configured key a client half-knew', () => {
    const error = checkApiKey(`Bearer ${SVIR_KEY}-wrong`, [SVIR_KEY]);
    expect(JSON.stringify(toErrorResponse(error))).not.toContain(SVIR_KEY);
  });
});

describe('redactSecrets', () => {
  it('removes the longest key first and leaves other text alone', () => {
    expect(redactSecrets('a abc abcdef z', ['abc', 'abcdef'])).toBe(`a ${REDACTED} ${REDACTED} z`);
    expect(redactSecrets('nothing here', ['', 'key'])).toBe('nothing here');
  });
});
