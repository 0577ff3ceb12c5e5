import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { chat, sentMessages, lockerTool, PNG_DATA_URL, weatherTool } from './chat.js';
import { ctx, data } from './events.js';
import { makeBackend } from './make-backend.js';

const adapter = getAdapter('mlx-lm');
const backend = makeBackend('mlx-lm', { name: 'mlx' });
const MODEL = '/Users/me/models/Qwen3.8-27B-4bit';

function toUpstream(fields: Record<string, unknown>, on = backend) {
  return adapter.toUpstream(chat(fields), on, MODEL);
}

function call(fields: Record<string, unknown>, on = backend) {
  const result = toUpstream(fields, on);
  if (!result.ok) throw result.error;
  return result.call;
}

describe('mlx-lm adapter: request', () => {
  it('refuses an image with 400 before sending (it answers 404)', () => {
    const result = toUpstream({
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] }],
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('unsupported_content');
    expect(result.error.status).toBe(400);
  });

  it('sends no tools under none, and only the named tool for a named function', () => {
    const none = call({ tools: [lockerTool], tool_choice: 'none' });
    expect(none.body).not.toHaveProperty('tools');
    expect(none.body).not.toHaveProperty('tool_choice');
    const named = call({ tools: [weatherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    expect(named.body.tools).toEqual([lockerTool]);
    expect(named.body).not.toHaveProperty('tool_choice');
    expect(named.changes).toEqual(['tool_choice function "open_locker": only that tool offered (a call is not forced)']);
  });

  it('says that required cannot be kept', () => {
    const sent = call({ tools: [lockerTool], tool_choice: 'required' });
    expect(sent.body.tools).toEqual([lockerTool]);
    expect(sent.changes).toEqual(['tool_choice "required" not enforced: mlx-lm reads no tool_choice']);
  });

  it('sends the effort as chat_template_kwargs.enable_thinking, or the configured key', () => {
    const off = call({ reasoning_effort: 'none' });
    expect(off.body).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: 'Say hello.' }],
      chat_template_kwargs: { enable_thinking: false },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(off.changes).toEqual(['reasoning_effort "none" sent as chat_template_kwargs.enable_thinking=false']);
    const strength = call({ reasoning_effort: 'medium' }, makeBackend('mlx-lm', { effortTemplateKey: 'reasoning_effort_level' }));
    expect(strength.body.chat_template_kwargs).toEqual({ reasoning_effort_level: 'medium' });
  });

  it('says it cannot constrain output', () => {
    const sent = call({ response_format: { type: 'json_schema', json_schema: { name: 'locker', schema: { type: 'object' } } } });
    expect(sent.changes).toEqual(['response_format not enforced: mlx-lm cannot constrain output']);
  });

  it('sends reasoning back as reasoning and max_completion_tokens as max_tokens', () => {
    const sent = call({
      max_completion_tokens: 10,
      messages: [
        { role: 'assistant', content: '\n\nHello', reasoning_content: 'Hi back' },
        { role: 'user', content: 'x' },
      ],
    });
    expect(sentMessages(sent.body)[0]).toEqual({ role: 'assistant', content: '\n\nHello', reasoning: 'Hi back' });
    expect(sent.body.max_tokens).toBe(10);
  });
});

describe('mlx-lm adapter: stream', () => {
  it('reads the role it repeats on every delta as nothing more than the text', () => {
    const parts = adapter.readEvent(
      data({ id: 'chatcmpl-m', object: 'chat.completion.chunk', created: 1_760_000_002, model: MODEL, system_fingerprint: 'x', choices: [{ index: 0, finish_reason: null, delta: { role: 'assistant', content: 'Hel' } }] }),
      ctx(),
    );
    expect(parts).toEqual([
      { kind: 'meta', id: 'chatcmpl-m', created: 1_760_000_002 },
      { kind: 'content', text: 'Hel' },
    ]);
  });

  it('reads its usage chunk of object chat.completion, with cached tokens', () => {
    const parts = adapter.readEvent(
      data({
        id: 'chatcmpl-m',
        object: 'chat.completion',
        created: 1_760_000_002,
        model: MODEL,
        choices: [],
        usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, prompt_tokens_details: { cached_tokens: 4 } },
      }),
      ctx(),
    );
    expect(parts).toContainEqual({
      kind: 'usage',
      usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29, prompt_tokens_details: { cached_tokens: 4 } },
    });
  });
});

describe('mlx-lm adapter: errors', () => {
  it('reads its 404 for a content part as a 400 unsupported_content', () => {
    const error = adapter.readError(404, JSON.stringify({ error: "Only 'text' content type is supported." }), { backend: 'mlx' });
    expect(error.status).toBe(400);
    expect(error.code).toBe('unsupported_content');
  });

  it('reads any other 404 string error as a failure of the backend', () => {
    const error = adapter.readError(404, JSON.stringify({ error: 'Failed to load model' }), { backend: 'mlx' });
    expect(error.status).toBe(502);
    expect(error.message).toContain('Failed to load model');
  });
});
