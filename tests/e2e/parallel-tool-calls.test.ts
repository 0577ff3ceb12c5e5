/**
 * `parallel_tool_calls: false` held whatever the server does, end to end against a fake that
 * answers with two calls: the chat route (streamed and folded) and the Responses route send the
 * first call only; the dropped one is named in x-svir-changes (an answer sent in one piece) or
 * in a `: x-svir-changes:` comment before the stream's end, and in the log line either way.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import { expectResponsesStream } from '../responses/expect-responses-stream.js';
import type { ResponsesEvent } from '../../src/responses/responses-event.js';
import { changesOf, readCleanStream, received, startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';

let upstream: ScriptedUpstream;
let svir: SvirRig;
const NOTE = 'tool call write_file not sent (parallel_tool_calls is false)';

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  svir = await startSvir([{ name: 'scripted', type: 'vllm', upstream, models: ['m'] }]);
});
afterAll(async () => {
  await svir.close();
  await upstream.close();
});

const { chunk } = chatChunkMaker({ id: 'c1', created: 1_790_000_000, model: 'm' });

/** The server ignores parallel_tool_calls: two calls, the second's pieces between the first's. */
function twoCalls(): void {
  upstream.chat({
    kind: 'sse',
    pieces: [
      sse(
        chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call-a', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'call-b', type: 'function', function: { name: 'write_file', arguments: '{"path":"b"}' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '"a"}' } }] }),
        chunk({}, 'tool_calls'),
        '[DONE]',
      ),
    ],
  });
}

const chatTools = ['read_file', 'write_file'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: { path: { type: 'string' } } } } }));
const responsesTools = ['read_file', 'write_file'].map((name) => ({ type: 'function', name, parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false }));
const messages = [{ role: 'user', content: 'Copy a to b' }];

describe('the chat route', () => {
  it('streamed: one call, the dropped one named in a comment before [DONE]', async () => {
    twoCalls();
    const before = upstream.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await svir.chat({ model: 'm', stream: true, messages, tools: chatTools, parallel_tool_calls: false });
    const clean = readCleanStream(answer, 'm');
    expect(clean.toolCalls).toEqual([{ id: 'call-a', name: 'read_file', arguments: '{"path":"a"}' }]);
    expect(clean.finish).toBe('tool_calls');
    expect(answer.text).toContain(`: x-svir-changes: ${NOTE}\n\ndata: [DONE]\n\n`);
    expect(received(upstream, before)['parallel_tool_calls']).toBe(false);
  });

  it('folded: one call, the dropped one in x-svir-changes', async () => {
    twoCalls();
    const answer = await svir.chat({ model: 'm', messages, tools: chatTools, parallel_tool_calls: false });
    expect(answer.status).toBe(200);
    const message = (answer.json() as { choices: { message: { tool_calls: { function: { name: string } }[] }; finish_reason: string }[] }).choices[0];
    expect(message?.message.tool_calls.map((call) => call.function.name)).toEqual(['read_file']);
    expect(message?.finish_reason).toBe('tool_calls');
    expect(changesOf(answer)).toContain(NOTE);
  });

  it('parallel calls allowed (the default): both go out, nothing noted', async () => {
    twoCalls();
    const answer = await svir.chat({ model: 'm', stream: true, messages, tools: chatTools });
    const clean = readCleanStream(answer, 'm');
    expect(clean.toolCalls.map((call) => call.name)).toEqual(['read_file', 'write_file']);
    expect(answer.text).not.toContain('x-svir-changes');
  });
});

async function responses(body: Record<string, unknown>): Promise<{ headers: Headers; text: string }> {
  const response = await fetch(`${svir.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return { headers: response.headers, text: await response.text() };
}

describe('the Responses route', () => {
  it('streamed: one function_call item, the comment before the stream\'s end', async () => {
    twoCalls();
    const answer = await responses({ model: 'm', input: 'Copy a to b', tools: responsesTools, parallel_tool_calls: false, stream: true });
    const events: ResponsesEvent[] = answer.text
      .split('\n\n')
      .filter((block) => block.startsWith('event: '))
      .map((block) => JSON.parse(block.split('\n')[1]?.slice('data: '.length) ?? '') as ResponsesEvent);
    expectResponsesStream(events);
    const done = events.filter((event) => event.type === 'response.output_item.done').map((event) => event['item'] as { type: string; name?: string });
    expect(done.filter((item) => item.type === 'function_call').map((item) => item.name)).toEqual(['read_file']);
    // A comment, before the stream's end: its last events are what the format's end makes.
    const comment = answer.text.indexOf(`\n\n: x-svir-changes: ${NOTE}\n\n`);
    expect(comment).toBeGreaterThan(0);
    expect(comment).toBeLessThan(answer.text.indexOf('event: response.completed'));
  });

  it('stream: false: one function_call item, the dropped one in x-svir-changes', async () => {
    twoCalls();
    const answer = await responses({ model: 'm', input: 'Copy a to b', tools: responsesTools, parallel_tool_calls: false });
    const response = JSON.parse(answer.text) as { output: { type: string; name?: string; arguments?: string }[]; parallel_tool_calls: boolean };
    expect(response.output.filter((item) => item.type === 'function_call')).toMatchObject([{ name: 'read_file', arguments: '{"path":"a"}' }]);
    expect(response.parallel_tool_calls).toBe(false);
    expect(answer.headers.get('x-svir-changes')).toContain(NOTE);
  });
});
