/**
 * Each timeout, with tens of milliseconds in the config: connect, first token and idle between
 * chunks, answered as 504 before the stream or as one error event inside it; and `: keepalive`
 * comments while a long first token is awaited.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sse, type ScriptedResponse } from '../fakes/scripted-upstream.js';
import { buildChatEvents } from '../faults/chat-events.js';
import { parseCleanStream } from '../faults/parse-clean-stream.js';
import { answer, chatBody, post, startFleet, type Fleet } from './helpers/start-fleet.js';

const errorBody = z.object({ error: z.object({ code: z.string().nullable(), message: z.string(), type: z.string() }) });

const never = (): Promise<void> => new Promise(() => undefined);
/** Headers sent, then nothing: a server reading a long prompt. */
const silentStream: ScriptedResponse = { kind: 'sse', pieces: [{ waitFor: never() }], finish: 'hang' };
/** Two chunks, then nothing: a server stuck mid-answer. */
function stuckAfter(content: string): ScriptedResponse {
  const events = buildChatEvents({ content: [content] });
  return { kind: 'sse', pieces: [sse(events[0] ?? ''), sse(events[1] ?? ''), { waitFor: never() }], finish: 'hang' };
}

function timeouts(overrides: Record<string, number>): Record<string, unknown> {
  return { timeouts: { connectMs: 5_000, firstTokenMs: 60_000, idleMs: 60_000, ...overrides } };
}

let fleet: Fleet | undefined;
let silent: { server: Server; sockets: Set<Socket> } | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
  if (silent !== undefined) {
    for (const socket of silent.sockets) socket.destroy();
    await new Promise<void>((resolve) => silent?.server.close(() => resolve()));
    silent = undefined;
  }
});

/** A TCP server that accepts and never says a word: a TLS handshake with it never completes. */
async function startSilentServer(): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  silent = { server, sockets };
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('connect timeout', () => {
  it('answers 504 upstream_timeout when the connection is not made within connectMs', async () => {
    const port = await startSilentServer();
    fleet = await startFleet({
      backends: [{ name: 'azure', url: `https://127.0.0.1:${port}/openai/v1/`, extra: { models: ['m'], ...timeouts({ connectMs: 50 }) } }],
    });
    const reply = await post(fleet.url, chatBody('m'));
    expect(reply.status).toBe(504);
    const body = errorBody.parse(JSON.parse(reply.text));
    expect(body.error.code).toBe('upstream_timeout');
    expect(body.error.message).toContain('azure');
  });

  it('tries the next backend after a connect timeout (nothing reached the first)', async () => {
    const port = await startSilentServer();
    fleet = await startFleet({
      backends: [
        { name: 'hung', url: `https://127.0.0.1:${port}/v1/`, extra: { models: ['m'], ...timeouts({ connectMs: 50 }) } },
        { name: 'ok', extra: { models: ['m'] } },
      ],
    });
    fleet.upstream('ok').chat(answer(['fine']));
    // Config order puts `hung` first for the first request.
    const reply = await post(fleet.url, chatBody('m', { stream: true }));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-svir-backend')).toBe('ok');
    expect(parseCleanStream(reply.text).content).toBe('fine');
  });
});

describe('first-token timeout', () => {
  it('answers 504 before the stream, and does not send the prompt to another backend', async () => {
    fleet = await startFleet({
      backends: [
        { name: 'slow', listed: ['m'], extra: timeouts({ firstTokenMs: 80 }) },
        { name: 'other', listed: ['m'], extra: timeouts({ firstTokenMs: 80 }) },
      ],
    });
    fleet.upstream('slow').chat(silentStream);
    fleet.upstream('other').chat(silentStream);
    for (const stream of [false, true]) {
      const reply = await post(fleet.url, chatBody('m', { stream }));
      expect(reply.status).toBe(504);
      const body = errorBody.parse(JSON.parse(reply.text));
      expect(body.error.code).toBe('upstream_timeout');
      expect(body.error.message).toContain('firstTokenMs');
    }
    const sent = ['slow', 'other'].map((name) => fleet!.upstream(name).requestsTo('POST', '/v1/chat/completions').length);
    expect(sent[0]! + sent[1]!).toBe(2);
    // The server saw its connection closed: it stops working on the prompt.
    for (const name of ['slow', 'other']) {
      for (const request of fleet.upstream(name).requestsTo('POST', '/v1/chat/completions')) {
        expect(await request.closed).toEqual({ finished: false });
      }
    }
  });

  it('does not take a server keepalive comment for a first token', async () => {
    fleet = await startFleet({ backends: [{ name: 'mlx', listed: ['m'], extra: timeouts({ firstTokenMs: 100 }) }] });
    const comments = Array.from({ length: 20 }, (_, i) => [`: keepalive ${i}/20\n\n`, { delayMs: 20 }]).flat();
    fleet.upstream('mlx').chat({ kind: 'sse', pieces: [...comments, { waitFor: never() }], finish: 'hang' });
    const reply = await post(fleet.url, chatBody('m'));
    expect(reply.status).toBe(504);
  });

  it('keeps the client waiting with `: keepalive` comments, then sends the answer', async () => {
    fleet = await startFleet({
      backends: [{ name: 'slow', listed: ['m'], extra: timeouts({ firstTokenMs: 5_000 }) }],
      server: { keepaliveMs: 20 },
    });
    fleet.upstream('slow').chat(answer(['at last'], { before: [{ delayMs: 150 }] }));
    const reply = await post(fleet.url, chatBody('m', { stream: true }));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(reply.headers.get('x-svir-backend')).toBe('slow');
    expect(reply.text.startsWith(': keepalive\n\n')).toBe(true);
    const stream = parseCleanStream(reply.text);
    expect(stream.comments).toBeGreaterThanOrEqual(1);
    expect(stream.malformed).toEqual([]);
    expect(stream.content).toBe('at last');
    expect(stream.done && stream.doneLast).toBe(true);
    // Keepalives only bridge the wait for the first token.
    expect(reply.text.slice(reply.text.indexOf('data: '))).not.toContain(': keepalive');
  });

  it('after keepalives have committed the stream, ends it with one error event', async () => {
    fleet = await startFleet({
      backends: [{ name: 'slow', listed: ['m'], extra: timeouts({ firstTokenMs: 150 }) }],
      server: { keepaliveMs: 20 },
    });
    fleet.upstream('slow').chat(silentStream);
    const reply = await post(fleet.url, chatBody('m', { stream: true }));
    expect(reply.status).toBe(200);
    const stream = parseCleanStream(reply.text);
    expect(stream.comments).toBeGreaterThanOrEqual(1);
    expect(stream.chunks).toEqual([]);
    expect(stream.errors.map((e) => e.code)).toEqual(['upstream_timeout']);
    expect(stream.done).toBe(false);
  });

  it('sends no keepalive to a stream: false client', async () => {
    fleet = await startFleet({
      backends: [{ name: 'slow', listed: ['m'], extra: timeouts({ firstTokenMs: 5_000 }) }],
      server: { keepaliveMs: 20 },
    });
    fleet.upstream('slow').chat(answer(['folded'], { before: [{ delayMs: 120 }] }));
    const reply = await post(fleet.url, chatBody('m'));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toContain('application/json');
    expect(z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })) }).parse(JSON.parse(reply.text)).choices[0]?.message.content).toBe('folded');
  });
});

describe('idle timeout between chunks', () => {
  it('ends a running stream with one error event, and answers 504 to stream: false', async () => {
    fleet = await startFleet({ backends: [{ name: 'stuck', listed: ['m'], extra: timeouts({ idleMs: 80 }) }] });
    fleet.upstream('stuck').chat(stuckAfter('half an ans'));

    const streamed = await post(fleet.url, chatBody('m', { stream: true }));
    expect(streamed.status).toBe(200);
    const stream = parseCleanStream(streamed.text);
    expect(stream.content).toBe('half an ans');
    expect(stream.errors).toHaveLength(1);
    expect(stream.errors[0]).toMatchObject({ code: 'upstream_timeout', type: 'timeout_error' });
    expect(stream.errors[0]?.message).toContain('idleMs');
    expect(stream.done).toBe(false);
    expect(stream.framesAfterError).toBe(0);

    const folded = await post(fleet.url, chatBody('m'));
    expect(folded.status).toBe(504);
    expect(errorBody.parse(JSON.parse(folded.text)).error.code).toBe('upstream_timeout');
  });

  it('lets a steady stream run longer than idleMs in total', async () => {
    fleet = await startFleet({ backends: [{ name: 'steady', listed: ['m'], extra: timeouts({ idleMs: 150, firstTokenMs: 150 }) }] });
    fleet.upstream('steady').chat(answer(['a', 'b', 'c', 'd', 'e', 'f'], { between: { delayMs: 40 } }));
    const reply = await post(fleet.url, chatBody('m', { stream: true }));
    const stream = parseCleanStream(reply.text);
    expect(stream.content).toBe('abcdef');
    expect(stream.errors).toEqual([]);
    expect(stream.done).toBe(true);
  });
});
