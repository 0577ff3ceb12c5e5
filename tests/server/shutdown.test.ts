import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { shutdownServer } from '../../src/lifecycle/shutdown-server.js';
import { sse } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import { HELLO, sseData, startSvir, type SvirUnderTest } from './start-svir.js';

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.upstream.close();
  svir = undefined;
});

const { chunk } = chatChunkMaker({ id: 'up-1', created: 1_700_000_000, model: 'm1' });

function openStream(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } });
    req.once('response', resolve);
    req.once('error', reject);
    req.end(JSON.stringify({ ...HELLO, stream: true }));
  });
}

async function readAll(res: IncomingMessage): Promise<string> {
  let text = '';
  for await (const part of res) text += String(part);
  return text;
}

function connects(url: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = httpRequest(`${url}/healthz`, { agent: false });
    req.once('response', (res) => {
      res.resume();
      resolve(true);
    });
    req.once('error', () => resolve(false));
    req.end();
  });
}

describe('graceful shutdown', () => {
  it('stops accepting, lets an open stream finish, then closes', async () => {
    svir = await startSvir();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    svir.upstream.chat({
      kind: 'sse',
      pieces: [sse(chunk({ role: 'assistant', content: 'before' })), { waitFor: gate }, sse(chunk({ content: ' after' }, 'stop'), '[DONE]')],
    });
    const res = await openStream(svir.url);
    const body = readAll(res);
    let closed = false;
    const shutdown = shutdownServer(svir.app, 10_000).then(() => {
      closed = true;
    });
    // New connections are refused while the stream still runs.
    expect(await connects(svir.url)).toBe(false);
    expect(closed).toBe(false);
    release();
    const data = sseData(await body);
    expect(data.at(-1)).toBe('[DONE]');
    expect(data.join('')).toContain(' after');
    await shutdown;
    expect(closed).toBe(true);
  });

  it('ends a stream still open when the grace period runs out with one error event', async () => {
    svir = await startSvir();
    svir.upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'partial' }))], finish: 'hang' });
    const res = await openStream(svir.url);
    const body = readAll(res);
    const upstreamRequest = await svir.upstream.waitForRequest('POST', '/v1/chat/completions');
    await shutdownServer(svir.app, 50);
    const data = sseData(await body);
    expect(data).not.toContain('[DONE]');
    const last: unknown = JSON.parse(data.at(-1) ?? '');
    expect(last).toMatchObject({ error: { code: 'backend_unavailable', message: expect.stringMatching(/shutting down/) } });
    expect(await upstreamRequest.closed).toEqual({ finished: false });
  });
});
