import { describe, expect, it } from 'vitest';
import { BACKEND_TYPES } from '../../src/config/schema.js';
import { getAdapter } from '../../src/adapters/index.js';
import { chat, lockerTool } from './chat.js';
import { chunk, ctx, data } from './events.js';
import { makeBackend } from './make-backend.js';

const adapter = getAdapter('openai');
const backend = makeBackend('openai', { url: 'http://127.0.0.1:7000/', apiKey: 'sk-up' });

function call(fields: Record<string, unknown>) {
  const result = adapter.toUpstream(chat(fields), backend, 'served-model');
  if (!result.ok) throw result.error;
  return result.call;
}

describe('getAdapter', () => {
  it('has an adapter of its own type for every backend type', () => {
    for (const type of BACKEND_TYPES) expect(getAdapter(type).type).toBe(type);
  });
});

describe('openai adapter: request as sent', () => {
  it('sends the client request with the upstream model, streaming with usage, and changes nothing else', () => {
    const fields = {
      messages: [{ role: 'user', content: 'Open locker 4, answer in JSON.' }],
      tools: [lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
      max_completion_tokens: 100,
      reasoning_effort: 'high',
      response_format: { type: 'json_object' },
      temperature: 0.2,
      stream: false,
      seed: 7,
    };
    const sent = call(fields);
    expect(sent.url).toBe('http://127.0.0.1:7000/v1/chat/completions');
    expect(sent.headers).toEqual({ authorization: 'Bearer sk-up' });
    expect(sent.body).toEqual({ ...fields, model: 'served-model', stream: true, stream_options: { include_usage: true } });
    expect(sent.changes).toEqual([]);
  });

  it('adds the word JSON for json_object when no message has it', () => {
    const sent = call({ response_format: { type: 'json_object' } });
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Answer with a JSON object.' },
      { role: 'user', content: 'Say hello.' },
    ]);
    expect(sent.changes).toEqual(['system note asking for JSON added (json_object needs the word)']);
  });

  it('keeps the shared rewrites: tool_choice without tools dropped, text arrays as strings', () => {
    const sent = call({ tool_choice: 'auto', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(sent.body).not.toHaveProperty('tool_choice');
    expect(sent.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(sent.changes).toEqual(['text-only array content sent as a string', 'tool_choice dropped: no tools']);
  });
});

describe('openai adapter: stream and errors', () => {
  it('reads content, refusal, tool pieces, finish and usage', () => {
    expect(adapter.readEvent(data(chunk({ role: 'assistant', content: '', refusal: null })), ctx())).toEqual([
      { kind: 'meta', id: 'chatcmpl-up', created: 1_700_000_000 },
    ]);
    expect(adapter.readEvent(data(chunk({ refusal: 'I cannot.' })), ctx())).toContainEqual({ kind: 'refusal', text: 'I cannot.' });
    expect(
      adapter.readEvent(data(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'open_locker', arguments: '' } }] })), ctx()),
    ).toContainEqual({ kind: 'tool', index: 0, id: 'call_1', name: 'open_locker', arguments: '' });
    expect(adapter.readEvent(data(chunk({}, { finish_reason: 'stop' })), ctx())).toContainEqual({ kind: 'finish', reason: 'stop' });
    expect(
      adapter.readEvent(data({ id: 'x', choices: [], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }), ctx()),
    ).toContainEqual({ kind: 'usage', usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } });
    expect(adapter.readEvent(data('[DONE]'), ctx())).toEqual([{ kind: 'done' }]);
  });

  it('reads an OpenAI context overflow and a key refusal into the one shape', () => {
    const overflow = adapter.readError(
      400,
      JSON.stringify({ error: { message: "This model's maximum context length is 8192 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } }),
      { backend: 'oa' },
    );
    expect(overflow.code).toBe('context_length_exceeded');
    expect(overflow.message).toContain('maximum context length');
    const auth = adapter.readError(401, '{"error":{"message":"Incorrect API key provided: sk-up"}}', { backend: 'oa', secrets: ['sk-up'] });
    expect(auth.status).toBe(502);
    expect(auth.code).toBe('upstream_auth_failed');
    expect(auth.message).not.toContain('sk-up');
  });

  it('plans one retry without an optional field the server names', () => {
    const sent = call({});
    const plan = adapter.planRetry(400, '{"error":{"message":"Unrecognized request argument supplied: stream_options"}}', sent.body);
    expect(plan?.body).not.toHaveProperty('stream_options');
    expect(plan?.body.stream).toBe(true);
  });
});
