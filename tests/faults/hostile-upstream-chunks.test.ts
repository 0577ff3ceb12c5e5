/**
 * Chunks a hostile or broken upstream can send that are well-formed JSON and still meant to
 * hurt: logprobs nested a hundred thousand levels deep (they overflowed the encoder: a 500),
 * an id of megabytes (repeated into every clean chunk), tool call indices far out of range.
 * Each ends in a clean answer or one clean upstream error, never a 500, and svir keeps serving.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helloScript, startFaultUpstream, type FaultUpstream } from './fault-upstream.js';
import { parseCleanStream, readErrorBody } from './parse-clean-stream.js';
import { startSvir, type RunningSvir } from './start-svir.js';

let upstream: FaultUpstream;
let svir: RunningSvir;

beforeAll(async () => {
  upstream = await startFaultUpstream({ models: ['m'] });
  svir = await startSvir({ backends: [{ name: 'fake', type: 'openai', url: upstream.url, models: ['m'] }] }, { logLevel: 'warn' });
});

afterAll(async () => {
  await svir?.close();
  await upstream?.close();
});

function chunk(fields: Record<string, unknown>, id = 'chatcmpl-x'): string {
  return JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'm', ...fields });
}
const content = (text: string): string => chunk({ choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });
const finish = chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
/** Written as text: JSON.stringify of such a value would overflow here too. */
const deepLogprobs = (depth: number): string =>
  `{"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"b"},"logprobs":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)},"finish_reason":null}]}`;

async function chat(body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const response = await request(`${svir.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

async function expectServing(): Promise<void> {
  upstream.enqueue(helloScript());
  const answer = await chat({ stream: true });
  expect(parseCleanStream(answer.text).content).toBe('Hello world!');
}

describe('hostile upstream chunks', () => {
  it('logprobs nested a hundred thousand levels deep, as the first chunk: a 502, not a 500', async () => {
    upstream.enqueue({ events: [deepLogprobs(100_000), finish] });
    const answer = await chat({ stream: true, logprobs: true });
    expect(answer.status, answer.text).toBe(502);
    expect(readErrorBody(answer.text)?.code).toBe('upstream_error');
    await expectServing();
  });

  it('the same after the answer began: exactly one error event', async () => {
    upstream.enqueue({ events: [content('a'), deepLogprobs(100_000), finish] });
    const answer = await chat({ stream: true, logprobs: true });
    const parsed = parseCleanStream(answer.text);
    expect(answer.status).toBe(200);
    expect(parsed.errors.map((error) => error.code)).toEqual(['upstream_error']);
    expect(parsed.done).toBe(false);
    await expectServing();
  });

  it('the same without logprobs asked: they are not forwarded, the answer is whole', async () => {
    upstream.enqueue({ events: [content('a'), deepLogprobs(100_000), finish] });
    const answer = await chat({ stream: true });
    const parsed = parseCleanStream(answer.text);
    expect(parsed.errors).toEqual([]);
    expect(parsed.content).toBe('ab');
    expect(parsed.doneLast).toBe(true);
  });

  it('ordinary logprobs still pass', async () => {
    const logprobs = { content: [{ token: 'a', logprob: -0.1, bytes: [97], top_logprobs: [{ token: 'a', logprob: -0.1, bytes: [97] }] }] };
    upstream.enqueue({ events: [chunk({ choices: [{ index: 0, delta: { content: 'a' }, logprobs, finish_reason: null }] }), finish] });
    const answer = await chat({ stream: true, logprobs: true });
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"top_logprobs"');
  });

  it('an id of 4 MB is not repeated into every chunk', async () => {
    const giantId = 'i'.repeat(4_000_000);
    upstream.enqueue({ events: [chunk({ choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }, giantId), ...Array.from({ length: 20 }, () => content('b')), finish] });
    const answer = await chat({ stream: true });
    const parsed = parseCleanStream(answer.text);
    expect(parsed.content).toBe(`a${'b'.repeat(20)}`);
    expect(parsed.doneLast).toBe(true);
    for (const one of parsed.chunks) expect(one.id.length).toBeLessThanOrEqual(256);
    expect(answer.text.length).toBeLessThan(64 * 1024);
  });

  it('a tool call index of a billion is one call, index 0', async () => {
    upstream.enqueue({
      events: [
        chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: 1e9, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: null }] }),
        chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] }),
      ],
    });
    const answer = await chat({ stream: true, tools: [{ type: 'function', function: { name: 'f' } }] });
    const parsed = parseCleanStream(answer.text);
    expect(parsed.toolCalls).toEqual([{ id: 'call_a', name: 'f', arguments: '{}' }]);
    expect(answer.text).toContain('"index":0');
  });

  it('a negative tool call index is an unreadable chunk: a 502', async () => {
    upstream.enqueue({
      events: [chunk({ choices: [{ index: 0, delta: { tool_calls: [{ index: -1, id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }, finish_reason: null }] }), finish],
    });
    const answer = await chat({ stream: true, tools: [{ type: 'function', function: { name: 'f' } }] });
    expect(answer.status).toBe(502);
    expect(readErrorBody(answer.text)?.code).toBe('upstream_error');
    await expectServing();
  });

  it('an endless answer for stream: false ends in a 502 at the bound, and the upstream is let go', async () => {
    const piece = 'z'.repeat(1024);
    function* endless(): Generator<string> {
      // 256 MiB if nobody stopped it: four times the bound.
      for (let i = 0; i < 256 * 1024; i++) yield content(piece);
    }
    upstream.enqueue({ events: endless() });
    const before = upstream.requests.length;
    const answer = await chat({ stream: false });
    expect(answer.status, answer.text.slice(0, 300)).toBe(502);
    expect(readErrorBody(answer.text)?.message).toMatch(/stream: true/);
    const record = upstream.requests[before];
    expect(await upstream.waitForSocketClose(record!.socket, 3_000)).toBeTypeOf('number');
    expect(record?.responseEnded).toBe(false);
    await expectServing();
  });

  it('an event of 200,000 short data: lines and no end: a bounded buffer, then a 502', async () => {
    // Each line is short (the line bound never trips); the event's data is 20 M characters,
    // over the decoder's event bound, and the server never ends it.
    const endless = `x${`\ndata: ${'y'.repeat(100)}`.repeat(200_000)}`;
    upstream.enqueue({ events: [endless], done: false, fault: { kind: 'stall', phase: 'after-finish' } });
    const before = upstream.requests.length;
    const answer = await chat({ stream: true });
    expect(answer.status, answer.text.slice(0, 300)).toBe(502);
    expect(readErrorBody(answer.text)?.message).toMatch(/SSE event larger than/);
    const record = upstream.requests[before];
    expect(await upstream.waitForSocketClose(record!.socket, 3_000)).toBeTypeOf('number');
    await expectServing();
  });

  it('logged no internal error along the way', () => {
    expect(svir.logs.filter((line) => line.includes('svir failed unexpectedly'))).toEqual([]);
  });
});
