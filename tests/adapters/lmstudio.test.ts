import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { chat, sentMessages, lockerTool, weatherTool } from './chat.js';
import { chunk, ctx, data } from './events.js';
import { makeBackend } from './make-backend.js';

const adapter = getAdapter('lmstudio');
const backend = makeBackend('lmstudio', { name: 'lms', url: 'http://127.0.0.1:1234' });

function call(fields: Record<string, unknown>) {
  const result = adapter.toUpstream(chat(fields), backend, 'qwen3.8-27b');
  if (!result.ok) throw result.error;
  return result.call;
}

const lockerSchema = {
  type: 'json_schema',
  json_schema: { name: 'locker', schema: { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] } },
};

describe('lmstudio adapter: request', () => {
  it('sends a named tool_choice as required with only that tool (it refuses the object form)', () => {
    const sent = call({ tools: [weatherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    expect(sent.url).toBe('http://127.0.0.1:1234/v1/chat/completions');
    expect(sent.body).toEqual({
      model: 'qwen3.8-27b',
      messages: [{ role: 'user', content: 'Say hello.' }],
      tools: [lockerTool],
      tool_choice: 'required',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(sent.changes).toEqual([
      'tool_choice function "open_locker" sent as "required" with only that tool',
      'tool_choice "required" may not be kept: LM Studio does not enforce it',
    ]);
  });

  it('keeps the string forms of tool_choice, saying that required may not be kept', () => {
    for (const choice of ['none', 'auto', 'required']) {
      const sent = call({ tools: [lockerTool], tool_choice: choice });
      expect(sent.body.tool_choice).toBe(choice);
      expect(sent.body.tools).toEqual([lockerTool]);
      expect(sent.changes).toEqual(choice === 'required' ? ['tool_choice "required" may not be kept: LM Studio does not enforce it'] : []);
    }
  });

  it('sends json_object as a json_schema of any object, with reasoning off', () => {
    const sent = call({ response_format: { type: 'json_object' } });
    expect(sent.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'json_object', schema: { type: 'object' } } });
    expect(sent.body.reasoning_effort).toBe('none');
    expect(sent.changes).toEqual([
      'response_format json_object sent as a json_schema of any object',
      'reasoning_effort "none" for structured output',
    ]);
  });

  it('asks a json_schema with reasoning off and keeps the schema as sent', () => {
    const sent = call({ response_format: lockerSchema, reasoning_effort: 'medium' });
    expect(sent.body.response_format).toEqual(lockerSchema);
    expect(sent.body.reasoning_effort).toBe('none');
    expect(sent.changes).toEqual(['reasoning_effort "medium" sent as "none" for structured output']);
  });

  it('passes reasoning_effort, sends back reasoning_content, and max_completion_tokens as max_tokens', () => {
    const sent = call({
      reasoning_effort: 'low',
      max_completion_tokens: 200,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: '\n\nHello!', reasoning: 'Greeting back.' },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(sent.body.reasoning_effort).toBe('low');
    expect(sent.body.max_tokens).toBe(200);
    expect(sent.body).not.toHaveProperty('max_completion_tokens');
    expect(sentMessages(sent.body)[1]).toEqual({ role: 'assistant', content: '\n\nHello!', reasoning_content: 'Greeting back.' });
  });
});

describe('lmstudio adapter: stream', () => {
  it('reads reasoning as the answer when structured output was asked (reasoning held to the schema)', () => {
    const event = data(chunk({ reasoning_content: '{"number":' }));
    expect(adapter.readEvent(event, ctx({ structuredOutput: true }))).toContainEqual({ kind: 'content', text: '{"number":' });
    expect(adapter.readEvent(event, ctx({ structuredOutput: true })).some((p) => p.kind === 'reasoning')).toBe(false);
    expect(adapter.readEvent(event, ctx())).toContainEqual({ kind: 'reasoning', text: '{"number":' });
  });

  it('reads event: error with a context overflow as context_length_exceeded', () => {
    const message =
      'The number of tokens to keep from the initial prompt is greater than the context length. Try to load the model with a larger context length, or provide a shorter input';
    const parts = adapter.readEvent(data({ error: { message }, message }, 'error'), ctx({ backend: 'lms' }));
    expect(parts).toHaveLength(1);
    const [part] = parts;
    if (part?.kind !== 'error') throw new Error('expected an error part');
    expect(part.error.code).toBe('context_length_exceeded');
    expect(part.error.status).toBe(400);
    expect(part.error.message).toContain('maximum context length');
    expect(part.error.message).toContain('lms');
  });
});

describe('lmstudio adapter: errors', () => {
  it('reads its plain-string errors', () => {
    const toolChoice = adapter.readError(
      400,
      JSON.stringify({ error: "Invalid tool_choice type: 'object'. Supported string values: none, auto, required" }),
      { backend: 'lms' },
    );
    expect(toolChoice.code).toBe('invalid_request');
    expect(toolChoice.message).toContain("Invalid tool_choice type: 'object'");
    const format = adapter.readError(400, JSON.stringify({ error: "'response_format.type' must be 'json_schema' or 'text'" }), { backend: 'lms' });
    expect(format.code).toBe('invalid_request');
    expect(format.message).toContain("'response_format.type' must be 'json_schema' or 'text'");
  });

  it('retries once without an optional field it refuses', () => {
    const sent = call({ reasoning_effort: 'low' });
    const plan = adapter.planRetry(400, JSON.stringify({ error: "Unrecognized key: 'reasoning_effort'" }), sent.body);
    expect(plan?.body).not.toHaveProperty('reasoning_effort');
    expect(adapter.planRetry(400, JSON.stringify({ error: 'bad' }), sent.body)).toBeNull();
  });
});
