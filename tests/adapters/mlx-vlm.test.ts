import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { chat, lockerTool, PNG_DATA_URL } from './chat.js';
import { ctx, data } from './events.js';
import { makeBackend } from './make-backend.js';

const adapter = getAdapter('mlx-vlm');
const MODEL = '/Users/me/models/Qwen3.8-27B-4bit';

function call(fields: Record<string, unknown>) {
  const result = adapter.toUpstream(chat(fields), makeBackend('mlx-vlm', { name: 'vlm' }), MODEL);
  if (!result.ok) throw result.error;
  return result.call;
}

const nullDelta = { role: 'assistant', content: null, reasoning_content: null, reasoning: null, tool_calls: null, tool_call_id: null, name: null };

describe('mlx-vlm adapter: request', () => {
  it('keeps tool_choice (it keeps it through the prompt), the effort, and images', () => {
    const image = { role: 'user', content: [{ type: 'text', text: 'Which locker?' }, { type: 'image_url', image_url: { url: PNG_DATA_URL } }] };
    const fields = { tools: [lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } }, reasoning_effort: 'low', messages: [image] };
    const sent = call(fields);
    expect(sent.body).toEqual({ ...chat(fields), model: MODEL, stream: true, stream_options: { include_usage: true } });
    expect(sent.changes).toEqual([]);
  });
});

describe('mlx-vlm adapter: stream', () => {
  it('reads reasoning sent under both keys once, and passes over its null keys', () => {
    const parts = adapter.readEvent(
      data({
        id: 'chatcmpl-vlm',
        object: 'chat.completion.chunk',
        created: 1_760_000_003,
        model: MODEL,
        choices: [{ index: 0, finish_reason: null, logprobs: null, delta: { ...nullDelta, reasoning_content: 'Look', reasoning: 'Look' } }],
        usage: null,
        timings: { prompt_tps: 120.5, generation_tps: 30.1 },
      }),
      ctx(),
    );
    expect(parts).toEqual([
      { kind: 'meta', id: 'chatcmpl-vlm', created: 1_760_000_003 },
      { kind: 'reasoning', text: 'Look' },
    ]);
  });

  it('reads its usage chunk without its timings or peak memory', () => {
    const parts = adapter.readEvent(
      data({
        id: 'chatcmpl-vlm',
        choices: [],
        usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 0 }, peak_memory: 17.2 },
        timings: { prompt_tps: 1 },
      }),
      ctx(),
    );
    expect(parts).toContainEqual({
      kind: 'usage',
      usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 0 } },
    });
  });
});

describe('mlx-vlm adapter: errors', () => {
  it('reads a detail string and a detail list', () => {
    const choice = adapter.readError(400, JSON.stringify({ detail: "Invalid tool_choice. Expected 'none', 'auto', 'required', or a specific function." }), {
      backend: 'vlm',
    });
    expect(choice.code).toBe('invalid_request');
    expect(choice.message).toContain('Invalid tool_choice');
    const list = adapter.readError(
      422,
      JSON.stringify({ detail: [{ type: 'list_type', loc: ['body', 'messages'], msg: 'Input should be a valid list', input: 'hi' }] }),
      { backend: 'vlm' },
    );
    expect(list.code).toBe('invalid_request');
    expect(list.message).toContain('Input should be a valid list');
    expect(list.param).toBe('messages');
  });

  it('reads both of its context wordings as context_length_exceeded', () => {
    for (const detail of ['Protected conversation exceeds the available context budget.', 'Output reservation leaves no room for compacted context.']) {
      const error = adapter.readError(400, JSON.stringify({ detail }), { backend: 'vlm' });
      expect(error.code).toBe('context_length_exceeded');
      expect(error.message).toContain('maximum context length');
    }
  });

  it('reads its 502 for a summary that ran out as a failure not worth repeating', () => {
    const error = adapter.readError(502, JSON.stringify({ detail: 'Compaction summary hit its output limit; original context preserved.' }), { backend: 'vlm' });
    expect(error.code).toBe('upstream_error');
    expect(error.retryable).toBe(false);
  });
});
