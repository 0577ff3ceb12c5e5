/**
 * Bodies over the limit are refused with 413 in the one shape, and svir takes in no more than
 * its lingering close allows: after the 413 it reads on and throws away (so that the client,
 * still sending, reads the 413 instead of a reset) up to a bound in bytes and time, then closes.
 * A client announcing (or streaming) far more than that cannot make svir read it. Bodies that
 * are not JSON by their content type are 415 in the one shape; broken JSON is 400.
 */
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultUpstream, type FaultUpstream } from '../faults/fault-upstream.js';
import { readErrorBody } from '../faults/parse-clean-stream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

const LIMIT = 1024 * 1024;
/** What svir reads after the 413 here: small, so that a test can push far more. */
const LINGER = { maxMs: 10_000, idleMs: 5_000, maxBytes: 4 * LIMIT };

let upstream: FaultUpstream;
let svir: RunningSvir;

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m'] });
  svir = await startSvir(
    { server: { bodyLimitBytes: LIMIT }, backends: [{ name: 'fake', type: 'openai', url: upstream.url, models: ['m'] }] },
    { lingerLimits: LINGER },
  );
});

afterAll(async () => {
  await svir?.close();
  await upstream?.close();
});

interface RawExchange {
  socket: Socket;
  /** Resolves with the response head and whatever body came, once the response is complete or the socket ends. */
  response: Promise<string>;
  /** Bytes of the request body the socket accepted so far. */
  written: () => number;
  closed: Promise<void>;
}

/** Sends a request head, then body bytes for as long as the socket takes them (up to `max`). */
function pushBody(head: string, piece: Buffer, max: number, chunked: boolean): RawExchange {
  const socket = connect({ host: '127.0.0.1', port: svir.port });
  socket.on('error', () => undefined);
  let written = 0;
  let text = '';
  const response = new Promise<string>((resolve) => {
    socket.on('data', (data: Buffer) => {
      text += data.toString('latin1');
      // One complete response: head plus a content-length body.
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (end !== -1 && length?.[1] !== undefined && text.length >= end + 4 + Number(length[1])) resolve(text);
    });
    socket.once('close', () => resolve(text));
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(head);
  void (async () => {
    while (written < max && !socket.destroyed) {
      const frame = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
      const ok = socket.write(frame);
      written += piece.length;
      // Stop at backpressure for a moment: a server that reads no further leaves it full.
      if (!ok) {
        const drained = await Promise.race([
          new Promise<boolean>((resolve) => socket.once('drain', () => resolve(true))),
          sleep(500).then(() => false),
        ]);
        if (!drained) return;
      }
    }
  })();
  return { socket, response, written: () => written, closed };
}

function statusOf(raw: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(raw)?.[1] ?? 0);
}

function bodyOf(raw: string): string {
  return raw.slice(raw.indexOf('\r\n\r\n') + 4);
}

describe('bodies over the limit', () => {
  it('answers 413 to a declared length over the limit, before the body is sent, and reads no further than the lingering bound', async () => {
    const declared = 50 * LIMIT;
    const exchange = pushBody(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${declared}\r\n\r\n`,
      Buffer.alloc(64 * 1024, 0x20),
      declared,
      false,
    );
    const raw = await exchange.response;
    expect(statusOf(raw)).toBe(413);
    expect(readErrorBody(bodyOf(raw))?.code).toBe('request_too_large');
    // Keep pushing: svir must close well before the declared 50 MiB (after LINGER.maxBytes).
    await Promise.race([exchange.closed, sleep(2_000)]);
    expect(exchange.written()).toBeLessThan(declared / 2);
    exchange.socket.destroy();
    expect(upstream.requests.filter((seen) => seen.method === 'POST')).toHaveLength(0);
  });

  it('answers 413 to a chunked body once it passes the limit, and reads no further than the lingering bound', async () => {
    const max = 50 * LIMIT;
    const exchange = pushBody(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n`,
      Buffer.alloc(64 * 1024, 0x20),
      max,
      true,
    );
    const raw = await exchange.response;
    expect(statusOf(raw)).toBe(413);
    expect(readErrorBody(bodyOf(raw))?.code).toBe('request_too_large');
    await Promise.race([exchange.closed, sleep(2_000)]);
    expect(exchange.written()).toBeLessThan(max / 2);
    exchange.socket.destroy();
  });

  it('takes a body at the limit and refuses one byte more', async () => {
    const base = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: '' }] });
    const padding = LIMIT - Buffer.byteLength(base);
    const atLimit = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'a'.repeat(padding) }] });
    expect(Buffer.byteLength(atLimit)).toBe(LIMIT);
    const ok = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: atLimit,
    });
    await ok.body.text();
    expect(ok.statusCode).toBe(200);
    const over = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `${atLimit} `,
    });
    expect(over.statusCode).toBe(413);
    expect(readErrorBody(await over.body.text())?.code).toBe('request_too_large');
  });
});

describe('bodies that are not JSON', () => {
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });

  it.each([
    ['text/plain'],
    ['application/x-www-form-urlencoded'],
    ['multipart/form-data; boundary=xyz'],
    ['application/xml'],
    ['text/json-ish'],
    ['application/jsonx'],
  ])('answers 415 in the one shape to content type %s', async (contentType) => {
    const response = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBe(415);
    expect(readErrorBody(text)?.code).toBe('unsupported_media_type');
  });

  it('answers 415 to a body without a content type', async () => {
    const response = await request(`${svir.url}/v1/chat/completions`, { method: 'POST', body });
    const text = await response.body.text();
    expect(response.statusCode, text).toBe(415);
    expect(readErrorBody(text)?.code).toBe('unsupported_media_type');
  });

  it.each([['application/json; charset=utf-8'], ['application/json;charset=UTF-8'], ['Application/JSON']])(
    'takes %s',
    async (contentType) => {
      const response = await request(`${svir.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      });
      const text = await response.body.text();
      expect(response.statusCode, text).toBe(200);
    },
  );

  it.each([
    ['broken JSON', '{"model": "m", '],
    ['an empty body', ''],
    ['a BOM and garbage', '\ufeff\u0000\u0001'],
    ['a number', '42'],
    ['deep nesting', `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
  ])('answers 400 in the one shape to %s', async (_name, text) => {
    const response = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    });
    const answer = await response.body.text();
    expect(response.statusCode, answer).toBe(400);
    expect(readErrorBody(answer)?.code).toMatch(/^invalid_(json|request)$/);
  });

  it('answers a gzip-encoded body with a 4xx in the one shape, never a 500', async () => {
    const { gzipSync } = await import('node:zlib');
    const response = await request(`${svir.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(body),
    });
    const text = await response.body.text();
    expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(response.statusCode).toBeLessThan(500);
    expect(readErrorBody(text)).toBeDefined();
  });
});
