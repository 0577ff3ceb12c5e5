/**
 * /v1/responses and svir's deadlines: `: keepalive` comments while the first token is awaited,
 * a first-token deadline that expires after keepalives committed the stream (the response
 * still opens and fails in Responses events, never a chat error event), an idle deadline in the
 * middle of an answer (response.failed after the open item closed), and stream: false (504).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import type { WireEvent } from '../responses/wire-event.js';
import { expectResponsesStream } from '../responses/expect-responses-stream.js';
import { startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';

let upstream: ScriptedUpstream;
let svir: SvirRig;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  svir = await startSvir(
    [
      { name: 'slow', type: 'openai', upstream, models: ['m'], timeouts: { firstTokenMs: 400, idleMs: 400 } },
      // Deadlines far from the test's delays, where only the keepalives are under test.
      { name: 'patient', type: 'openai', upstream, models: ['p'], timeouts: { firstTokenMs: 10_000, idleMs: 10_000 } },
    ],
    {
      server: { host: '127.0.0.1', port: 0, apiKeys: [SVIR_KEY], logLevel: 'silent', keepaliveMs: 20 },
    },
  );
});
afterAll(async () => {
  await svir.close();
  await upstream.close();
});

const { chunk } = chatChunkMaker({ id: 'c1', created: 1_790_000_000, model: 'm' });

async function post(body: Record<string, unknown>): Promise<{ status: number; text: string }> {
  const response = await fetch(`${svir.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
    body: JSON.stringify({ model: 'm', input: 'x', ...body }),
  });
  return { status: response.status, text: await response.text() };
}

function eventsOf(text: string): WireEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => JSON.parse(block.split('\n')[1]?.slice('data: '.length) ?? '') as WireEvent);
}

describe('Responses and deadlines', () => {
  it('bridges a slow first token with keepalive comments, then sends the events', async () => {
    upstream.chat({ kind: 'sse', pieces: [{ delayMs: 150 }, sse(chunk({ role: 'assistant', content: 'at last' }), chunk({}, 'stop'), '[DONE]')] });
    const answer = await post({ model: 'p', stream: true });
    expect(answer.status).toBe(200);
    expect(answer.text.startsWith(': keepalive\n\n')).toBe(true);
    const events = eventsOf(answer.text);
    expectResponsesStream(events);
    expect(events.at(-1)?.type).toBe('response.completed');
  });

  it('a first token that never comes after keepalives committed the stream: response.failed, not a chat error event', async () => {
    upstream.chat({ kind: 'sse', pieces: [{ delayMs: 5_000 }], finish: 'hang' });
    const answer = await post({ stream: true });
    expect(answer.status).toBe(200);
    expect(answer.text.startsWith(': keepalive\n\n')).toBe(true);
    expect(answer.text).not.toMatch(/^data: \{"error"/m);
    const events = eventsOf(answer.text);
    expectResponsesStream(events);
    expect(events.map((event) => event.type)).toEqual(['response.created', 'response.in_progress', 'response.failed']);
    expect(events.at(-1)?.['response']).toMatchObject({ status: 'failed', error: { code: 'upstream_timeout' } });
  });

  it('an idle deadline in the middle of an answer: the message closes as incomplete, then response.failed', async () => {
    upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'Hal' })), { delayMs: 5_000 }], finish: 'hang' });
    const events = eventsOf((await post({ stream: true })).text);
    expectResponsesStream(events);
    expect(events.at(-1)?.['response']).toMatchObject({
      status: 'failed',
      error: { code: 'upstream_timeout' },
      output: [{ type: 'message', status: 'incomplete', content: [{ type: 'output_text', text: 'Hal' }] }],
    });
  });

  it('stream: false gets no keepalive and a 504 in the one error shape', async () => {
    upstream.chat({ kind: 'sse', pieces: [{ delayMs: 5_000 }], finish: 'hang' });
    const answer = await post({});
    expect(answer.status).toBe(504);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'upstream_timeout' } });
  });
});
