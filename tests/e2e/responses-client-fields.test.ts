/**
 * What a client sends on /v1/responses that is not a Responses field, end to end against the
 * fakes (docs/responses.md, "Fields"): a chat field with a Responses name or no meaning here is
 * a 400 naming it (never a 500 the openai SDK sends twice more), `max_tool_calls` is dropped
 * with a note, a vendor's sampling field reaches the backend as on the chat route.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { received, startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';

let upstream: ScriptedUpstream;
let svir: SvirRig;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  svir = await startSvir([{ name: 'scripted', type: 'openai', upstream, models: ['m'] }]);
});
afterAll(async () => {
  await svir.close();
  await upstream.close();
});

const chats = (): number => upstream.requestsTo('POST', '/v1/chat/completions').length;

function answerWith(text: string): void {
  upstream.chat({
    kind: 'sse',
    pieces: [
      sse(
        { id: 'c1', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'm', choices: [{ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null }] },
        { id: 'c1', object: 'chat.completion.chunk', created: 1_790_000_000, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        '[DONE]',
      ),
    ],
  });
}

describe('fields a client sends on /v1/responses', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['n: 2', { n: 2 }, 'n'],
    ['max_tokens: -1', { max_tokens: -1 }, 'max_tokens'],
    ['max_completion_tokens', { max_completion_tokens: 10 }, 'max_completion_tokens'],
    ['messages', { messages: [{ role: 'user', content: 'x' }] }, 'messages'],
    ['logprobs: true', { logprobs: true }, 'logprobs'],
    ['max_output_tokens: -1', { max_output_tokens: -1 }, 'max_output_tokens'],
  ])('%s is a 400 naming the field, sent once by the openai SDK, nothing reaching the backend', async (_name, extra, param) => {
    let calls = 0;
    const client = new OpenAI({
      baseURL: `${svir.url}/v1`,
      apiKey: SVIR_KEY,
      fetch: (url, init) => {
        calls += 1;
        return fetch(url, init);
      },
    });
    const before = chats();
    // The SDK's own types have no such fields: the body is what a client that sends them would send.
    const body: OpenAI.Responses.ResponseCreateParamsNonStreaming = { model: 'm', input: 'hello' };
    const error = await client.responses.create({ ...body, ...extra }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    if (!(error instanceof OpenAI.BadRequestError)) return;
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
    expect(error.code).toBe('invalid_request');
    expect(calls).toBe(1);
    expect(chats()).toBe(before);
  });

  it('max_tool_calls is not sent, with a note in x-svir-changes', async () => {
    answerWith('Hello!');
    const before = chats();
    const response = await fetch(`${svir.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
      body: JSON.stringify({ model: 'm', input: 'hello', max_tool_calls: 2, n: 1 }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-svir-changes')).toContain('max_tool_calls not sent (it bounds built-in tool calls');
    const sent = received(upstream, before);
    expect(sent).not.toHaveProperty('max_tool_calls');
    expect(sent).not.toHaveProperty('n');
  });

  it('a vendor sampling field is passed on as the chat route passes it', async () => {
    answerWith('Hello!');
    const before = chats();
    const response = await fetch(`${svir.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SVIR_KEY}` },
      body: JSON.stringify({ model: 'm', input: 'hello', top_k: 20, seed: 7 }),
    });
    expect(response.status).toBe(200);
    expect(received(upstream, before)).toMatchObject({ top_k: 20, seed: 7 });
  });
});

describe('function tools are strict by default on /v1/responses', () => {
  it('sends and echoes strict: true for a schema that can be strict, false for one that cannot, and what the client said', async () => {
    answerWith('Hello!');
    const before = chats();
    const strictParameters = { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false };
    const looseParameters = { type: 'object', properties: { path: { type: 'string' } } };
    const client = new OpenAI({ baseURL: `${svir.url}/v1`, apiKey: SVIR_KEY, maxRetries: 0 });
    const response = await client.responses.create({
      model: 'm',
      input: 'hello',
      tools: [
        // The SDK's type requires strict; a client that leaves it out sends no key at all.
        { type: 'function', name: 'read', parameters: strictParameters } as unknown as OpenAI.Responses.FunctionTool,
        { type: 'function', name: 'grep', parameters: looseParameters } as unknown as OpenAI.Responses.FunctionTool,
        { type: 'function', name: 'edit', parameters: strictParameters, strict: false },
      ],
    });
    const sent = received(upstream, before)['tools'] as { function: { name: string; strict?: boolean } }[];
    expect(sent.map((tool) => [tool.function.name, tool.function.strict])).toEqual([
      ['read', true],
      ['grep', false],
      ['edit', false],
    ]);
    expect(response.tools.map((tool) => (tool.type === 'function' ? [tool.name, tool.strict] : []))).toEqual([
      ['read', true],
      ['grep', false],
      ['edit', false],
    ]);
  });
});
