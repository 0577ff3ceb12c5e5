/**
 * The head of a streamed answer, as it goes on the wire: the headers svir set for the request
 * (x-request-id, the backend, what it changed), then the stream's own, then those Node adds,
 * in this order and each once: this pins the bytes streamHeaders (send-stream.ts) sends.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sse, type ScriptedResponse } from '../fakes/scripted-upstream.js';
import { HELLO, startSvir, type SvirUnderTest } from './start-svir.js';

const DONE: ScriptedResponse = {
  kind: 'sse',
  pieces: [sse({ id: 'up-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'm1', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: 'stop' }] }, '[DONE]')],
};

/** The raw header lines of one streamed chat answer (name, value, name, value, ...), Date's value blanked. */
function rawHead(url: string, body: unknown): Promise<{ status: number; raw: string[] }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => {
        const raw = res.rawHeaders.map((value, i) => (i % 2 === 1 && res.rawHeaders[i - 1] === 'Date' ? '<date>' : value));
        resolve({ status: res.statusCode ?? 0, raw });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

let svir: SvirUnderTest | undefined;
afterEach(async () => {
  await svir?.close();
  svir = undefined;
});

describe('the head of a streamed answer', () => {
  it('names the request, the backend, then the stream headers, then what Node adds', async () => {
    svir = await startSvir();
    svir.upstream.chat(DONE);
    const head = await rawHead(svir.url, { ...HELLO, stream: true });
    expect(head.status).toBe(200);
    expect(head.raw).toEqual([
      'x-request-id', 'request-1',
      'x-svir-backend', 'fake',
      'content-type', 'text/event-stream; charset=utf-8',
      'cache-control', 'no-cache',
      'x-accel-buffering', 'no',
      'Date', '<date>',
      'Connection', 'keep-alive',
      'Keep-Alive', 'timeout=72',
      'Transfer-Encoding', 'chunked',
    ]);
  });

  it('lists what svir changed after the backend', async () => {
    svir = await startSvir();
    svir.upstream.chat(DONE);
    const head = await rawHead(svir.url, { ...HELLO, stream: true, tool_choice: 'auto' });
    expect(head.raw.slice(0, 6)).toEqual(['x-request-id', 'request-1', 'x-svir-backend', 'fake', 'x-svir-changes', expect.stringMatching(/tool_choice/)]);
    expect(head.raw.slice(6, 12)).toEqual(['content-type', 'text/event-stream; charset=utf-8', 'cache-control', 'no-cache', 'x-accel-buffering', 'no']);
  });
});
