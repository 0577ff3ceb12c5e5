import { describe, expect, it } from 'vitest';
import { chatRequestSchema } from '../../src/requests/chat-request.js';
import { getAdapter } from '../../src/adapters/index.js';
import { chat, sentMessages, lockerTool, PNG_DATA_URL, weatherTool } from './chat.js';
import { ctx, data } from './events.js';
import { makeBackend } from './make-backend.js';

const adapter = getAdapter('llamacpp');

function toUpstream(fields: Record<string, unknown>, backend = makeBackend('llamacpp', { name: 'gguf' })) {
  return adapter.toUpstream(chat(fields), backend, '/models/muse-glimmer-30b-Q4_K_M.gguf');
}

function call(fields: Record<string, unknown>, backend = makeBackend('llamacpp', { name: 'gguf' })) {
  const result = toUpstream(fields, backend);
  if (!result.ok) throw result.error;
  return result.call;
}

const imageMessage = { role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] };

describe('llamacpp adapter: request', () => {
  it('sends a named tool_choice as required with only that tool (its grammar keeps required)', () => {
    const sent = call({ tools: [weatherTool, lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } } });
    expect(sent.body.tool_choice).toBe('required');
    expect(sent.body.tools).toEqual([lockerTool]);
  });

  it('sends no tools under none (its parser otherwise fails the stream)', () => {
    const sent = call({ tools: [lockerTool], tool_choice: 'none', messages: [{ role: 'user', content: 'Open locker 4.' }] });
    expect(sent.body).toEqual({
      model: '/models/muse-glimmer-30b-Q4_K_M.gguf',
      messages: [{ role: 'user', content: 'Open locker 4.' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(sent.changes).toEqual(['tool_choice "none": tools not sent']);
  });

  it('takes only the four tool_choice forms: anything else is refused by svir first', () => {
    expect(chatRequestSchema.safeParse({ model: 'm', messages: [{ role: 'user', content: 'x' }], tools: [lockerTool], tool_choice: 'bogus' }).success).toBe(
      false,
    );
  });

  it('refuses an image with 400 before sending when the backend has no projector', () => {
    const result = toUpstream({ messages: [imageMessage] }, makeBackend('llamacpp', { name: 'gguf' }, { vision: false }));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('unsupported_content');
    expect(result.error.status).toBe(400);
    expect(result.error.message).toContain('"gguf"');
  });

  it('sends an image as a data URL part after one text part when it has a projector or may have one', () => {
    for (const vision of [true, undefined]) {
      const sent = call({ messages: [imageMessage] }, makeBackend('llamacpp', {}, vision === undefined ? {} : { vision }));
      expect(sent.body.messages).toEqual([imageMessage]);
    }
  });

  it('sends the effort to the variable its template reads when configured', () => {
    const sent = call({ reasoning_effort: 'none' }, makeBackend('llamacpp', { effortTemplateKey: 'reasoning_strength' }));
    expect(sent.body.chat_template_kwargs).toEqual({ reasoning_strength: 'none' });
    expect(sent.body).not.toHaveProperty('reasoning_effort');
    expect(call({ reasoning_effort: 'high' }).body.reasoning_effort).toBe('high');
  });

  it('sends reasoning back as reasoning_content and max_completion_tokens as max_tokens', () => {
    const sent = call({
      max_completion_tokens: 32,
      messages: [
        { role: 'assistant', content: 'Hi', reasoning_content: 'R' },
        { role: 'user', content: 'x' },
      ],
    });
    expect(sentMessages(sent.body)[0]).toEqual({ role: 'assistant', content: 'Hi', reasoning_content: 'R' });
    expect(sent.body.max_tokens).toBe(32);
  });
});

describe('llamacpp adapter: stream', () => {
  it('reads its null first content as nothing, and never takes its model path', () => {
    const parts = adapter.readEvent(
      data({ choices: [{ finish_reason: null, index: 0, delta: { role: 'assistant', content: null } }], created: 1_760_000_000, id: 'chatcmpl-ll', model: '/models/muse.gguf', object: 'chat.completion.chunk' }),
      ctx(),
    );
    expect(parts).toEqual([{ kind: 'meta', id: 'chatcmpl-ll', created: 1_760_000_000 }]);
  });

  it('reads its error chunk as an error of the stream', () => {
    const parts = adapter.readEvent(
      data({ error: { code: 500, message: 'The model produced output that does not match the expected peg-native format', type: 'server_error' } }),
      ctx({ backend: 'gguf' }),
    );
    const [part] = parts;
    if (part?.kind !== 'error') throw new Error('expected an error part');
    expect(part.error.code).toBe('upstream_error');
    expect(part.error.status).toBe(502);
    expect(part.error.message).toContain('peg-native format');
    expect(part.error.message).toContain('gguf');
  });
});

describe('llamacpp adapter: errors', () => {
  it('reads exceed_context_size_error as a context overflow with the counts', () => {
    const error = adapter.readError(
      400,
      JSON.stringify({
        error: {
          code: 400,
          message: 'request (20056 tokens) exceeds the available context size (16384 tokens), try increasing it',
          type: 'exceed_context_size_error',
          n_prompt_tokens: 20056,
          n_ctx: 16384,
        },
      }),
      { backend: 'gguf' },
    );
    expect(error.code).toBe('context_length_exceeded');
    expect(error.message).toContain('maximum context length is 16384 tokens');
    expect(error.message).toContain('20056');
  });

  it('reads its 500 for an image without a projector as a 400', () => {
    const error = adapter.readError(
      500,
      JSON.stringify({ error: { code: 500, message: 'image input is not supported - hint: if this is unexpected, you may need to provide the mmproj', type: 'server_error' } }),
      { backend: 'gguf' },
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe('unsupported_content');
  });

  it('reads its refusal of a tool_choice outside the protocol as a 400', () => {
    const error = adapter.readError(400, JSON.stringify({ error: { code: 400, message: 'Invalid tool_choice: bogus', type: 'invalid_request_error' } }), {
      backend: 'gguf',
    });
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('Invalid tool_choice: bogus');
  });
});
