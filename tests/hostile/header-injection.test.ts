/**
 * No header injection in either direction. Whatever a client puts in the model name or its
 * header values (CR, LF, NUL, other control characters), no line is added to a response
 * header or to the upstream request; the client's headers do not travel upstream at all;
 * and an upstream's odd header values do not reach the client raw or crash svir.
 */
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helloScript, startFaultUpstream, type FaultUpstream } from '../faults/fault-upstream.js';
import { parseCleanStream, readErrorBody } from '../faults/parse-clean-stream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

const BACKEND_KEY = 'backend-key-0123456789';

let upstream: FaultUpstream;
let svir: RunningSvir;

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m'] });
  svir = await startSvir({
    aliases: { fast: 'm' },
    backends: [
      { name: 'fake', type: 'openai', url: upstream.url, models: ['m'], apiKey: BACKEND_KEY },
      // LM Studio's adapter quotes a named tool_choice's function in the x-svir-changes header.
      { name: 'lms', type: 'lmstudio', url: upstream.url, models: ['lm'] },
    ],
  });
});

afterAll(async () => {
  await svir?.close();
  await upstream?.close();
});

/**
 * Every header svir sent: no injected name, and no control character but tab in any value (the
 * words of an attempt may stay, as text inside one value: that is not a header).
 */
function expectCleanHeaders(headers: Record<string, string | string[] | undefined>): void {
  for (const [name, value] of Object.entries(headers)) {
    expect(name).not.toMatch(/injected/i);
    for (const one of Array.isArray(value) ? value : [value ?? '']) {
      expect(one, name).not.toMatch(/[\u0000-\u0008\u000a-\u001f\u007f]/);
    }
  }
}

/** Raw request text as svir's parser sees it; resolves with the raw response text. */
function rawExchange(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port: svir.port });
    let received = '';
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.once('close', () => resolve(received));
    socket.write(text);
    // The server may keep the connection open: end our side after a beat.
    setTimeout(() => socket.end(), 300);
  });
}

const HOSTILE_MODELS = [
  'm\r\nx-injected: yes',
  'm\nx-injected: yes',
  'm\rx-injected: yes',
  'm\r\n\r\n<html>injected</html>',
  'm\u0000',
  '\u0000',
  'm\u001b[31m',
  'm\u007f',
  'm\u2028x-injected: yes',
  'm\u0085x-injected: yes',
  '\ud800',
  'fast\r\nx-injected: yes',
];

describe('control characters in the model name', () => {
  it.each(HOSTILE_MODELS.map((model) => [JSON.stringify(model), model]))('%s: 404 in the one shape, clean headers', async (_label, model) => {
    for (const stream of [true, false]) {
      const before = upstream.requests.length;
      const response = await request(`${svir.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream }),
      });
      const text = await response.body.text();
      expect(response.statusCode, text).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, text).toBeLessThan(500);
      expect(readErrorBody(text), text).toBeDefined();
      expectCleanHeaders(response.headers);
      // Nothing went upstream for a model nobody serves.
      expect(upstream.requests.slice(before).filter((seen) => seen.method === 'POST')).toEqual([]);
    }
  });

  it('is echoed only inside JSON, escaped', async () => {
    const model = 'm\r\nx-injected: yes';
    const response = await request(`${svir.url}/v1/models/${encodeURIComponent(model)}`);
    const text = await response.body.text();
    expect(response.statusCode).toBe(404);
    expect(text).not.toContain('\r\n');
    expectCleanHeaders(response.headers);
  });
});

describe('client headers', () => {
  it('do not travel upstream: only svir\'s own headers and the backend\'s key do', async () => {
    upstream.enqueue(helloScript());
    const before = upstream.requests.length;
    const response = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer client-key-should-stay',
        cookie: 'session=client-cookie',
        'x-forwarded-for': '10.0.0.1',
        'x-forwarded-host': 'evil.example',
        'x-request-id': 'client-request-id',
        'x-custom-client': 'client-value',
        'api-key': 'client-api-key',
        'openai-organization': 'client-org',
      },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBe(200);
    expect(parseCleanStream(text).content).toBe('Hello world!');
    expect(response.headers['x-request-id']).not.toBe('client-request-id');
    const seen = upstream.requests[before];
    expect(seen).toBeDefined();
    const names = (seen?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
    const allowed = ['host', 'connection', 'content-type', 'content-length', 'accept', 'user-agent', 'authorization', 'accept-encoding', 'accept-language', 'sec-fetch-mode'];
    expect(names.filter((name) => !allowed.includes(name))).toEqual([]);
    expect(seen?.headers.authorization).toBe(`Bearer ${BACKEND_KEY}`);
    const rawText = (seen?.rawHeaders ?? []).join('\n');
    for (const clientValue of ['client-key-should-stay', 'client-cookie', '10.0.0.1', 'evil.example', 'client-request-id', 'client-value', 'client-api-key', 'client-org']) {
      expect(rawText).not.toContain(clientValue);
    }
  });

  it.each([
    ['a bare CR in a header value', 'x-test: a\rb\r\n'],
    ['a NUL in a header value', 'x-test: a\u0000b\r\n'],
    ['an escape character in a header value', 'x-test: a\u001bb\r\n'],
    ['a folded header line', 'x-test: a\r\n b\r\n'],
    ['a header name with a space', 'x test: a\r\n'],
  ])('refuses %s at the HTTP parser, and keeps serving', async (_name, header) => {
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    const before = upstream.requests.length;
    const raw = await rawExchange(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${header}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(raw).not.toMatch(/injected/i);
    // Even the HTTP parser's refusal is in the one error shape.
    expect(readErrorBody(raw.slice(raw.indexOf('\r\n\r\n') + 4))?.code).toBe('invalid_request');
    expect(upstream.requests.length).toBe(before);
    upstream.enqueue(helloScript());
    const response = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    await response.body.text();
    expect(response.statusCode).toBe(200);
  });
});

describe('client text quoted in svir\'s own headers', () => {
  it.each([
    ['Japanese', '天気を調べる'],
    ['an emoji', 'weather_🙂'],
    ['a control character', 'get\u0001weather'],
    ['DEL and NUL', 'get\u007f\u0000weather'],
    ['CR LF and a header', 'get\r\nx-injected: yes'],
    ['a lone surrogate', 'get\ud800weather'],
    ['a percent sign', 'get%0D%0Ax-injected: yes'],
    ['latin-1', 'météo'],
  ])('a named tool_choice in %s: answered, with the header kept to printable ASCII', async (_name, tool) => {
    for (const stream of [true, false]) {
      upstream.enqueue(helloScript());
      const response = await request(`${svir.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        signal: AbortSignal.timeout(10_000),
        body: JSON.stringify({
          model: 'lm',
          stream,
          messages: [{ role: 'user', content: 'hi' }],
          tools: [{ type: 'function', function: { name: tool } }],
          tool_choice: { type: 'function', function: { name: tool } },
        }),
      });
      const text = await response.body.text();
      expect(response.statusCode, text).toBe(200);
      expectCleanHeaders(response.headers);
      const changes = String(response.headers['x-svir-changes'] ?? '');
      expect(changes).toMatch(/^[\x20-\x7e]+$/);
      // What the header says decodes back to the name (CR and LF shown as a space).
      if (!tool.includes('\ud800')) expect(decodeURIComponent(changes)).toContain(tool.replace(/[\r\n]+/g, ' '));
    }
  });
});

describe('request smuggling', () => {
  it.each([
    ['Content-Length and Transfer-Encoding together', (body: string) => `content-length: ${Buffer.byteLength(body)}\r\ntransfer-encoding: chunked\r\n`],
    ['two different Content-Lengths', (body: string) => `content-length: ${Buffer.byteLength(body)}\r\ncontent-length: 5\r\n`],
    ['an obfuscated Transfer-Encoding', (body: string) => `content-length: ${Buffer.byteLength(body)}\r\ntransfer-encoding : chunked\r\n`],
  ])('%s: refused in the one shape, and the smuggled request is never served', async (_name, framing) => {
    const smuggled = 'GET /v1/models HTTP/1.1\r\nhost: x\r\n\r\n';
    const body = `0\r\n\r\n${smuggled}`;
    const before = upstream.requests.length;
    const raw = await rawExchange(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${framing(body)}\r\n${body}`);
    expect(raw).toMatch(/^HTTP\/1\.1 400 /);
    expect(readErrorBody(raw.slice(raw.indexOf('\r\n\r\n') + 4))?.code).toBe('invalid_request');
    // One answer only: the request hidden in the body got none.
    expect(raw.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    expect(upstream.requests.length).toBe(before);
  });
});

describe('headers too large', () => {
  it('are answered 431 in the one shape', async () => {
    const raw = await rawExchange(`GET /v1/models HTTP/1.1\r\nhost: x\r\nx-big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    expect(raw).toMatch(/^HTTP\/1\.1 431 /);
    expect(readErrorBody(raw.slice(raw.indexOf('\r\n\r\n') + 4))?.code).toBe('request_too_large');
  });
});

describe('upstream header values', () => {
  it.each([
    ['a long Retry-After', 'x'.repeat(4_000)],
    ['a Retry-After with latin-1 bytes', '5 \u00e9\u00ff'],
    ['a Retry-After with a tab', '5\tseconds'],
    ['an HTTP date Retry-After', 'Wed, 21 Oct 2015 07:28:00 GMT'],
  ])('%s: the client gets a 429 in the one shape with clean headers', async (_name, retryAfter) => {
    upstream.enqueue({
      status: 429,
      headers: { 'retry-after': retryAfter, 'x-injected': 'from-upstream', 'set-cookie': 'upstream=1' },
      body: JSON.stringify({ error: { message: 'slow down\r\nx-injected: yes' } }),
    });
    const response = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBe(429);
    expect(readErrorBody(text)?.code).toBe('rate_limit_exceeded');
    expect(response.headers['set-cookie']).toBeUndefined();
    expectCleanHeaders(response.headers);
  });
});
