import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkApiKey, bearerToken, digestApiKeys } from '../../src/auth/check-api-key.js';
import { checkListenSafety, isLoopbackHost } from '../../src/auth/check-listen-safety.js';
import { createAuthHook } from '../../src/auth/create-auth-hook.js';
import { resolveApiKeys } from '../../src/auth/resolve-api-keys.js';
import { SvirError, toErrorResponse } from '../../src/errors.js';

const KEYS = ['svir-key-alpha-0001', 'svir-key-beta-0002'];

describe('resolveApiKeys', () => {
  it('joins config keys and SVIR_API_KEYS, trimmed, without duplicates or empties', () => {
    expect(resolveApiKeys(['a'], { SVIR_API_KEYS: ' b , ,a,c ' })).toEqual(['a', 'b', 'c']);
    expect(resolveApiKeys([], {})).toEqual([]);
    expect(resolveApiKeys([], { SVIR_API_KEYS: '' })).toEqual([]);
  });
});

describe('checkApiKey', () => {
  it('lets a configured key through, with the Bearer scheme in any case', () => {
    expect(checkApiKey(`Bearer ${KEYS[0]}`, KEYS)).toBeNull();
    expect(checkApiKey(`bearer ${KEYS[1]}`, KEYS)).toBeNull();
    expect(checkApiKey(`BEARER   ${KEYS[1]} `, digestApiKeys(KEYS))).toBeNull();
  });

  it('lets everything through when no keys are configured', () => {
    expect(checkApiKey(undefined, [])).toBeNull();
    expect(checkApiKey('Bearer anything', [])).toBeNull();
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['another scheme', `Basic ${KEYS[0]}`],
    ['a bare key', KEYS[0]],
    ['a wrong key', 'Bearer not-a-key'],
    ['a prefix of a key', `Bearer ${KEYS[0]?.slice(0, 10)}`],
    ['a key with more after it', `Bearer ${KEYS[0]}x`],
    ['two tokens', `Bearer ${KEYS[0]} ${KEYS[1]}`],
  ])('refuses %s with 401 invalid_api_key', (_name, header) => {
    const error = checkApiKey(header, KEYS);
    expect(error).toBeInstanceOf(SvirError);
    const response = toErrorResponse(error);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_api_key');
    expect(response.body.error.type).toBe('authentication_error');
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.headers['x-svir-error-source']).toBe('proxy');
  });

  it('never repeats the key it was sent', () => {
    const error = checkApiKey('Bearer sk-client-sent-this-9999', KEYS);
    expect(JSON.stringify(toErrorResponse(error).body)).not.toContain('sk-client-sent-this-9999');
  });

  it('reads the token of a Bearer header only', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('Token abc')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('checkListenSafety', () => {
  it.each(['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1'])(
    'takes %s for loopback',
    (host) => {
      expect(isLoopbackHost(host)).toBe(true);
      expect(checkListenSafety(host, [], false)).toEqual({ ok: true });
    },
  );

  it.each(['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '127.0.0.256', '128.0.0.1', 'localhost.example.com'])(
    'refuses %s without keys',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
      const verdict = checkListenSafety(host, [], false);
      expect(verdict.ok).toBe(false);
      if (!verdict.ok) expect(verdict.message).toContain('server.allowUnauthenticated');
    },
  );

  it('allows a wide address with keys, or with allowUnauthenticated and a warning', () => {
    expect(checkListenSafety('0.0.0.0', KEYS, false)).toEqual({ ok: true });
    const verdict = checkListenSafety('0.0.0.0', [], true);
    expect(verdict.ok).toBe(true);
    if (verdict.ok) expect(verdict.warning).toMatch(/without API keys/);
  });
});

describe('createAuthHook in a Fastify server', () => {
  const app = Fastify({ logger: false });

  beforeAll(async () => {
    app.addHook('onRequest', createAuthHook(KEYS));
    // The shape of the server's error handler: every error leaves through toErrorResponse.
    app.setErrorHandler((err, _request, reply) => {
      const response = toErrorResponse(err);
      return reply.code(response.status).headers(response.headers).send(response.body);
    });
    app.get('/healthz', async () => ({ ok: true }));
    app.get('/readyz', async () => ({ ok: true }));
    app.get('/v1/models', async () => ({ object: 'list', data: [] }));
    await app.ready();
  });

  afterAll(async () => {
    await app.close();
  });

  it('answers 401 with WWW-Authenticate on a guarded route without a key', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/models' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.json()).toEqual({
      error: {
        message: 'Missing API key: send it as "Authorization: Bearer <key>".',
        type: 'authentication_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  });

  it('lets a right key through and refuses a wrong one', async () => {
    const ok = await app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${KEYS[1]}` } });
    expect(ok.statusCode).toBe(200);
    const wrong = await app.inject({ method: 'GET', url: '/v1/models', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().error.message).toBe('Invalid API key.');
  });

  it('exempts health routes, with or without a query', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'GET', url: '/readyz?verbose=1' })).statusCode).toBe(200);
  });

  it('guards unknown routes too, so they do not reveal themselves', async () => {
    expect((await app.inject({ method: 'GET', url: '/v1/nope' })).statusCode).toBe(401);
  });

  it('does nothing when no keys are configured', async () => {
    const open = Fastify({ logger: false });
    open.addHook('onRequest', createAuthHook([]));
    open.get('/v1/models', async () => ({ data: [] }));
    expect((await open.inject({ method: 'GET', url: '/v1/models' })).statusCode).toBe(200);
    await open.close();
  });
});
