import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { chat, sentMessages, lockerTool } from './chat.js';
import { chunk, ctx, data } from './events.js';
import { makeBackend } from './make-backend.js';

const adapter = getAdapter('vllm');

function call(fields: Record<string, unknown>, backend = makeBackend('vllm', { name: 'vl' })) {
  const result = adapter.toUpstream(chat(fields), backend, 'qwen3.8');
  if (!result.ok) throw result.error;
  return result.call;
}

const history = [
  { role: 'user', content: 'Count to five.' },
  { role: 'assistant', content: 'One, two, three, four, five.', reasoning_content: 'Straightforward.' },
  { role: 'user', content: 'Again.' },
];

describe('vllm adapter: request', () => {
  it('keeps every tool_choice form, the effort and max_completion_tokens (it reads them all)', () => {
    const fields = {
      tools: [lockerTool],
      tool_choice: { type: 'function', function: { name: 'open_locker' } },
      reasoning_effort: 'low',
      max_completion_tokens: 50,
    };
    const sent = call(fields);
    expect(sent.body).toEqual({ ...chat(fields), model: 'qwen3.8', stream: true, stream_options: { include_usage: true } });
    expect(sent.changes).toEqual([]);
  });

  it('sends reasoning back as reasoning with its parser, and not at all when its reasoning arrives in tags', () => {
    expect(sentMessages(call({ messages: history }).body)[1]).toEqual({
      role: 'assistant',
      content: 'One, two, three, four, five.',
      reasoning: 'Straightforward.',
    });
    const tags = call({ messages: history }, makeBackend('vllm', { reasoningTags: 'open' }));
    expect(sentMessages(tags.body)[1]).toEqual({ role: 'assistant', content: 'One, two, three, four, five.' });
    expect(tags.changes).toContain('reasoning in assistant turns not sent (its reasoning arrives in think tags)');
  });
});

describe('vllm adapter: stream', () => {
  it('leaves prompt_token_ids, prompt_text and token_ids unread', () => {
    const parts = adapter.readEvent(
      data({
        id: 'chatcmpl-v',
        object: 'chat.completion.chunk',
        created: 1_760_000_001,
        model: 'qwen3.8',
        prompt_token_ids: null,
        prompt_text: null,
        choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null, token_ids: null }],
      }),
      ctx(),
    );
    expect(parts).toEqual([{ kind: 'meta', id: 'chatcmpl-v', created: 1_760_000_001 }]);
  });

  it('reads reasoning under `reasoning`', () => {
    expect(adapter.readEvent(data(chunk({ reasoning: 'Thinking' })), ctx())).toContainEqual({ kind: 'reasoning', text: 'Thinking' });
  });
});

describe('vllm adapter: errors and retries', () => {
  it('retries an effort its template refuses with the nearest supported one, saying which', () => {
    const sent = call({ reasoning_effort: 'high' });
    const body = JSON.stringify({
      error: { message: 'Unexpected reasoning effort high. Supported types are xhigh (default), medium, and low.', type: 'BadRequestError', param: null, code: 400 },
    });
    const plan = adapter.planRetry(400, body, sent.body);
    expect(plan?.body).toEqual({ ...sent.body, reasoning_effort: 'xhigh' });
    expect(plan?.change).toBe('reasoning_effort "high" refused by the template: retried with "xhigh"');
  });

  it('reads its input_tokens overflow as context_length_exceeded, and its max_tokens refusal as a parameter error', () => {
    const overflow = adapter.readError(
      400,
      JSON.stringify({
        error: {
          message:
            "This model's maximum context length is 262144 tokens. However, you requested 0 output tokens and your prompt contains at least 262145 input tokens, for a total of at least 262145 tokens.",
          type: 'BadRequestError',
          param: 'input_tokens',
          code: 400,
        },
      }),
      { backend: 'vl' },
    );
    expect(overflow.code).toBe('context_length_exceeded');
    const param = adapter.readError(
      400,
      JSON.stringify({ error: { message: 'max_tokens=300000 cannot be greater than max_model_len=max_total_tokens=262144', type: 'BadRequestError', param: 'max_tokens', code: 400 } }),
      { backend: 'vl' },
    );
    expect(param.code).toBe('invalid_request');
    expect(param.param).toBe('max_tokens');
  });

  it('reads its refusal of tools without a tool-call parser as a 400 about the request', () => {
    const error = adapter.readError(
      400,
      JSON.stringify({
        error: { message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', param: null, code: 400 },
      }),
      { backend: 'vl' },
    );
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('--tool-call-parser');
    expect(adapter.planRetry(400, '"auto" tool choice requires --enable-auto-tool-choice', call({ tools: [lockerTool] }).body)).toBeNull();
  });
});
