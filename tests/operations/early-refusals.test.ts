/**
 * Answers sent before the request body arrived, through the built program (issue 13, points 3
 * and 4): a body over the limit (413), a body that is not JSON (415) and a request without a key
 * (401) are answered, then svir reads and throws away the rest of the body before it closes
 * (`connection: close`), so that a client still sending reads the answer instead of a
 * connection reset. Every repetition of every client must see its status. The request's log line
 * names the code the client got, never `internal_error`.
 */
import { connect } from 'node:net';
import { once } from 'node:events';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startSvirProcess, type SvirProcess } from '../contract/harness/run-svir.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';

const LIMIT = 1024 * 1024;
/** Far over the limit, far under the lingering read's bound (256 MiB). */
const OVERSIZED = 8 * LIMIT;
const REPETITIONS = 20;
const KEY = 'svir-key-early-refusals';

let upstream: ScriptedUpstream;
let svir: SvirProcess;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  upstream.models(['m1']);
  svir = await startSvirProcess({
    config: [
      'server:',
      '  port: 0',
      `  bodyLimitBytes: ${LIMIT}`,
      `  apiKeys: [${KEY}]`,
      'backends:',
      '  - name: fake',
      '    type: openai',
      `    url: ${upstream.baseUrl}`,
    ].join('\n'),
  });
}, 60_000);

afterAll(async () => {
  await svir?.stop();
  await upstream?.close();
});

interface RawAnswer {
  status: number;
  head: string;
  body: string;
  /** The connection ended (svir closed it) after the whole body was sent. */
  closedAfterBody: boolean;
}

/**
 * A client on a plain socket that writes its whole body before it looks at the answer, as most
 * HTTP clients do; then waits for the answer and for svir to close.
 */
async function rawUpload(options: { contentType: string; chunked: boolean; auth?: boolean }): Promise<RawAnswer> {
  // Half-open allowed: svir ends its side after the answer, and the client goes on sending.
  const socket = connect({ port: Number(new URL(svir.url).port), host: '127.0.0.1', allowHalfOpen: true });
  let received = Buffer.alloc(0);
  socket.on('data', (data: Buffer) => {
    received = Buffer.concat([received, data]);
  });
  const closed = new Promise<boolean>((resolve) => {
    socket.once('error', () => resolve(false));
    socket.once('close', (hadError) => resolve(!hadError));
  });
  await once(socket, 'connect');
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: svir\r\ncontent-type: ${options.contentType}\r\n` +
      (options.auth === false ? '' : `authorization: Bearer ${KEY}\r\n`) +
      (options.chunked ? 'transfer-encoding: chunked\r\n\r\n' : `content-length: ${OVERSIZED}\r\n\r\n`),
  );
  const piece = Buffer.alloc(64 * 1024, 0x61);
  let sentAll = true;
  for (let sent = 0; sent < OVERSIZED; sent += piece.length) {
    if (socket.destroyed) {
      sentAll = false;
      break;
    }
    const frame = options.chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
    if (!socket.write(frame)) await Promise.race([once(socket, 'drain'), once(socket, 'close')]);
  }
  if (options.chunked && !socket.destroyed) socket.write('0\r\n\r\n');
  // Done sending: the client's half of the connection closes; svir's half was closed after its
  // answer, so the connection is over without a reset.
  if (!socket.destroyed) socket.end();
  const clean = await closed;
  const text = received.toString('latin1');
  const split = text.indexOf('\r\n\r\n');
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0),
    head: split === -1 ? text : text.slice(0, split),
    body: split === -1 ? '' : text.slice(split + 4),
    closedAfterBody: clean && sentAll,
  };
}

const errorBodySchema = z.object({ error: z.object({ code: z.string().nullable(), message: z.string() }) });

function codeOf(body: string): string | null | undefined {
  try {
    const parsed = errorBodySchema.safeParse(JSON.parse(body));
    return parsed.success ? parsed.data.error.code : undefined;
  } catch {
    return undefined;
  }
}

async function fetchUpload(contentType: string): Promise<number | string> {
  try {
    const res = await fetch(`${svir.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': contentType, authorization: `Bearer ${KEY}` },
      body: Buffer.alloc(OVERSIZED, 0x61),
    });
    await res.text();
    return res.status;
  } catch (err) {
    return err instanceof Error ? `${err.message} ${String((err.cause as { code?: unknown } | undefined)?.code ?? '')}` : String(err);
  }
}

const logLineSchema = z.object({ msg: z.literal('request'), status: z.number(), error: z.object({ code: z.string() }).optional() });

/** The `request` log lines svir wrote so far, with their status and error code. */
function requestLines(): z.infer<typeof logLineSchema>[] {
  return svir
    .stdout()
    .split('\n')
    .flatMap((line) => {
      try {
        const parsed = logLineSchema.safeParse(JSON.parse(line));
        return parsed.success ? [parsed.data] : [];
      } catch {
        return [];
      }
    });
}

/**
 * How many request lines svir wrote before now: lines reach stdout asynchronously, a little
 * after the answer (create-log-destination.ts), so the count is read once it stops moving.
 */
async function settledRequestLineCount(): Promise<number> {
  let count = requestLines().length;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = requestLines().length;
    if (now === count) return count;
    count = now;
  }
}

describe('early refusals reach the client', () => {
  it(`a raw client uploading ${OVERSIZED} bytes with content-length sees the 413 every time (${REPETITIONS} runs)`, async () => {
    for (let i = 0; i < REPETITIONS; i++) {
      const answer = await rawUpload({ contentType: 'application/json', chunked: false });
      expect(answer.status).toBe(413);
      expect(codeOf(answer.body)).toBe('request_too_large');
      expect(answer.head).toMatch(/\r\nconnection: close/i);
      // svir read the rest, then closed cleanly (no reset).
      expect(answer.closedAfterBody).toBe(true);
    }
  });

  it(`a raw chunked upload sees the 413 every time (${REPETITIONS} runs)`, async () => {
    for (let i = 0; i < REPETITIONS; i++) {
      const answer = await rawUpload({ contentType: 'application/json', chunked: true });
      expect(answer.status).toBe(413);
      expect(answer.closedAfterBody).toBe(true);
    }
  });

  it(`fetch sees the 413 every time (${REPETITIONS} runs)`, async () => {
    const results: (number | string)[] = [];
    for (let i = 0; i < REPETITIONS; i++) results.push(await fetchUpload('application/json'));
    expect(results).toEqual(Array.from({ length: REPETITIONS }, () => 413));
  });

  it(`openai-node gets a 413 APIError every time, never a connection error (${REPETITIONS} runs)`, async () => {
    const client = new OpenAI({ baseURL: svir.baseUrl, apiKey: KEY, maxRetries: 0 });
    const outcomes: (number | string)[] = [];
    for (let i = 0; i < REPETITIONS; i++) {
      try {
        await client.chat.completions.create({ model: 'm1', messages: [{ role: 'user', content: 'a'.repeat(OVERSIZED) }] });
        outcomes.push('answered');
      } catch (err) {
        outcomes.push(err instanceof OpenAI.APIError && err.status !== undefined ? err.status : String(err));
      }
    }
    expect(outcomes).toEqual(Array.from({ length: REPETITIONS }, () => 413));
  });

  it(`a body that is not JSON gets its 415 every time, raw and by fetch (${REPETITIONS} runs each)`, async () => {
    for (let i = 0; i < REPETITIONS; i++) {
      const answer = await rawUpload({ contentType: 'text/plain', chunked: false });
      expect(answer.status).toBe(415);
      expect(codeOf(answer.body)).toBe('unsupported_media_type');
      expect(answer.closedAfterBody).toBe(true);
    }
    const results: (number | string)[] = [];
    for (let i = 0; i < REPETITIONS; i++) results.push(await fetchUpload('text/plain'));
    expect(results).toEqual(Array.from({ length: REPETITIONS }, () => 415));
  });

  it(`a request without a key gets its 401 while it uploads (${REPETITIONS} runs)`, async () => {
    for (let i = 0; i < REPETITIONS; i++) {
      const answer = await rawUpload({ contentType: 'application/json', chunked: false, auth: false });
      expect(answer.status).toBe(401);
      expect(codeOf(answer.body)).toBe('invalid_api_key');
      expect(answer.closedAfterBody).toBe(true);
    }
  });

  it('logs the code each refused client got (413 request_too_large, 415 unsupported_media_type), never internal_error', async () => {
    const before = await settledRequestLineCount();
    expect(await fetchUpload('application/json')).toBe(413);
    expect(await fetchUpload('text/plain')).toBe(415);
    const end = Date.now() + 5_000;
    while (requestLines().length < before + 2 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = requestLines().slice(before);
    expect(lines.map((line) => [line.status, line.error?.code])).toEqual([
      [413, 'request_too_large'],
      [415, 'unsupported_media_type'],
    ]);
    // And none of the refusals before said otherwise.
    expect(requestLines().some((line) => line.error?.code === 'internal_error')).toBe(false);
  });
});
