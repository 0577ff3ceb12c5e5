/**
 * The same model on several backends: requests spread over them, a failure before the first
 * byte is tried once on the next one, never after it; and each backend's concurrency limit,
 * with a FIFO queue that refuses past its bounds.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sse, type ScriptedResponse } from '../fakes/scripted-upstream.js';
import { buildChatEvents } from '../faults/chat-events.js';
import { parseCleanStream } from '../faults/parse-clean-stream.js';
import { answer, chatBody, closedPortUrl, post, startFleet, until, type Fleet } from './helpers/start-fleet.js';

const errorBody = z.object({ error: z.object({ code: z.string().nullable(), message: z.string() }) });
function errorCode(text: string): string | null {
  return errorBody.parse(JSON.parse(text)).error.code;
}

function chatRequests(fleet: Fleet, backend: string): number {
  return fleet.upstream(backend).requestsTo('POST', '/v1/chat/completions').length;
}

const overloaded: ScriptedResponse = { kind: 'body', status: 503, body: { error: { message: 'server overloaded' } } };

let fleet: Fleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

describe('spreading one model over several backends', () => {
  it('takes turns between two idle backends', async () => {
    fleet = await startFleet({ backends: [{ name: 'a', listed: ['m'] }, { name: 'b', listed: ['m'] }] });
    fleet.upstream('a').chat(answer(['a']));
    fleet.upstream('b').chat(answer(['b']));
    const served: string[] = [];
    for (let i = 0; i < 4; i += 1) served.push((await post(fleet.url, chatBody('m'))).headers.get('x-svir-backend') ?? '');
    expect(served.sort()).toEqual(['a', 'a', 'b', 'b']);
  });

  it('sends a request to the backend with fewer requests running', async () => {
    fleet = await startFleet({ backends: [{ name: 'a', listed: ['m'] }, { name: 'b', listed: ['m'] }] });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const held: ScriptedResponse = { kind: 'sse', pieces: [{ waitFor: gate }, ...answerPieces(['held'])] };
    fleet.upstream('a').chat(held);
    fleet.upstream('b').chat(held);
    const first = post(fleet.url, chatBody('m'));
    await until(() => chatRequests(fleet!, 'a') + chatRequests(fleet!, 'b') === 1, 'the first request upstream');
    const busy = chatRequests(fleet, 'a') === 1 ? 'a' : 'b';
    const idle = busy === 'a' ? 'b' : 'a';
    fleet.upstream(idle).chat(answer(['free']));
    for (let i = 0; i < 2; i += 1) {
      const reply = await post(fleet.url, chatBody('m'));
      expect(reply.headers.get('x-svir-backend')).toBe(idle);
    }
    release();
    expect((await first).status).toBe(200);
  });
});

function answerPieces(content: string[]): string[] {
  return [...buildChatEvents({ content }).map((event) => sse(event)), sse('[DONE]')];
}

describe('failover before the first byte', () => {
  it('tries the next backend once when the first answers 503', async () => {
    fleet = await startFleet({ backends: [{ name: 'a', listed: ['m'] }, { name: 'b', listed: ['m'] }] });
    fleet.upstream('a').chat(overloaded);
    fleet.upstream('b').chat(overloaded);
    // Whichever comes first fails; the other must then get the request, and no third try.
    const reply = await post(fleet.url, chatBody('m', { stream: true }));
    expect(reply.status).toBe(502);
    expect(errorCode(reply.text)).toBe('upstream_error');
    expect(chatRequests(fleet, 'a')).toBe(1);
    expect(chatRequests(fleet, 'b')).toBe(1);

    fleet.upstream('b').chat(answer(['from b']));
    fleet.upstream('a').chat(overloaded);
    for (let i = 0; i < 2; i += 1) {
      const ok = await post(fleet.url, chatBody('m', { stream: true }));
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-svir-backend')).toBe('b');
      expect(parseCleanStream(ok.text).content).toBe('from b');
    }
  });

  it('tries the next backend when the first refuses the connection, and puts it last afterwards', async () => {
    const down = await closedPortUrl();
    fleet = await startFleet({
      backends: [
        { name: 'a', url: down.url, extra: { models: ['m'] } },
        { name: 'b', listed: ['m'] },
      ],
    });
    fleet.upstream('b').chat(answer(['from b']));
    for (let i = 0; i < 3; i += 1) {
      const reply = await post(fleet.url, chatBody('m'));
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-svir-backend')).toBe('b');
    }
    expect(chatRequests(fleet, 'b')).toBe(3);
    expect(fleet.app.svir.registry.status().find((s) => s.name === 'a')?.state).toBe('down');
    expect(fleet.logText()).toContain('failover');
  });

  it('does not send a request the backend rejected (400) to another one', async () => {
    fleet = await startFleet({ backends: [{ name: 'a', listed: ['m'] }, { name: 'b', listed: ['m'] }] });
    const rejected: ScriptedResponse = {
      kind: 'body',
      status: 400,
      body: { error: { message: "This model's maximum context length is 4096 tokens.", code: 'context_length_exceeded' } },
    };
    fleet.upstream('a').chat(rejected);
    fleet.upstream('b').chat(rejected);
    const reply = await post(fleet.url, chatBody('m'));
    expect(reply.status).toBe(400);
    expect(errorCode(reply.text)).toBe('context_length_exceeded');
    expect(chatRequests(fleet, 'a') + chatRequests(fleet, 'b')).toBe(1);
  });

  it('does not send on mlx-vlm\'s 502 for a summary that ran out (a resend repeats it), but does an ordinary 502', async () => {
    const mlxVlm = { type: 'mlx-vlm' };
    fleet = await startFleet({ backends: [{ name: 'a', listed: ['m'], extra: mlxVlm }, { name: 'b', listed: ['m'], extra: mlxVlm }] });
    const summaryRanOut: ScriptedResponse = {
      kind: 'body',
      status: 502,
      body: { detail: 'Compaction summary hit its output limit; original context preserved.' },
    };
    fleet.upstream('a').chat(summaryRanOut);
    fleet.upstream('b').chat(summaryRanOut);
    const reply = await post(fleet.url, chatBody('m', { stream: true }));
    expect(reply.status).toBe(502);
    expect(errorCode(reply.text)).toBe('upstream_error');
    expect(reply.text).toContain('Compaction summary hit its output limit');
    expect(chatRequests(fleet, 'a') + chatRequests(fleet, 'b')).toBe(1);

    // The contrast: a 502 that says nothing of the kind is tried once on the other backend.
    const gateway: ScriptedResponse = { kind: 'body', status: 502, body: { detail: 'Bad Gateway' } };
    fleet.upstream('a').chat(gateway);
    fleet.upstream('b').chat(gateway);
    const again = await post(fleet.url, chatBody('m', { stream: true }));
    expect(again.status).toBe(502);
    expect(chatRequests(fleet, 'a') + chatRequests(fleet, 'b')).toBe(3);
  });

  it('never retries after the first byte: the stream ends with one error event', async () => {
    fleet = await startFleet({ backends: [{ name: 'a', listed: ['m'] }, { name: 'b', listed: ['m'] }] });
    const events = buildChatEvents({ content: ['partial answer'] });
    let clientHasBytes!: () => void;
    const received = new Promise<void>((resolve) => {
      clientHasBytes = resolve;
    });
    // The server dies once the client holds the first bytes of the answer.
    const cut: ScriptedResponse = {
      kind: 'sse',
      pieces: [sse(events[0] ?? ''), sse(events[1] ?? ''), { waitFor: received }],
      finish: 'destroy',
    };
    fleet.upstream('a').chat(cut);
    fleet.upstream('b').chat(cut);
    const response = await fetch(`${fleet.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody('m', { stream: true })),
    });
    expect(response.status).toBe(200);
    if (response.body === null) throw new Error('no body');
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      text += decoder.decode(read.value, { stream: true });
      if (text.includes('partial answer')) clientHasBytes();
    }
    const stream = parseCleanStream(text);
    expect(stream.content).toBe('partial answer');
    expect(stream.errors.map((e) => e.code)).toEqual(['upstream_error']);
    expect(stream.done).toBe(false);
    expect(chatRequests(fleet, 'a') + chatRequests(fleet, 'b')).toBe(1);
  });
});

describe('per-backend concurrency limit and queue', () => {
  it('runs maxConcurrent at once, queues the rest in order, refuses past maxQueue with 503 and Retry-After', async () => {
    fleet = await startFleet({
      backends: [{ name: 'one', listed: ['m'], extra: { maxConcurrent: 1, maxQueue: 2, queueTimeoutMs: 10_000 } }],
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    fleet.upstream('one').chat({ kind: 'sse', pieces: [{ waitFor: gate }, ...answerPieces(['first'])] }, answer(['next']));
    const queue = fleet.app.svir.queues.get('one');
    if (queue === undefined) throw new Error('no queue for backend one');

    const ask = (label: string) => post(fleet!.url, { ...chatBody('m'), messages: [{ role: 'user', content: label }] });
    const first = ask('r1');
    await until(() => chatRequests(fleet!, 'one') === 1, 'r1 upstream');
    const second = ask('r2');
    await until(() => queue.stats().queued === 1, 'r2 queued');
    const third = ask('r3');
    await until(() => queue.stats().queued === 2, 'r3 queued');

    // Only r1 reached the server; the queue is full now.
    expect(chatRequests(fleet, 'one')).toBe(1);
    const refused = await ask('r4');
    expect(refused.status).toBe(503);
    expect(errorCode(refused.text)).toBe('backend_unavailable');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Only inference routes are limited.
    expect((await fetch(`${fleet.url}/v1/models`)).status).toBe(200);
    const metrics = await (await fetch(`${fleet.url}/metrics`)).text();
    expect(metrics).toContain('svir_queue_length{backend="one"} 2');
    expect(metrics).toContain('svir_queue_active{backend="one"} 1');

    release();
    const replies = await Promise.all([first, second, third]);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    const order = fleet
      .upstream('one')
      .requestsTo('POST', '/v1/chat/completions')
      .map((r) => z.object({ messages: z.array(z.object({ content: z.string() })) }).parse(r.body).messages[0]?.content);
    expect(order).toEqual(['r1', 'r2', 'r3']);
    expect(queue.stats()).toMatchObject({ active: 0, queued: 0 });
  });

  it('gives up on a queue wait past queueTimeoutMs with 503', async () => {
    fleet = await startFleet({
      backends: [{ name: 'one', listed: ['m'], extra: { maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 50 } }],
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    fleet.upstream('one').chat({ kind: 'sse', pieces: [{ waitFor: gate }, ...answerPieces(['slow'])] });
    const first = post(fleet.url, chatBody('m'));
    await until(() => chatRequests(fleet!, 'one') === 1, 'the first request upstream');
    const waited = await post(fleet.url, chatBody('m'));
    expect(waited.status).toBe(503);
    expect(errorBody.parse(JSON.parse(waited.text)).error.message).toContain('queueTimeoutMs');
    release();
    expect((await first).status).toBe(200);
  });

  it('frees the slot of a client that left, and drops a waiter that left', async () => {
    fleet = await startFleet({
      backends: [{ name: 'one', listed: ['m'], extra: { maxConcurrent: 1, maxQueue: 5, queueTimeoutMs: 10_000 } }],
    });
    fleet.upstream('one').chat({ kind: 'sse', pieces: [{ waitFor: new Promise(() => undefined) }], finish: 'hang' }, answer(['after']));
    const queue = fleet.app.svir.queues.get('one');
    if (queue === undefined) throw new Error('no queue');
    const send = (body: Record<string, unknown>, signal: AbortSignal) =>
      fetch(`${fleet!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal,
      }).catch(() => undefined);
    const holder = new AbortController();
    const held = send(chatBody('m', { stream: true }), holder.signal);
    await until(() => queue.stats().active === 1, 'the holder running');
    const waiter = new AbortController();
    const waiting = send(chatBody('m'), waiter.signal);
    await until(() => queue.stats().queued === 1, 'the waiter queued');
    waiter.abort();
    await waiting;
    holder.abort();
    await held;
    await until(() => queue.stats().active === 0, 'the slot freed');
    const after = await post(fleet.url, chatBody('m'));
    expect(after.status).toBe(200);
    // The waiter left the queue: it never reached the server (it would have had the slot after
    // the holder); the holder and the one after did.
    expect(chatRequests(fleet, 'one')).toBe(2);
  });

});
