/**
 * Requests of extreme shape: a hundred thousand messages, twenty thousand tools, nesting a
 * hundred thousand levels deep, and an image of tens of megabytes. svir answers each without a
 * 500 and keeps serving; what it sends upstream is whole, with an exact Content-Length and no
 * chunked body (not every server takes one, docs/wire-protocol.md#size).
 */
import { createHash } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildChatEvents } from '../faults/chat-events.js';
import { helloScript, startFaultUpstream, type FaultUpstream, type UpstreamRecord } from '../faults/fault-upstream.js';
import { parseCleanStream, readErrorBody } from '../faults/parse-clean-stream.js';
import { startSvir, type RunningSvir } from '../faults/start-svir.js';

let upstream: FaultUpstream;
let svir: RunningSvir;

beforeAll(async () => {
  upstream = await startFaultUpstream({
    models: ['m'],
    keepBodyBytes: 128 * 1024 * 1024,
    // svir, the fake and this test share one event loop. Parsing a giant body on a loaded machine
    // once held it past the fake's 5 s keep-alive (and past the 3 s svir keeps an idle socket);
    // the fake's overdue timer then closed the idle socket svir had just written the next request
    // to, unread, and the reset came back as a 502. A real server's timers do not wait on svir's.
    keepAliveTimeoutMs: 120_000,
  });
  svir = await startSvir(
    { backends: [{ name: 'fake', type: 'openai', url: upstream.url, models: ['m'], vision: true }] },
    { logLevel: 'warn' },
  );
});

afterAll(async () => {
  await svir?.close();
  await upstream?.close();
});

async function chat(body: string): Promise<{ status: number; text: string; record: UpstreamRecord | undefined }> {
  const before = upstream.requests.length;
  const response = await request(`${svir.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const text = await response.body.text();
  return { status: response.statusCode, text, record: upstream.requests.slice(before).find((seen) => seen.method === 'POST') };
}

/** The upstream got a Content-Length that is exactly its body, and no chunked encoding. */
function expectExactLength(record: UpstreamRecord | undefined): void {
  expect(record).toBeDefined();
  expect(record?.headers['transfer-encoding']).toBeUndefined();
  expect(record?.headers['content-length']).toBe(String(record?.bodyBytes));
}

const upstreamBody = z.looseObject({
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })),
  tools: z.array(z.looseObject({ function: z.looseObject({ name: z.string() }) })).optional(),
});

describe('giant requests', () => {
  it('a hundred thousand messages go upstream whole', async () => {
    const messages = Array.from({ length: 100_000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: `message ${i}` }));
    upstream.enqueue(helloScript());
    const { status, text, record } = await chat(JSON.stringify({ model: 'm', messages, stream: true }));
    expect(status, text.slice(0, 300)).toBe(200);
    expect(parseCleanStream(text).doneLast).toBe(true);
    expectExactLength(record);
    const sent = upstreamBody.parse(record?.json);
    expect(sent.messages).toHaveLength(100_000);
    expect(sent.messages[99_999]).toEqual({ role: 'assistant', content: 'message 99999' });
  });

  it('twenty thousand tools go upstream whole, and a call of the last one comes back', async () => {
    const tools = Array.from({ length: 20_000 }, (_, i) => ({
      type: 'function',
      function: { name: `tool_${i}`, description: `tool number ${i}`, parameters: { type: 'object', properties: {} } },
    }));
    upstream.enqueue({
      events: buildChatEvents({ toolCalls: [{ id: 'call_1', name: 'tool_19999', argumentPieces: ['{', '}'] }] }),
    });
    const { status, text, record } = await chat(
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'call one' }], tools, stream: true }),
    );
    expect(status, text.slice(0, 300)).toBe(200);
    const parsed = parseCleanStream(text);
    expect(parsed.toolCalls.map((call) => [call.name, call.arguments])).toEqual([['tool_19999', '{}']]);
    expect(parsed.finishReasons).toEqual(['tool_calls']);
    expectExactLength(record);
    expect(upstreamBody.parse(record?.json).tools).toHaveLength(20_000);
  });

  it('a tool schema nested a hundred thousand levels deep is answered without a 500', async () => {
    const depth = 100_000;
    const nested = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"deep","parameters":${nested}}}]}`;
    upstream.enqueue(helloScript());
    const { status, text } = await chat(body);
    expect(status, text.slice(0, 300)).toBeLessThan(500);
    if (status >= 400) expect(readErrorBody(text), text).toBeDefined();
    upstream.setScript(() => helloScript());
    // And svir still serves.
    const after = await chat(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }));
    expect(after.status).toBe(200);
  });

  it('a 30 MB image goes upstream intact with an exact Content-Length', async () => {
    // Deterministic bytes: base64 of 22.5 MB is 30 MB of text.
    const bytes = Buffer.alloc(22_500_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 2_654_435_761) >>> 24;
    const base64 = bytes.toString('base64');
    expect(base64.length).toBe(4 * Math.ceil(bytes.length / 3));
    const url = `data:image/png;base64,${base64}`;
    const body = JSON.stringify({
      model: 'm',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url } }] }],
      stream: true,
    });
    upstream.enqueue(helloScript());
    const { status, text, record } = await chat(body);
    expect(status, text.slice(0, 300)).toBe(200);
    expect(parseCleanStream(text).content).toBe('Hello world!');
    expectExactLength(record);
    expect(record?.bodyBytes).toBeGreaterThan(base64.length);
    // The image arrived byte for byte inside the body.
    const sent = upstreamBody.parse(record?.json);
    const parts = z.array(z.looseObject({ type: z.string(), image_url: z.looseObject({ url: z.string() }).optional() })).parse(sent.messages[0]?.content);
    const image = parts.find((part) => part.type === 'image_url')?.image_url?.url ?? '';
    expect(createHash('sha256').update(image).digest('hex')).toBe(createHash('sha256').update(url).digest('hex'));
  });
});
