/**
 * The fault upstream is the ruler the fault suite measures svir with, so it is checked on its
 * own first: each fault does what its name says at its phase, and the records tell the truth.
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChatEvents } from './chat-events.js';
import {
  faultApplies,
  FAULT_KINDS,
  FAULT_PHASES,
  garbageBytes,
  GIANT_LINE_BYTES,
  helloScript,
  startFaultUpstream,
  type FaultUpstream,
} from './fault-upstream.js';

let upstream: FaultUpstream;
let agent: Agent;

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m1', 'm2'] });
  agent = new Agent({ keepAliveTimeout: 1_000 });
});

afterAll(async () => {
  await agent.close();
  await upstream.close();
});

const chatUrl = (): string => `${upstream.url}chat/completions`;

async function post(body: unknown): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  const response = await request(chatUrl(), {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
}

describe('fault upstream: normal answers', () => {
  it('streams a scripted answer ending in [DONE] and records the request', async () => {
    upstream.enqueue(helloScript('m1'));
    const answer = await post({ model: 'm1', messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('text/event-stream');
    const events = answer.text.split('\n\n').filter((frame) => frame.length > 0);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events).toHaveLength(buildChatEvents({ content: ['Hello', ' world', '!'], usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 } }).length + 1);
    const record = upstream.requests.at(-1);
    expect(record?.json).toEqual({ model: 'm1', messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(record?.responseEnded).toBe(true);
    expect(record?.bytesWritten).toBe(Buffer.byteLength(answer.text));
  });

  it('lists its models', async () => {
    const response = await request(`${upstream.url}models`, { dispatcher: agent });
    expect(await response.body.json()).toEqual({
      object: 'list',
      data: [
        { id: 'm1', object: 'model' },
        { id: 'm2', object: 'model' },
      ],
    });
  });

  it('answers a scripted error body with its status and headers', async () => {
    upstream.enqueue({ status: 429, headers: { 'retry-after': '3' }, body: '{"error":{"message":"slow down"}}' });
    const answer = await post({ model: 'm1' });
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('3');
    expect(answer.text).toBe('{"error":{"message":"slow down"}}');
  });
});

describe('fault upstream: faults', () => {
  it('knows which faults exist at which phase and refuses the others', () => {
    const applicable = FAULT_KINDS.flatMap((kind) => FAULT_PHASES.filter((phase) => faultApplies(kind, phase)).map((phase) => `${kind}@${phase}`));
    expect(applicable).toHaveLength(6 * 6 + 2);
    expect(() => upstream.enqueue({ fault: { kind: 'redirect', phase: 'mid-chunk' } })).toThrow(/only before headers|cannot happen/);
  });

  it('resets the connection before headers, and records that it closed the socket', async () => {
    upstream.enqueue({ ...helloScript(), fault: { kind: 'reset', phase: 'before-headers' } });
    await expect(post({ model: 'm1' })).rejects.toThrow();
    const record = upstream.requests.at(-1);
    expect(await upstream.waitForSocketClose(record!.socket, 2_000)).toBeTypeOf('number');
    expect(record?.socket.closedByFake).toBe(true);
  });

  it('cuts an event in half and closes cleanly, with no [DONE]', async () => {
    upstream.enqueue({ ...helloScript(), fault: { kind: 'close', phase: 'mid-chunk' } });
    const answer = await post({ model: 'm1' });
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain('[DONE]');
    expect(answer.text.endsWith('\n\n')).toBe(false);
    const frames = answer.text.split('\n\n');
    expect(frames).toHaveLength(3);
    const record = upstream.requests.at(-1);
    expect(await upstream.waitForSocketClose(record!.socket, 2_000)).toBeTypeOf('number');
  });

  it('sends the finish and usage, then garbage in place of [DONE]', async () => {
    upstream.enqueue({ ...helloScript(), fault: { kind: 'garbage', phase: 'after-finish' } });
    const controller = new AbortController();
    const response = await request(chatUrl(), { method: 'POST', dispatcher: agent, body: '{}', signal: controller.signal });
    const received: Buffer[] = [];
    let total = 0;
    const garbage = garbageBytes();
    for await (const piece of response.body) {
      const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
      received.push(bytes);
      total += bytes.length;
      if (Buffer.concat(received).includes(garbage)) break;
    }
    const text = Buffer.concat(received);
    expect(text.includes('"finish_reason":"stop"')).toBe(true);
    expect(text.includes('"usage"')).toBe(true);
    expect(text.includes('[DONE]')).toBe(false);
    expect(total).toBeGreaterThan(garbage.length);
    // The fake now hangs: only the client closing the connection ends it, and that is recorded.
    controller.abort();
    const record = upstream.requests.at(-1);
    expect(await upstream.waitForSocketClose(record!.socket, 2_000)).toBeTypeOf('number');
    expect(record?.socket.closedByFake).toBe(false);
    expect(record?.responseEnded).toBe(false);
  });

  it('stalls after headers until the client gives up, and sees the client close', async () => {
    upstream.enqueue({ ...helloScript(), fault: { kind: 'stall', phase: 'after-headers' } });
    const controller = new AbortController();
    const response = await request(chatUrl(), { method: 'POST', dispatcher: agent, body: '{}', signal: controller.signal });
    expect(response.statusCode).toBe(200);
    const record = upstream.requests.at(-1);
    expect(record?.bytesWritten).toBe(0);
    controller.abort();
    await response.body.text().catch(() => undefined);
    expect(await upstream.waitForSocketClose(record!.socket, 2_000)).toBeTypeOf('number');
    expect(record?.socket.closedByFake).toBe(false);
  });

  it('writes a line without a break, bounded by backpressure when nobody reads', async () => {
    upstream.enqueue({ ...helloScript(), fault: { kind: 'giant-line', phase: 'between-chunks' } });
    const controller = new AbortController();
    const response = await request(chatUrl(), { method: 'POST', dispatcher: agent, body: '{}', signal: controller.signal });
    const record = upstream.requests.at(-1)!;
    // Read nothing: the fake must block on its writes long before 10 MB.
    while (record.blockedWrites === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(record.bytesWritten).toBeLessThan(GIANT_LINE_BYTES);
    controller.abort();
    await response.body.text().catch(() => undefined);
    expect(await upstream.waitForSocketClose(record.socket, 2_000)).toBeTypeOf('number');
    expect(record.responseEnded).toBe(false);
  });

  it('redirects before headers to a path it records if followed', async () => {
    upstream.enqueue({ fault: { kind: 'redirect', phase: 'before-headers' } });
    const answer = await post({});
    expect(answer.status).toBe(307);
    expect(answer.headers.location).toBe(`${upstream.origin}/redirected/v1/chat/completions`);
  });

  it('answers 200 with a JSON body for a wrong content type', async () => {
    upstream.enqueue({ fault: { kind: 'wrong-content-type', phase: 'before-headers' } });
    const answer = await post({});
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json');
  });

  it('breaks the HTTP head with a header line that never ends', async () => {
    upstream.enqueue({ fault: { kind: 'giant-line', phase: 'before-headers' } });
    await expect(post({})).rejects.toThrow();
    const record = upstream.requests.at(-1)!;
    expect(await upstream.waitForSocketClose(record.socket, 2_000)).toBeTypeOf('number');
    expect(record.bytesWritten).toBeLessThan(GIANT_LINE_BYTES);
  });

  it('answers garbage and a not-JSON error body before headers', async () => {
    upstream.enqueue({ fault: { kind: 'garbage', phase: 'before-headers' } });
    await expect(post({})).rejects.toThrow();
    upstream.enqueue({ fault: { kind: 'not-json', phase: 'before-headers' } });
    const answer = await post({});
    expect(answer.status).toBe(500);
    expect(() => JSON.parse(answer.text)).toThrow();
  });

  it('waits for drain when its reader is slow and counts the blocked writes', async () => {
    const piece = 'y'.repeat(8 * 1024);
    function* many(): Generator<string> {
      for (let i = 0; i < 4_096; i++) yield JSON.stringify({ choices: [{ index: 0, delta: { content: piece } }] });
    }
    upstream.enqueue({ events: many() });
    const controller = new AbortController();
    const response = await request(chatUrl(), { method: 'POST', dispatcher: agent, body: '{}', signal: controller.signal });
    const record = upstream.requests.at(-1)!;
    while (record.blockedWrites === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(record.bytesWritten).toBeLessThan(4_096 * piece.length);
    controller.abort();
    await response.body.text().catch(() => undefined);
    expect(await upstream.waitForSocketClose(record.socket, 2_000)).toBeTypeOf('number');
  });
});
