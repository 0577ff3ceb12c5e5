/**
 * POST /v1/responses through svir in front of the fake of every backend type: streamed and
 * not, text with reasoning, tool calls over two turns with function_call_output,
 * previous_response_id, item_reference, GET and DELETE, store: false, a forced built-in tool,
 * and errors before and after the first byte. No backend is ever asked for /v1/responses.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND_TYPES } from '../../src/config/schema.js';
import { LOCKER_ARGUMENTS } from '../fakes/fake-model.js';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { expectResponsesStream } from '../responses/expect-responses-stream.js';
import type { WireEvent } from '../responses/wire-event.js';
import { received, startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';
import { startFakeOfEveryType } from './start-fake-of-every-type.js';

const upstreams: ScriptedUpstream[] = [];
const upstreamOf = new Map<string, ScriptedUpstream>();
let scripted: ScriptedUpstream;
let svir: SvirRig;

const MODEL_OF = Object.fromEntries(BACKEND_TYPES.map((type) => [type, `model-${type}`]));
const lockerTool = {
  type: 'function',
  name: 'open_locker',
  description: 'Open a locker by number.',
  parameters: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] },
  strict: false,
};

beforeAll(async () => {
  const backends = await startFakeOfEveryType();
  for (const backend of backends) {
    upstreams.push(backend.upstream);
    upstreamOf.set(backend.type, backend.upstream);
  }
  scripted = await startScriptedUpstream();
  upstreams.push(scripted);
  backends.push({ name: 'scripted', type: 'openai', upstream: scripted, models: ['scripted-model'] });
  svir = await startSvir(backends);
});
afterAll(async () => {
  await svir.close();
  for (const upstream of upstreams) await upstream.close();
});

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function post(body: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${svir.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function call(method: 'GET' | 'DELETE', id: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${svir.url}/v1/responses/${id}`, { method, headers: { authorization: `Bearer ${SVIR_KEY}` } });
  return { status: response.status, body: await response.json() };
}

/** The `event:`/`data:` pairs of a Responses stream; each event's name must equal its data's type. */
function events(answer: Answer): WireEvent[] {
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  const out: WireEvent[] = [];
  for (const block of answer.text.split('\n\n')) {
    if (block.trim() === '' || block.startsWith(':')) continue;
    const lines = block.split('\n');
    expect(lines).toHaveLength(2);
    const name = lines[0]?.replace(/^event: /, '');
    const data = JSON.parse(lines[1]?.replace(/^data: /, '') ?? '') as WireEvent;
    expect(data.type).toBe(name);
    out.push(data);
  }
  return out;
}

/** The final response of a stream (its last event's). */
function finalOf(list: readonly WireEvent[]): Record<string, unknown> {
  const response = list[list.length - 1]?.['response'];
  if (response === null || typeof response !== 'object') throw new Error('no final response');
  return response as Record<string, unknown>;
}

function outputText(response: Record<string, unknown>): string {
  const output = response['output'] as { type: string; content?: { type: string; text?: string }[] }[];
  return output
    .filter((item) => item.type === 'message')
    .flatMap((item) => item.content ?? [])
    .map((part) => part.text ?? '')
    .join('');
}

/** Chat requests the fake received (Azure's deployment route has its own path). */
function chatRequests(upstream: ScriptedUpstream): Record<string, unknown>[] {
  return upstream.requests
    .filter((request) => request.method === 'POST' && request.path.split('?')[0]?.endsWith('/chat/completions') === true)
    .map((request) => request.body as Record<string, unknown>);
}
const chatCount = (upstream: ScriptedUpstream): number => chatRequests(upstream).length;

describe.each(BACKEND_TYPES.map((type) => [type]))('Responses over %s', (type) => {
  const model = MODEL_OF[type] ?? '';

  it('streams reasoning and text as Responses events, and never asks the backend for /v1/responses', async () => {
    const answer = await post({ model, input: 'Say hello', stream: true, instructions: 'Be kind.' });
    const list = events(answer);
    expectResponsesStream(list);
    const response = finalOf(list);
    expect(response).toMatchObject({ object: 'response', status: 'completed', model, instructions: 'Be kind.' });
    expect(outputText(response)).toBe('Hello!');
    expect(answer.headers.get('x-svir-backend')).toBe(`b-${type}`);
    const upstream = upstreamOf.get(type);
    if (upstream === undefined) throw new Error('no upstream');
    expect(upstream.requests.some((request) => request.path.includes('/responses'))).toBe(false);
    expect(chatRequests(upstream).at(-1)?.['messages']).toEqual([
      { role: 'system', content: 'Be kind.' },
      { role: 'user', content: 'Say hello' },
    ]);
  });

  it('answers stream: false with the same response object', async () => {
    const answer = await post({ model, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] }] });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const response = JSON.parse(answer.text) as Record<string, unknown>;
    expect(response).toMatchObject({ object: 'response', status: 'completed', model, error: null, incomplete_details: null });
    expect(String(response['id'])).toMatch(/^resp_/);
    expect(outputText(response)).toBe('Hello!');
  });

  it('completes a tool round trip: a function_call item, then its function_call_output', async () => {
    const first = await post({ model, input: 'Open locker 4', tools: [lockerTool], stream: true, store: false });
    const list = events(first);
    expectResponsesStream(list);
    const output = finalOf(list)['output'] as Record<string, unknown>[];
    const calls = output.filter((item) => item['type'] === 'function_call');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ type: 'function_call', name: 'open_locker', arguments: LOCKER_ARGUMENTS, status: 'completed' });
    const callId = String(calls[0]?.['call_id']);
    expect(callId.length).toBeGreaterThan(0);

    const second = await post({
      model,
      stream: false,
      store: false,
      tools: [lockerTool],
      tool_choice: 'none',
      input: [{ role: 'user', content: 'Open locker 4' }, ...output, { type: 'function_call_output', call_id: callId, output: 'opened' }],
    });
    expect(second.status).toBe(200);
    expect(JSON.parse(second.text)).toMatchObject({ status: 'completed' });
  });
});

describe('state: previous_response_id, item_reference, GET and DELETE', () => {
  const model = 'model-vllm';
  const upstream = (): ScriptedUpstream => upstreamOf.get('vllm') as ScriptedUpstream;

  it('keeps a response: the next turn gets the earlier input and output first; GET and DELETE answer', async () => {
    const first = JSON.parse((await post({ model, input: 'Say hello' })).text) as Record<string, unknown>;
    const id = String(first['id']);
    const got = await call('GET', id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(first);

    const before = chatCount(upstream());
    const second = await post({ model, previous_response_id: id, input: 'Now count', stream: true });
    expect(finalOf(events(second))).toMatchObject({ status: 'completed', previous_response_id: id });
    const messages = received(upstream(), before)['messages'] as Record<string, unknown>[];
    expect(messages.map((message) => message['role'])).toEqual(['user', 'assistant', 'user']);
    expect(messages[1]?.['content']).toBe('Hello!');

    expect(await call('DELETE', id)).toEqual({ status: 200, body: { id, object: 'response', deleted: true } });
    const gone = await call('GET', id);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ error: { code: 'response_not_found', type: 'invalid_request_error' } });
    const after = await post({ model, previous_response_id: id, input: 'again' });
    expect(after.status).toBe(404);
    expect(JSON.parse(after.text)).toMatchObject({ error: { code: 'response_not_found', param: 'previous_response_id' } });
  });

  it('resolves item_reference items from the store, and answers 404 for an unknown one', async () => {
    const first = JSON.parse((await post({ model, input: 'Say hello' })).text) as { output: { id: string; type: string }[] };
    const before = chatCount(upstream());
    const refs = first.output.map((item) => ({ type: 'item_reference', id: item.id }));
    const second = await post({ model, input: [{ role: 'user', content: 'Say hello' }, ...refs, { role: 'user', content: 'Now count' }] });
    expect(second.status).toBe(200);
    const messages = received(upstream(), before)['messages'] as Record<string, unknown>[];
    expect(messages[1]).toMatchObject({ role: 'assistant', content: 'Hello!' });

    const unknown = await post({ model, input: [{ role: 'user', content: 'x' }, { type: 'item_reference', id: 'rs_unknown' }] });
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.text)).toMatchObject({ error: { code: 'item_not_found', param: 'input[1]' } });
  });

  it('lists a response\'s own input items, newest first by default, paged by id (the openai SDK reads them)', async () => {
    const first = JSON.parse((await post({ model, input: 'Say hello' })).text) as { id: string };
    const second = JSON.parse(
      (
        await post({
          model,
          previous_response_id: first.id,
          input: [
            { role: 'developer', content: 'Be brief.' },
            { role: 'user', content: [{ type: 'input_text', text: 'Now count' }] },
          ],
        })
      ).text,
    ) as { id: string };
    const client = new OpenAI({ baseURL: `${svir.url}/v1`, apiKey: SVIR_KEY, maxRetries: 0 });
    const items = [];
    for await (const item of client.responses.inputItems.list(second.id, { order: 'asc', limit: 1 })) items.push(item);
    expect(items).toEqual([
      { id: expect.stringMatching(/^msg_/), type: 'message', role: 'developer', status: 'completed', content: [{ type: 'input_text', text: 'Be brief.' }] },
      { id: expect.stringMatching(/^msg_/), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: 'Now count' }] },
    ]);
    const newestFirst = await client.responses.inputItems.list(second.id);
    expect(newestFirst.data.map((item) => item.id)).toEqual([items[1]?.id, items[0]?.id]);
    expect(newestFirst.has_more).toBe(false);
    // A stored input item can be referenced by the id svir gave it.
    const ref = await post({ model, input: [{ type: 'item_reference', id: items[1]?.id }] });
    expect(ref.status).toBe(200);
    expect((await fetch(`${svir.url}/v1/responses/resp_nope/input_items`, { headers: { authorization: `Bearer ${SVIR_KEY}` } })).status).toBe(404);
  });

  it('store: false keeps nothing', async () => {
    const answer = JSON.parse((await post({ model, input: 'Say hello', store: false })).text) as { id: string; store: boolean };
    expect(answer.store).toBe(false);
    expect((await call('GET', answer.id)).status).toBe(404);
  });

  it('an unknown id is 404 on GET and DELETE', async () => {
    expect((await call('GET', 'resp_nope')).status).toBe(404);
    expect((await call('DELETE', 'resp_nope')).status).toBe(404);
  });
});

describe('refusals and failures', () => {
  const okStream = (text: string) =>
    sse(
      { id: 'c1', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'x', choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] },
      { id: 'c1', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'x', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
      '[DONE]',
    );

  it('a tool_choice forcing a built-in tool is a 400 naming it, and nothing is sent', async () => {
    const before = chatCount(scripted);
    const answer = await post({ model: 'scripted-model', input: 'x', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search_preview' } });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'invalid_request', param: 'tool_choice', type: 'invalid_request_error' } });
    expect(answer.text).toContain('web_search_preview');
    expect(chatCount(scripted)).toBe(before);
  });

  it('built-in tools are dropped with a note in x-svir-changes', async () => {
    scripted.chat({ kind: 'sse', pieces: [okStream('ok')] });
    const answer = await post({ model: 'scripted-model', input: 'x', tools: [{ type: 'web_search' }, lockerTool], stream: true });
    expectResponsesStream(events(answer));
    expect(answer.headers.get('x-svir-changes')).toContain('tools not sent (a chat backend cannot run them): web_search');
  });

  it('a failure before the first byte is an HTTP error in the one shape', async () => {
    scripted.chat({ kind: 'body', status: 400, body: { error: { message: "This model's maximum context length is 4096 tokens", type: 'invalid_request_error', code: 'context_length_exceeded' } } });
    const answer = await post({ model: 'scripted-model', input: 'x', stream: true });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'context_length_exceeded' } });
  });

  it('a failure after the first byte is response.failed carrying the error, after the open item closed', async () => {
    scripted.chat({
      kind: 'sse',
      pieces: [
        sse({ id: 'c2', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'x', choices: [{ index: 0, delta: { role: 'assistant', content: 'Par' }, finish_reason: null }] }),
        sse({ error: { message: "This model's maximum context length is 4096 tokens", type: 'invalid_request_error', code: 'context_length_exceeded' } }),
      ],
    });
    const list = events(await post({ model: 'scripted-model', input: 'x', stream: true }));
    expectResponsesStream(list);
    const last = list[list.length - 1];
    expect(last?.type).toBe('response.failed');
    expect(finalOf(list)).toMatchObject({ status: 'failed', error: { code: 'context_length_exceeded' } });
  });

  it('a cut by length is response.incomplete with max_output_tokens', async () => {
    scripted.chat({
      kind: 'sse',
      pieces: [
        sse(
          { id: 'c3', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'x', choices: [{ index: 0, delta: { role: 'assistant', content: 'Once' }, finish_reason: null }] },
          { id: 'c3', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'x', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] },
          '[DONE]',
        ),
      ],
    });
    const before = chatCount(scripted);
    const list = events(await post({ model: 'scripted-model', input: 'x', stream: true, max_output_tokens: 1 }));
    expectResponsesStream(list);
    expect(finalOf(list)).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, max_output_tokens: 1 });
    expect(received(scripted, before)['max_completion_tokens']).toBe(1);
  });

  it('an unknown model is 404 model_not_found', async () => {
    const answer = await post({ model: 'nobody-serves-this', input: 'x' });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.text)).toMatchObject({ error: { code: 'model_not_found' } });
  });
});
