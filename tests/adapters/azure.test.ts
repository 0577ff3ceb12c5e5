import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { chat, lockerTool } from './chat.js';
import { ctx, data } from './events.js';
import { makeBackend } from './make-backend.js';

const adapter = getAdapter('azure');
const backend = makeBackend('azure', { name: 'az', url: 'https://res.openai.azure.com', apiKey: 'az-key', models: ['gpt-6-luna'] });

function call(fields: Record<string, unknown>, on = backend) {
  const result = adapter.toUpstream(chat(fields), on, 'gpt-6-luna');
  if (!result.ok) throw result.error;
  return result.call;
}

const promptFilterChunk = {
  choices: [],
  created: 0,
  id: '',
  model: '',
  object: '',
  prompt_filter_results: [
    {
      prompt_index: 0,
      content_filter_results: {
        hate: { filtered: false, severity: 'safe' },
        jailbreak: { detected: false, filtered: false },
        self_harm: { filtered: false, severity: 'safe' },
      },
    },
  ],
};

function annotation(results: Record<string, unknown>, finish: string | null = null): Record<string, unknown> {
  return {
    choices: [
      {
        content_filter_offsets: { check_offset: 140, start_offset: 140, end_offset: 259 },
        content_filter_results: results,
        finish_reason: finish,
        index: 0,
      },
    ],
    created: 0,
    id: '',
    model: '',
    object: '',
  };
}

describe('azure adapter: request', () => {
  it('posts to /openai/v1/chat/completions with api-key and the deployment as model', () => {
    const sent = call({});
    expect(sent.url).toBe('https://res.openai.azure.com/openai/v1/chat/completions');
    expect(sent.headers).toEqual({ 'api-key': 'az-key' });
    expect(sent.body.model).toBe('gpt-6-luna');
  });

  it('uses the deployments route with api-version when configured', () => {
    const sent = call({}, makeBackend('azure', { url: 'https://res.openai.azure.com/', apiKey: 'k', apiVersion: '2025-04-01-preview', models: ['gpt-6-luna'] }));
    expect(sent.url).toBe('https://res.openai.azure.com/openai/deployments/gpt-6-luna/chat/completions?api-version=2025-04-01-preview');
  });

  it('adds the word JSON for json_object, drops tool_choice without tools and reasoning on assistant turns', () => {
    const sent = call({
      response_format: { type: 'json_object' },
      tool_choice: 'auto',
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello', reasoning_content: 'Greet.' },
        { role: 'user', content: 'Which locker?' },
      ],
    });
    expect(sent.body.messages).toEqual([
      { role: 'system', content: 'Answer with a JSON object.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello' },
      { role: 'user', content: 'Which locker?' },
    ]);
    expect(sent.body).not.toHaveProperty('tool_choice');
    expect(sent.changes).toEqual([
      'reasoning in assistant turns not sent (Azure OpenAI takes none)',
      'tool_choice dropped: no tools',
      'system note asking for JSON added (json_object needs the word)',
    ]);
  });

  it('keeps a named tool_choice and max_completion_tokens as sent', () => {
    const sent = call({ tools: [lockerTool], tool_choice: { type: 'function', function: { name: 'open_locker' } }, max_completion_tokens: 9 });
    expect(sent.body.tool_choice).toEqual({ type: 'function', function: { name: 'open_locker' } });
    expect(sent.body.max_completion_tokens).toBe(9);
    expect(sent.changes).toEqual([]);
  });
});

describe('azure adapter: stream', () => {
  it('reads the prompt filter chunk as nothing, in both field names', () => {
    expect(adapter.readEvent(data(promptFilterChunk), ctx())).toEqual([]);
    const { prompt_filter_results, ...older } = promptFilterChunk;
    expect(adapter.readEvent(data({ ...older, prompt_annotations: prompt_filter_results }), ctx())).toEqual([]);
  });

  it('reads the first delta, obfuscation and the other extras as nothing but identity', () => {
    const parts = adapter.readEvent(
      data({
        choices: [{ content_filter_results: {}, delta: { content: '', refusal: null, role: 'assistant' }, finish_reason: null, index: 0, logprobs: null }],
        created: 1_790_000_000,
        id: 'chatcmpl-az',
        model: 'gpt-6-luna-2026-09-22',
        obfuscation: 'q8Xz',
        object: 'chat.completion.chunk',
        service_tier: 'default',
        system_fingerprint: null,
        usage: null,
      }),
      ctx(),
    );
    expect(parts).toEqual([{ kind: 'meta', id: 'chatcmpl-az', created: 1_790_000_000 }]);
  });

  it('reads an annotation that passed, or was only detected, as nothing', () => {
    expect(adapter.readEvent(data(annotation({ hate: { filtered: false, severity: 'safe' } })), ctx())).toEqual([]);
    expect(adapter.readEvent(data(annotation({ protected_material_text: { detected: true, filtered: false } })), ctx())).toEqual([]);
  });

  it('reads a filtered verdict on an annotation as a block, with or without a finish', () => {
    const blocklist = { custom_blocklists: [{ filtered: true, id: 'svir' }] };
    expect(adapter.readEvent(data(annotation(blocklist)), ctx())).toEqual([{ kind: 'filtered' }]);
    expect(adapter.readEvent(data(annotation(blocklist, 'content_filter')), ctx())).toEqual([
      { kind: 'finish', reason: 'content_filter' },
      { kind: 'filtered' },
    ]);
  });

  it('reads a block in the default mode: an ordinary chunk with the verdict and content_filter', () => {
    const parts = adapter.readEvent(
      data({
        choices: [
          {
            content_filter_results: { custom_blocklists: [{ filtered: true, id: 'svir' }], hate: { filtered: false, severity: 'safe' } },
            delta: {},
            finish_reason: 'content_filter',
            index: 0,
          },
        ],
        created: 1_790_000_000,
        id: 'chatcmpl-az',
        model: 'gpt-6-luna-2026-09-22',
        object: 'chat.completion.chunk',
      }),
      ctx(),
    );
    expect(parts).toEqual([
      { kind: 'meta', id: 'chatcmpl-az', created: 1_790_000_000 },
      { kind: 'finish', reason: 'content_filter' },
      { kind: 'filtered' },
    ]);
  });

  it('reads its usage chunk without latency_checkpoint and routing', () => {
    const parts = adapter.readEvent(
      data({
        choices: [],
        id: 'chatcmpl-az',
        created: 1_790_000_000,
        model: 'gpt-6-luna-2026-09-22',
        usage: {
          prompt_tokens: 11,
          completion_tokens: 4,
          total_tokens: 15,
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          latency_checkpoint: { ttft_ms: 300 },
          routing: { region: 'x' },
        },
      }),
      ctx(),
    );
    expect(parts).toContainEqual({
      kind: 'usage',
      usage: {
        prompt_tokens: 11,
        completion_tokens: 4,
        total_tokens: 15,
        completion_tokens_details: { reasoning_tokens: 0 },
        prompt_tokens_details: { cached_tokens: 0 },
      },
    });
  });
});

describe('azure adapter: errors and retries', () => {
  it('reads a prompt its filter blocked as 400 content_filter, without the verdict body', () => {
    const error = adapter.readError(
      400,
      JSON.stringify({
        error: {
          message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
          type: null,
          param: 'prompt',
          code: 'content_filter',
          status: 400,
          innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { jailbreak: { detected: true, filtered: true } } },
        },
      }),
      { backend: 'az' },
    );
    expect(error.status).toBe(400);
    expect(error.code).toBe('content_filter');
    expect(error.message).not.toContain('ResponsibleAIPolicyViolation');
  });

  it('retries max_tokens as max_completion_tokens for a reasoning deployment', () => {
    const sent = call({ max_tokens: 30 });
    const plan = adapter.planRetry(
      400,
      JSON.stringify({ error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", code: 'unsupported_parameter' } }),
      sent.body,
    );
    expect(plan?.body.max_completion_tokens).toBe(30);
    expect(plan?.body).not.toHaveProperty('max_tokens');
  });
});
