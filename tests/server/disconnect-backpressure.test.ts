import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sse, type Piece } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import { HELLO, sseData, startSvir, type SvirUnderTest } from './start-svir.js';

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.close();
  svir = undefined;
});

const { chunk } = chatChunkMaker({ id: 'up-1', created: 1_700_000_000, model: 'm1' });

/** Starts a chat request with node:http (so the test controls reading and closing). */
function openChat(url: string, body: unknown): { done: Promise<IncomingMessage>; destroy(): void } {
  const req = httpRequest(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } });
  const done = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  // A destroyed request rejects `done`; the tests that destroy do not await it.
  done.catch(() => undefined);
  req.end(JSON.stringify(body));
  return { done, destroy: () => req.destroy() };
}

async function readUntil(res: IncomingMessage, needle: string): Promise<string> {
  let text = '';
  for await (const piece of res) {
    text += String(piece);
    if (text.includes(needle)) return text;
  }
  return text;
}

describe('client disconnect', () => {
  it('aborts the upstream request at once while streaming (the server sees its socket close)', async () => {
    svir = await startSvir();
    svir.upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'partial' }))], finish: 'hang' });
    const chat = openChat(svir.url, { ...HELLO, stream: true });
    const res = await chat.done;
    expect(res.statusCode).toBe(200);
    expect(await readUntil(res, 'partial')).toContain('partial');
    const upstreamRequest = await svir.upstream.waitForRequest('POST', '/v1/chat/completions');
    chat.destroy();
    expect(await upstreamRequest.closed).toEqual({ finished: false });
  });

  it('aborts the upstream request while the headers are still held (no chunk yet)', async () => {
    svir = await startSvir();
    svir.upstream.chat({ kind: 'sse', pieces: [': keepalive 1/100\n\n'], finish: 'hang' });
    const chat = openChat(svir.url, { ...HELLO, stream: true });
    const upstreamRequest = await svir.upstream.waitForRequest('POST', '/v1/chat/completions');
    chat.destroy();
    expect(await upstreamRequest.closed).toEqual({ finished: false });
  });

  it('aborts the upstream request of a stream: false request', async () => {
    svir = await startSvir();
    svir.upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'partial' }))], finish: 'hang' });
    const chat = openChat(svir.url, HELLO);
    const upstreamRequest = await svir.upstream.waitForRequest('POST', '/v1/chat/completions');
    chat.destroy();
    expect(await upstreamRequest.closed).toEqual({ finished: false });
    // The log line says the client went away.
    await waitFor(() => svir?.requestLines().length === 1);
    expect(svir.requestLines()[0]).toMatchObject({ clientClosed: true, backend: 'fake' });
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** Polls `read` until it stays the same for `polls` polls in a row. */
async function settled(read: () => number, polls = 6, everyMs = 100): Promise<number> {
  let last = read();
  let same = 0;
  while (same < polls) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

describe('backpressure', () => {
  it('a paused client pauses the upstream read; nothing is buffered without bound; nothing is lost', async () => {
    svir = await startSvir();
    const word = 'x'.repeat(1000);
    const piece = sse(...Array.from({ length: 16 }, () => chunk({ content: word })));
    /** What the fake would send if nobody held it back: far more than any socket buffers. */
    const budget = 256 * 1024 * 1024;
    let stop = false;
    let contentSent = 0;
    async function* endless(): AsyncGenerator<Piece> {
      yield sse(chunk({ role: 'assistant', content: '' }));
      let sent = 0;
      while (!stop && sent < budget) {
        yield piece;
        sent += piece.length;
        contentSent += 16 * word.length;
      }
      yield sse(chunk({}, 'stop'), '[DONE]');
    }
    svir.upstream.chat({ kind: 'sse', pieces: endless() });

    const chat = openChat(svir.url, { ...HELLO, stream: true });
    const res = await chat.done;
    res.pause();
    const upstreamRequest = await svir.upstream.waitForRequest('POST', '/v1/chat/completions');
    const stalledAt = await settled(() => upstreamRequest.bytesSent);
    // The upstream stopped well short of its budget: svir stopped reading it.
    expect(stalledAt).toBeLessThan(budget / 2);
    expect(stop).toBe(false);

    // Let the client read: the stream resumes and ends cleanly with everything in it.
    stop = true;
    res.resume();
    let text = '';
    res.setEncoding('utf8');
    for await (const part of res) text += String(part);
    const data = sseData(text);
    expect(data.at(-1)).toBe('[DONE]');
    let content = 0;
    for (const payload of data.slice(0, -1)) {
      const delta: unknown = JSON.parse(payload).choices[0]?.delta;
      if (typeof delta === 'object' && delta !== null && 'content' in delta && typeof delta.content === 'string') {
        content += delta.content.length;
      }
    }
    expect(content).toBe(contentSent);
  });
});
