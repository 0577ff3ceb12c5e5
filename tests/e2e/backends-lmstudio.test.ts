/**
 * svir in front of a fake LM Studio: the client gets the clean dialect, and each request reached
 * the server in the form it keeps (docs/wire-protocol.md#tools, #structured-output,
 * #errors-inside-the-stream).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockerTool, weatherTool } from '../adapters/chat.js';
import { startLmStudioServer } from '../fakes/lmstudio-server.js';
import type { ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { changesOf, expectErrorAnswer, readCleanStream, received, startSvir, type SvirRig } from './backends-rig.js';

let lms: ScriptedUpstream;
let stubborn: ScriptedUpstream;
let svir: SvirRig;

beforeAll(async () => {
  lms = await startLmStudioServer({ contextChars: 2000 });
  stubborn = await startLmStudioServer({ schemaReasoningAlways: true });
  svir = await startSvir([
    { name: 'lms', type: 'lmstudio', upstream: lms, urlPath: '', models: ['qwen3.8-27b'] },
    { name: 'lms-stubborn', type: 'lmstudio', upstream: stubborn, urlPath: '/v1/', models: ['qwen3.8-27b-stubborn'] },
  ]);
});
afterAll(async () => {
  await svir.close();
  await lms.close();
  await stubborn.close();
});

const MODEL = 'qwen3.8-27b';
const lockerSchema = { type: 'json_schema', json_schema: { name: 'locker', schema: { type: 'object', properties: { number: { type: 'integer' } } } } };

describe('LM Studio through svir', () => {
  it('answers with reasoning, its "\\n\\n" separator dropped, in the clean dialect, with usage when asked', async () => {
    const answer = await svir.chat({ model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'Say hello' }] });
    const clean = readCleanStream(answer, MODEL);
    expect(clean.reasoning).toBe('A greeting is enough.');
    expect(clean.content).toBe('Hello!');
    expect(clean.finish).toBe('stop');
    expect(clean.usage).toEqual({ prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 });
    expect(answer.headers.get('x-svir-backend')).toBe('lms');
  });

  it('sends a named tool_choice as required with only that tool, and the client gets the call', async () => {
    const before = lms.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await svir.chat({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'Open locker 4' }],
      tools: [weatherTool, lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
    });
    const clean = readCleanStream(answer, MODEL);
    expect(clean.toolCalls).toEqual([{ id: '728104635', name: 'open_locker', arguments: '{"number":4}' }]);
    expect(clean.finish).toBe('tool_calls');
    const sent = received(lms, before);
    expect(sent.tool_choice).toBe('required');
    expect(sent.tools).toEqual([lockerTool]);
    expect(changesOf(answer)).toContain('tool_choice function "open_locker" sent as "required" with only that tool');
  });

  it('sends json_object as a json_schema with reasoning off, and the JSON arrives as the answer', async () => {
    const before = lms.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await svir.chat({ model: MODEL, stream: false, messages: [{ role: 'user', content: 'Which locker? Answer in JSON.' }], response_format: { type: 'json_object' } });
    expect(answer.status).toBe(200);
    const completion = answer.json();
    expect(completion).toMatchObject({ object: 'chat.completion', model: MODEL, choices: [{ index: 0, message: { role: 'assistant', content: '{"number":4}' }, finish_reason: 'stop' }] });
    const sent = received(lms, before);
    expect(sent.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'json_object', schema: { type: 'object' } } });
    expect(sent.reasoning_effort).toBe('none');
    expect(changesOf(answer)).toEqual(['response_format json_object sent as a json_schema of any object', 'reasoning_effort "none" for structured output']);
  });

  it('reads what it still sends as reasoning under a schema as the answer', async () => {
    const answer = await svir.chat({ model: 'qwen3.8-27b-stubborn', stream: true, messages: [{ role: 'user', content: 'Which locker?' }], response_format: lockerSchema });
    const clean = readCleanStream(answer, 'qwen3.8-27b-stubborn');
    expect(clean.content).toBe('{"number":4}');
    expect(clean.reasoning).toBe('');
    expect(received(stubborn).reasoning_effort).toBe('none');
  });

  it('turns its event: error for a prompt over the context into HTTP 400 context_length_exceeded', async () => {
    const answer = await svir.chat({ model: MODEL, stream: true, messages: [{ role: 'user', content: 'x'.repeat(3000) }] });
    const error = expectErrorAnswer(answer, 400, 'context_length_exceeded');
    expect(error.message).toContain('maximum context length');
    expect(error.message).toContain('lms');
  });

  it('sends reasoning back as reasoning_content and max_completion_tokens as max_tokens', async () => {
    const before = lms.requestsTo('POST', '/v1/chat/completions').length;
    const answer = await svir.chat({
      model: MODEL,
      max_completion_tokens: 64,
      messages: [
        { role: 'user', content: 'Say hello' },
        { role: 'assistant', content: '\n\nHello!', reasoning_content: 'A greeting is enough.' },
        { role: 'user', content: [{ type: 'text', text: 'Say hello again' }] },
      ],
    });
    expect(answer.status).toBe(200);
    const sent = received(lms, before);
    expect(sent.messages).toEqual([
      { role: 'user', content: 'Say hello' },
      { role: 'assistant', content: '\n\nHello!', reasoning_content: 'A greeting is enough.' },
      { role: 'user', content: 'Say hello again' },
    ]);
    expect(sent.max_tokens).toBe(64);
    expect(sent.stream).toBe(true);
    expect(sent.stream_options).toEqual({ include_usage: true });
  });

  it('routes only known models: one LM Studio would answer with another is svir 404', async () => {
    const before = lms.requestsTo('POST', '/v1/chat/completions').length;
    expectErrorAnswer(await svir.chat({ model: 'not-loaded-model', messages: [{ role: 'user', content: 'hi' }] }), 404, 'model_not_found');
    expect(lms.requestsTo('POST', '/v1/chat/completions')).toHaveLength(before);
  });
});
