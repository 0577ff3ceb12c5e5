import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createBareNodePassThrough } from '../../bench/bare-node.js';
import { listenOnLoopback } from '../../bench/listen-on-loopback.js';
import { createPassThrough } from '../../bench/pass-through.js';
import { chatRequestBody } from '../../bench/request-body.js';
import { FIRST_EVENT, postThroughGate, REST, startGatedUpstream, type GatedUpstream } from './gated-upstream.js';

/**
 * The bench's pass-throughs (the fastify + @fastify/http-proxy floor, and the plain node:http one
 * beside it) forward /v1/* untouched and stream the answer back as the upstream sends it: the
 * upstream holds the rest of its answer until the client has its first event.
 */

interface Proxy {
  port: number;
  close(): Promise<void>;
}

const proxies: Record<string, (upstream: string) => Promise<Proxy>> = {
  'pass-through (fastify + @fastify/http-proxy)': async (upstream) => {
    const app = createPassThrough(upstream);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return { port: address.port, close: () => app.close() };
  },
  'bare-node (node:http + undici)': async (upstream) => {
    const server = createBareNodePassThrough(upstream);
    const port = await listenOnLoopback(server);
    return { port, close: () => close(server) };
  },
};

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

describe.each(Object.entries(proxies))('bench %s', (_name, start) => {
  async function setUp(): Promise<{ gate: GatedUpstream; proxy: Proxy }> {
    const gate = await startGatedUpstream();
    cleanup.push(() => close(gate.server));
    const proxy = await start(gate.origin);
    cleanup.push(() => proxy.close());
    return { gate, proxy };
  }

  it('streams the answer back as the upstream sends it, whole', async () => {
    const { gate, proxy } = await setUp();
    const answer = await postThroughGate(`http://127.0.0.1:${proxy.port}/v1/chat/completions`, chatRequestBody(), {}, gate);
    expect(answer.status).toBe(200);
    expect(answer.beforeRelease).toBe(FIRST_EVENT);
    expect(answer.whole).toBe(FIRST_EVENT + REST);
  });

  it('forwards the request path and body untouched', async () => {
    const { gate, proxy } = await setUp();
    const body = chatRequestBody();
    await postThroughGate(`http://127.0.0.1:${proxy.port}/v1/chat/completions`, body, { 'x-bench': 'kept' }, gate);
    expect(gate.received).toHaveLength(1);
    expect(gate.received[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions', body });
    expect(gate.received[0]?.headers['x-bench']).toBe('kept');
  });
});
