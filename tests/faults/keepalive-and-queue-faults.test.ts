/**
 * Faults at the two moments svir is waiting on its own account. While it bridges a long first
 * token with `: keepalive` comments, the headers are already out: a stall or a reset then
 * ends the stream with exactly one error event and no [DONE]. While a request waits in a
 * backend's queue, a client that hangs up takes its request out: it never reaches the upstream.
 */
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helloScript, startFaultUpstream, type FaultUpstream } from './fault-upstream.js';
import { parseCleanStream } from './parse-clean-stream.js';
import { resourceSnapshot, waitForResourcesBack, type ResourceSnapshot } from './resource-snapshot.js';
import { startSvir, type RunningSvir } from './start-svir.js';

let baseline: ResourceSnapshot;
let upstream: FaultUpstream;
let svir: RunningSvir;
let agent: Agent;

beforeAll(async () => {
  baseline = resourceSnapshot();
  upstream = await startFaultUpstream({ models: ['m', 'narrow'] });
  svir = await startSvir({
    server: { keepaliveMs: 100 },
    backends: [
      { name: 'slow', type: 'openai', url: upstream.url, models: ['m'], timeouts: { connectMs: 1_000, firstTokenMs: 1_500, idleMs: 1_500 } },
      { name: 'one-slot', type: 'openai', url: upstream.url, models: ['narrow'], maxConcurrent: 1, maxQueue: 4 },
    ],
  });
  agent = new Agent();
});

afterAll(async () => {
  await agent?.close().catch(() => undefined);
  await svir?.close().catch(() => undefined);
  await upstream?.close().catch(() => undefined);
});

async function chat(model: string, stream: boolean): Promise<{ status: number; text: string }> {
  const response = await request(`${svir.url}/v1/chat/completions`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], stream }),
  });
  return { status: response.statusCode, text: await response.body.text() };
}

describe('faults while svir sends keepalives', () => {
  it.each([
    ['stall', 'upstream_timeout'],
    ['reset', 'upstream_error'],
    ['close', 'upstream_error'],
  ] as const)('%s before the first token: comments, then exactly one error event, no [DONE]', async (kind, code) => {
    let release: () => void = () => undefined;
    // The fault comes after a few keepalives: the client has its headers and comments by then.
    const keepalivesSeen = new Promise<void>((resolve) => {
      release = resolve;
    });
    upstream.enqueue({ ...helloScript(), fault: { kind, phase: 'after-headers' }, holdUntil: kind === 'stall' ? undefined : keepalivesSeen });
    const before = upstream.requests.length;
    const pending = chat('m', true);
    if (kind !== 'stall') {
      await sleep(400);
      release();
    }
    const answer = await pending;
    const parsed = parseCleanStream(answer.text);
    expect(answer.status).toBe(200);
    expect(parsed.comments).toBeGreaterThan(0);
    expect(parsed.errors.map((error) => error.code)).toEqual([code]);
    expect(parsed.done).toBe(false);
    expect(parsed.framesAfterError).toBe(0);
    expect(parsed.malformed).toEqual([]);
    const record = upstream.requests[before];
    expect(await upstream.waitForSocketClose(record!.socket, 3_000)).toBeTypeOf('number');
  });

  it('keeps serving afterwards', async () => {
    upstream.enqueue(helloScript());
    const answer = await chat('m', true);
    expect(parseCleanStream(answer.text).content).toBe('Hello world!');
  });
});

describe('a client that hangs up while queued', () => {
  it('never reaches the upstream, and the queue moves on', async () => {
    let releaseFirst: () => void = () => undefined;
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    // The first request holds the backend's one slot until released.
    upstream.enqueue({ ...helloScript(), holdUntil: firstHeld });
    const arrived = upstream.nextRequest();
    const first = chat('narrow', true);
    await arrived;
    const posts = (): number => upstream.requests.filter((seen) => seen.method === 'POST').length;
    const postsBefore = posts();

    // The second waits in the queue; its client hangs up there.
    const body = JSON.stringify({ model: 'narrow', messages: [{ role: 'user', content: 'queued' }], stream: true });
    const socket = connect({ host: '127.0.0.1', port: svir.port });
    socket.on('error', () => undefined);
    socket.write(`POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await sleep(200);
    socket.destroy();
    await sleep(100);

    releaseFirst();
    expect(parseCleanStream((await first).text).content).toBe('Hello world!');
    // The slot is free again and the queue holds nothing stale: a third request is served.
    upstream.enqueue(helloScript());
    const third = await chat('narrow', true);
    expect(parseCleanStream(third.text).content).toBe('Hello world!');
    const queued = upstream.requests.filter((seen) => JSON.stringify(seen.json ?? '').includes('queued'));
    expect(queued).toEqual([]);
    expect(posts()).toBe(postsBefore + 1);
  });
});

describe('afterwards', () => {
  it('leaves no timer, socket or listener behind', async () => {
    await agent.close();
    await svir.close();
    await upstream.close();
    expect(await waitForResourcesBack(baseline)).toEqual({});
  });
});
