import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { estimatePromptTokens } from '../../src/adapters/request/note-context-risk.js';
import { chat, sentMessages, lockerTool, PNG_DATA_URL, weatherTool } from './chat.js';
import { ctx, data } from './events.js';
import { makeBackend } from './make-backend.js';

const adapter = getAdapter('ollama');
const backend = makeBackend('ollama', { name: 'ol' });
const MODEL = 'qwen3:8b';

function toUpstream(fields: Record<string, unknown>, on = backend) {
  return adapter.toUpstream(chat(fields), on, MODEL);
}

function call(fields: Record<string, unknown>, on = backend) {
  const result = toUpstream(fields, on);
  if (!result.ok) throw result.error;
  return result.call;
}

function withImage(url: string) {
  return { messages: [{ role: 'user', content: [{ type: 'text', text: 'What is it?' }, { type: 'image_url', image_url: { url } }] }] };
}

describe('ollama adapter: request', () => {
  it('goes to {base}/v1/chat/completions as a stream with usage, nothing else changed', () => {
    const sent = call({ reasoning_effort: 'low', response_format: { type: 'json_object' } });
    expect(sent.url).toBe('http://127.0.0.1:9/v1/chat/completions');
    expect(sent.body).toEqual({
      model: MODEL,
      messages: [{ role: 'user', content: 'Say hello.' }],
      reasoning_effort: 'low',
      response_format: { type: 'json_object' },
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(sent.changes).toEqual([]);
  });

  it('sends no tools under none, only the named tool for a named function, and says required is not enforced', () => {
    const none = call({ tools: [lockerTool], tool_choice: 'none' });
    expect(none.body).not.toHaveProperty('tools');
    expect(none.body).not.toHaveProperty('tool_choice');
    expect(none.changes).toEqual(['tool_choice "none": tools not sent']);
    const named = call({ tools: [weatherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    expect(named.body.tools).toEqual([lockerTool]);
    expect(named.body).not.toHaveProperty('tool_choice');
    const required = call({ tools: [lockerTool], tool_choice: 'required' });
    expect(required.body.tools).toEqual([lockerTool]);
    expect(required.body).not.toHaveProperty('tool_choice');
    expect(required.changes).toEqual(['tool_choice "required" not enforced: Ollama reads no tool_choice']);
  });

  it('refuses a named function that is not among the tools', () => {
    const result = toUpstream({ tools: [lockerTool], tool_choice: { type: 'function', function: { name: 'nope' } } });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.status).toBe(400);
  });

  it('sends reasoning back as reasoning and max_completion_tokens as max_tokens', () => {
    const sent = call({
      max_completion_tokens: 10,
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello', reasoning_content: 'Greet back.' },
        { role: 'user', content: 'x' },
      ],
    });
    expect(sentMessages(sent.body)[1]).toEqual({ role: 'assistant', content: 'Hello', reasoning: 'Greet back.' });
    expect(sent.body.max_tokens).toBe(10);
    expect(sent.body).not.toHaveProperty('max_completion_tokens');
    expect(sent.changes).toEqual(['reasoning sent back as reasoning', 'max_completion_tokens sent as max_tokens']);
  });

  it('sends images as data URLs of png, jpeg, jpg, webp or a blank type', () => {
    for (const url of [PNG_DATA_URL, 'data:image/jpeg;base64,/9j/4AAQ', 'data:image/webp;base64,UklGR', 'data:;base64,iVBORw0KGgo=']) {
      expect(toUpstream(withImage(url)).ok).toBe(true);
    }
  });

  it('refuses an http(s) image URL and another media type with 400 unsupported_content before sending', () => {
    const http = toUpstream(withImage('https://example.invalid/cat.png'));
    expect(http.ok).toBe(false);
    if (!http.ok) {
      expect(http.error.status).toBe(400);
      expect(http.error.code).toBe('unsupported_content');
      expect(http.error.message).toContain('not by http(s) URL');
    }
    const gif = toUpstream(withImage('data:image/gif;base64,R0lGODlh'));
    expect(gif.ok).toBe(false);
    if (!gif.ok) expect(gif.error.message).toContain('not image/gif');
    const notBase64 = toUpstream(withImage('data:image/png,rawbytes'));
    expect(notBase64.ok).toBe(false);
  });

  it('notes a prompt that may not fit the context (default 4096, else contextLength), and not one that fits', () => {
    expect(call({ messages: [{ role: 'user', content: 'x'.repeat(9000) }] }).changes).toEqual([]);
    const long = call({ messages: [{ role: 'user', content: 'x'.repeat(13_000) }] });
    expect(long.changes).toHaveLength(1);
    expect(long.changes[0]).toMatch(/^prompt of about \d+ tokens may exceed the backend's context of 4096 tokens: Ollama shortens it without an error$/);
    expect(long.changes[0]).not.toContain(',');
    const roomy = makeBackend('ollama', { contextLength: 32_768 });
    expect(call({ messages: [{ role: 'user', content: 'x'.repeat(13_000) }] }, roomy).changes).toEqual([]);
    const small = makeBackend('ollama', { contextLength: 1000 });
    expect(call({ messages: [{ role: 'user', content: 'x'.repeat(3100) }] }, small).changes[0]).toContain('context of 1000 tokens');
  });

  it('estimates high: a token per 3 bytes of text and tools, 768 per image', () => {
    expect(estimatePromptTokens([{ role: 'user', content: 'abcdef' }], undefined)).toBe(Math.ceil((6 + JSON.stringify({ role: 'user' }).length) / 3));
    const image = estimatePromptTokens([{ role: 'user', content: [{ type: 'image_url', image_url: { url: PNG_DATA_URL } }] }], undefined);
    expect(image).toBeGreaterThanOrEqual(768);
    expect(estimatePromptTokens([{ role: 'user', content: '' }], [lockerTool])).toBeGreaterThan(JSON.stringify(lockerTool).length / 3);
  });
});

describe('ollama adapter: model ids', () => {
  it('serves a tag-less name by its listed :latest, and nothing else', () => {
    const listed = ['llama3.2:latest', 'qwen3:8b', 'hf.co/org/model:latest', 'host:5000/x'];
    expect(adapter.servedModelId?.('llama3.2', listed)).toBe('llama3.2:latest');
    expect(adapter.servedModelId?.('hf.co/org/model', listed)).toBe('hf.co/org/model:latest');
    expect(adapter.servedModelId?.('qwen3', listed)).toBeUndefined();
    expect(adapter.servedModelId?.('llama3.2:1b', listed)).toBeUndefined();
    expect(adapter.servedModelId?.('host:5000/', listed)).toBeUndefined();
    expect(getAdapter('vllm').servedModelId).toBeUndefined();
  });
});

describe('ollama adapter: retries', () => {
  it('retries without the effort when the model cannot think', () => {
    const body = JSON.stringify({ error: { message: '"llama3.2" does not support thinking', type: 'invalid_request_error', param: null, code: null } });
    const plan = adapter.planRetry(400, body, { model: 'llama3.2', messages: [], reasoning_effort: 'low' });
    expect(plan).toEqual({ body: { model: 'llama3.2', messages: [] }, change: 'retried without reasoning_effort (the model does not reason)', fields: ['reasoning_effort'] });
    expect(adapter.planRetry(400, body, { model: 'llama3.2', messages: [] })).toBeNull();
  });

  it('retries a value an older release does not list with the nearest it lists', () => {
    const body = JSON.stringify({
      error: { message: 'invalid reasoning value: \'xhigh\' (must be "high", "medium", "low", or "none")', type: 'invalid_request_error', param: null, code: null },
    });
    expect(adapter.planRetry(400, body, { reasoning_effort: 'xhigh' })).toEqual({
      body: { reasoning_effort: 'high' },
      change: 'reasoning_effort "xhigh" refused: retried with "high"',
      fields: ['reasoning_effort'],
    });
    expect(adapter.planRetry(400, body.replace("'xhigh'", "'minimal'"), { reasoning_effort: 'minimal' })?.body).toEqual({ reasoning_effort: 'low' });
  });

  it('still retries without an optional field a server names', () => {
    const plan = adapter.planRetry(400, '{"error":{"message":"unknown field stream_options"}}', { stream_options: { include_usage: true }, messages: [] });
    expect(plan?.body).toEqual({ messages: [] });
  });
});

describe('ollama adapter: stream', () => {
  it('reads reasoning under `reasoning` and skips the "content": "" beside it', () => {
    const parts = adapter.readEvent(
      data({ id: 'chatcmpl-417', object: 'chat.completion.chunk', created: 1_767_225_600, model: MODEL, system_fingerprint: 'fp_ollama', choices: [{ index: 0, delta: { content: '', reasoning: 'Hmm.' }, finish_reason: null }] }),
      ctx(),
    );
    expect(parts).toEqual([
      { kind: 'meta', id: 'chatcmpl-417', created: 1_767_225_600 },
      { kind: 'reasoning', text: 'Hmm.' },
    ]);
  });
});

describe('ollama adapter: errors', () => {
  const error = (status: number, message: string) =>
    adapter.readError(status, JSON.stringify({ error: { message, type: status === 404 ? 'not_found_error' : 'invalid_request_error', param: null, code: null } }), { backend: 'ol' });

  it('reads a prompt it cannot shift as context_length_exceeded, in OpenAI words', () => {
    const overflow = error(400, 'the prompt is longer than the context length currently available to the model; shorten the prompt, adjust the context length in settings, or use a model with a longer context length');
    expect(overflow.status).toBe(400);
    expect(overflow.code).toBe('context_length_exceeded');
    expect(overflow.message).toContain('maximum context length');
    expect(error(400, 'the input length exceeds the context length').code).toBe('context_length_exceeded');
  });

  it('reads its other 400s as invalid_request with its words, and a 404 as a failure of the backend', () => {
    const tools = error(400, 'registry.ollama.ai/library/gemma:2b does not support tools');
    expect(tools.code).toBe('invalid_request');
    expect(tools.message).toContain('does not support tools');
    const missing = error(404, "model 'qwen3:8b' not found");
    expect(missing.status).toBe(502);
    expect(missing.message).toContain("model 'qwen3:8b' not found");
  });
});
