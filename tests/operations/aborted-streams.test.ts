/**
 * Aborted streams, through the built program (issue 13, points 1 and 2):
 * - a client that leaves mid-stream leaves nothing behind that holds a shutdown: SIGTERM with
 *   nothing in flight exits at once, not after `server.shutdownGraceMs` (a client connection
 *   that never sent a byte, such as the spare one undici opens after an abort, included);
 * - an aborted stream closes its upstream socket and opens no new connection to the backend:
 *   N aborted streams cost the backend at most N connections (plus the model list's), and none
 *   is left open unused.
 */
import { request as httpRequest, type ClientRequest } from 'node:http';
import { connect } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startSvirProcess, type SvirProcess } from '../contract/harness/run-svir.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';

/** Far above any exit that does not wait for the grace; far below the grace. */
const GRACE_MS = 20_000;
const PROMPT_EXIT_MS = 5_000;

let svir: SvirProcess | undefined;
let upstream: ScriptedUpstream | undefined;
afterEach(async () => {
  await svir?.stop();
  await upstream?.close();
  svir = undefined;
  upstream = undefined;
});

const { chunk } = chatChunkMaker({ id: 'up-1', created: 1, model: 'm1' });

/** A backend whose streams send one chunk and then never end (until their client leaves). */
async function endlessBackend(): Promise<ScriptedUpstream> {
  const fake = await startScriptedUpstream();
  fake.models(['m1']);
  fake.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'one' }))], finish: 'hang' });
  return fake;
}

function configFor(fake: ScriptedUpstream): string {
  return [
    'server:',
    '  port: 0',
    '  keepaliveMs: 0',
    `  shutdownGraceMs: ${GRACE_MS}`,
    'backends:',
    '  - name: fake',
    '    type: openai',
    `    url: ${fake.baseUrl}`,
    '    maxConcurrent: 100',
  ].join('\n');
}

const BODY = JSON.stringify({ model: 'm1', stream: true, messages: [{ role: 'user', content: 'hi' }] });

/** Opens a stream and resolves once its first bytes arrived; the request is the handle to abort. */
async function openStream(url: string): Promise<ClientRequest> {
  const req = httpRequest(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    agent: false,
  });
  req.on('error', () => undefined);
  req.end(BODY);
  const [res] = (await once(req, 'response')) as [NodeJS.ReadableStream];
  res.on('error', () => undefined);
  await once(res, 'data');
  return req;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (condition()) return true;
    await sleep(50);
  }
  return condition();
}

async function timedStop(process: SvirProcess): Promise<{ ms: number; code: number | null }> {
  const start = Date.now();
  const exit = await process.stop();
  return { ms: Date.now() - start, code: exit.code };
}

describe('shutdown after clients left', () => {
  it('exits at once after a fetch client aborted its stream', async () => {
    upstream = await endlessBackend();
    svir = await startSvirProcess({ config: configFor(upstream) });
    const abort = new AbortController();
    const res = await fetch(`${svir.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: BODY,
      signal: abort.signal,
    });
    const reader = res.body?.getReader();
    await reader?.read();
    abort.abort();
    // The upstream request is gone: nothing is in flight any more.
    expect(await waitFor(() => (upstream?.openSockets() ?? 0) <= 1, 5_000)).toBe(true);
    const stopped = await timedStop(svir);
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(PROMPT_EXIT_MS);
  });

  it('exits at once with a client connection open that never sent a byte', async () => {
    upstream = await endlessBackend();
    svir = await startSvirProcess({ config: configFor(upstream) });
    const port = Number(new URL(svir.url).port);
    const spare = connect(port, '127.0.0.1');
    await once(spare, 'connect');
    const closed = once(spare, 'close');
    spare.on('error', () => undefined);
    const stopped = await timedStop(svir);
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(PROMPT_EXIT_MS);
    await closed;
  });

  it('still gives an open stream its grace (the stream is not cut at once)', async () => {
    upstream = await endlessBackend();
    svir = await startSvirProcess({ config: configFor(upstream) });
    const req = await openStream(svir.url);
    const started = Date.now();
    const exit = svir.stop();
    // Well inside the grace the process is still there, serving the stream.
    await sleep(1_500);
    expect(svir.child.exitCode).toBeNull();
    req.destroy();
    const result = await exit;
    expect(result.code).toBe(0);
    // The client left: the shutdown no longer waits for it.
    expect(Date.now() - started).toBeLessThan(1_500 + PROMPT_EXIT_MS);
  });
});

describe('aborted streams and upstream connections', () => {
  it('N aborted streams open at most N connections to the backend and leave none unused', async () => {
    const n = 20;
    upstream = await endlessBackend();
    svir = await startSvirProcess({ config: configFor(upstream) });
    const before = upstream.connectionCount();
    const requests = await Promise.all(Array.from({ length: n }, () => openStream(svir?.url ?? '')));
    expect(upstream.requestsTo('POST', '/v1/chat/completions')).toHaveLength(n);
    for (const req of requests) req.destroy();
    // Every aborted request's socket closes (what is left: at most the idle model-list one).
    expect(await waitFor(() => (upstream?.openSockets() ?? 0) <= 1, 5_000)).toBe(true);
    // Time for a spare connection to show up, if one were going to.
    await sleep(500);
    const opened = upstream.connectionCount() - before;
    expect(opened).toBeLessThanOrEqual(n);
    expect(upstream.unusedSockets()).toBe(0);
    expect(upstream.openSockets()).toBeLessThanOrEqual(1);
  });
});
