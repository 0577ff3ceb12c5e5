/**
 * Responses request → clean chat request: table tests of the pure translation (input items,
 * instructions, tools and namespaces, tool_choice, text.format, reasoning, limits, and what is
 * refused or noted).
 */
import { describe, expect, it } from 'vitest';
import { chatRequestSchema } from '../../src/requests/chat-request.js';
import { SvirError } from '../../src/errors.js';
import { readInputItems } from '../../src/responses/read-input-items.js';
import { resolveInputItems } from '../../src/responses/resolve-input-items.js';
import { responsesRequestSchema } from '../../src/responses/responses-request.js';
import { CHAT_NAMES, READ_FIELDS, toChatRequest, type TranslatedRequest } from '../../src/responses/to-chat-request.js';
import type { InputItem } from '../../src/responses/input-item.js';
import { refusalOf } from '../helpers/refusal-of.js';

function translate(body: Record<string, unknown>, lookup: (id: string) => InputItem | undefined = () => undefined): TranslatedRequest {
  const request = responsesRequestSchema.parse({ model: 'm', ...body });
  const raw = request.input ?? [];
  const items = typeof raw === 'string' ? readInputItems([{ role: 'user', content: raw }]) : readInputItems(raw);
  return toChatRequest(request, resolveInputItems(items, lookup));
}

function refusal(body: Record<string, unknown>): SvirError {
  return refusalOf(() => translate(body));
}

const weatherTool = { type: 'function', name: 'weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: false };

describe('input → messages', () => {
  it.each<[string, Record<string, unknown>, unknown[]]>([
    ['a string is one user message', { input: 'hi' }, [{ role: 'user', content: 'hi' }]],
    [
      'instructions become the first system message',
      { input: 'hi', instructions: 'Be brief.' },
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    ],
    [
      'developer and system messages are system messages, consecutive ones joined (instructions first)',
      {
        instructions: 'I',
        input: [
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'D1' }] },
          { role: 'system', content: 'S2' },
          { role: 'user', content: 'u' },
        ],
      },
      [
        { role: 'system', content: 'I\n\nD1\n\nS2' },
        { role: 'user', content: 'u' },
      ],
    ],
    [
      'user parts: text and images (URL and data URL, detail kept)',
      {
        input: [
          {
            role: 'user',
            content: [
              { type: 'input_text', text: 'what is this' },
              { type: 'input_image', image_url: 'https://example.test/a.png', detail: 'low' },
              { type: 'input_image', image_url: 'data:image/png;base64,AAAA', detail: 'auto' },
            ],
          },
        ],
      },
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: 'https://example.test/a.png', detail: 'low' } },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'auto' } },
          ],
        },
      ],
    ],
    [
      'assistant output_text and refusal parts are its text',
      {
        input: [
          { role: 'user', content: 'q' },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a', annotations: [] }] },
          { role: 'user', content: 'q2' },
        ],
      },
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'a' },
        { role: 'user', content: 'q2' },
      ],
    ],
    [
      'reasoning, text and the calls of one turn are one assistant message; outputs are tool messages',
      {
        input: [
          { role: 'user', content: 'weather in Paris and Rome?' },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'two calls' }] },
          { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call', call_id: 'c2', name: 'weather', arguments: '{"city":"Rome"}', status: 'completed', id: 'fc_2' },
          { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
          { type: 'function_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'rain' }] },
        ],
      },
      [
        { role: 'user', content: 'weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          reasoning_content: 'two calls',
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'c2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
        { role: 'tool', tool_call_id: 'c2', content: [{ type: 'text', text: 'rain' }] },
      ],
    ],
    [
      'reasoning content (reasoning_text) is preferred to its summary',
      {
        input: [
          { role: 'user', content: 'q' },
          {
            type: 'reasoning',
            summary: [{ type: 'summary_text', text: 'S' }],
            content: [{ type: 'reasoning_text', text: 'full thought' }],
          },
          { role: 'assistant', content: 'A' },
        ],
      },
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'A', reasoning_content: 'full thought' },
      ],
    ],
    [
      'a call of a namespaced tool is sent back under its flat name',
      {
        input: [
          { role: 'user', content: 'q' },
          { type: 'function_call', call_id: 'c1', name: 'close_agent', namespace: 'multi_agent_v1', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'ok' },
        ],
      },
      [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'multi_agent_v1__close_agent', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    ],
  ])('%s', (_title, body, messages) => {
    expect(translate(body).chat.messages).toEqual(messages);
  });

  it('encrypted_content is dropped with a note; a reasoning item with nothing readable adds no message', () => {
    const out = translate({
      input: [
        { role: 'user', content: 'q' },
        { type: 'reasoning', summary: [], encrypted_content: 'gAAAA' },
        { role: 'assistant', content: 'A' },
      ],
    });
    expect(out.chat.messages).toEqual([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'A' },
    ]);
    expect(out.notes).toContain('reasoning encrypted_content dropped (no backend can read it)');
  });

  it('an item_reference resolves from the lookup; an unknown one is a 404 naming it', () => {
    const stored: InputItem = { type: 'reasoning', id: 'rs_9', summary: [{ type: 'summary_text', text: 'thought' }] };
    const out = translate(
      { input: [{ role: 'user', content: 'q' }, { type: 'item_reference', id: 'rs_9' }, { role: 'assistant', content: 'A' }] },
      (id) => (id === 'rs_9' ? stored : undefined),
    );
    expect(out.chat.messages[1]).toEqual({ role: 'assistant', content: 'A', reasoning_content: 'thought' });
    try {
      translate({ input: [{ role: 'user', content: 'q' }, { id: 'msg_nope' }] });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(SvirError);
      expect((err as SvirError).code).toBe('item_not_found');
      expect((err as SvirError).status).toBe(404);
      expect((err as SvirError).param).toBe('input[1]');
      expect((err as SvirError).message).toContain('msg_nope');
    }
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an item type a chat backend has no counterpart for', { input: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }] }, 'input[0]'],
    ['an image by file_id', { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1', detail: 'auto' }] }] }, 'input[0].content[0]'],
    ['an image part in a system message', { input: [{ role: 'system', content: [{ type: 'input_image', image_url: 'data:,', detail: 'auto' }] }] }, 'input[0].content[0]'],
    ['a message without content', { input: [{ role: 'user' }] }, 'input[0]'],
    ['an empty input', { input: [] }, 'input'],
    ['background', { input: 'x', background: true }, 'background'],
    ['conversation', { input: 'x', conversation: 'conv_1' }, 'conversation'],
    ['top_logprobs', { input: 'x', top_logprobs: 3 }, 'top_logprobs'],
  ])('refused with a 400 naming the place: %s', (_title, body, param) => {
    const err = refusal(body);
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_request');
    expect(err.param).toBe(param);
  });
});

describe('tools and tool_choice', () => {
  it('function tools become chat functions; parallel_tool_calls is kept', () => {
    const out = translate({ input: 'x', tools: [weatherTool], tool_choice: 'auto', parallel_tool_calls: false });
    expect(out.chat.tools).toEqual([
      { type: 'function', function: { name: 'weather', description: 'Weather', parameters: { type: 'object', properties: {} }, strict: false } },
    ]);
    expect(out.chat.tool_choice).toBe('auto');
    expect(out.chat['parallel_tool_calls']).toBe(false);
    expect(out.notes).toEqual([]);
  });

  it('a namespace is flattened and remembered; built-ins and custom tools are dropped with one note', () => {
    const out = translate({
      input: 'x',
      tools: [
        weatherTool,
        {
          type: 'namespace',
          name: 'multi_agent_v1',
          description: 'agents',
          tools: [
            { type: 'function', name: 'close_agent', description: 'Close', parameters: { type: 'object' } },
            { type: 'custom', name: 'freeform' },
          ],
        },
        { type: 'namespace', name: 'mcp__cal__', description: '', tools: [{ type: 'function', name: 'create' }] },
        { type: 'web_search', external_web_access: false },
        { type: 'custom', name: 'apply_patch' },
        { type: 'file_search', vector_store_ids: [] },
      ],
    });
    expect(out.chat.tools?.map((tool) => tool.function.name)).toEqual(['weather', 'multi_agent_v1__close_agent', 'mcp__cal__create']);
    expect([...out.origins]).toEqual([
      ['multi_agent_v1__close_agent', { name: 'close_agent', namespace: 'multi_agent_v1' }],
      ['mcp__cal__create', { name: 'create', namespace: 'mcp__cal__' }],
    ]);
    expect(out.notes).toEqual([
      'tools not sent (a chat backend cannot run them): custom tool in namespace multi_agent_v1, web_search, custom apply_patch, file_search',
    ]);
  });

  it('only built-in tools: no tools are sent, and parallel_tool_calls goes with them', () => {
    const out = translate({ input: 'x', tools: [{ type: 'web_search' }], parallel_tool_calls: true, tool_choice: 'auto' });
    expect(out.chat.tools).toBeUndefined();
    expect(out.chat['parallel_tool_calls']).toBeUndefined();
  });

  it.each<[string, unknown, unknown]>([
    ['a named function', { type: 'function', name: 'weather' }, { type: 'function', function: { name: 'weather' } }],
    ['a namespaced function by its own name', { type: 'function', name: 'close_agent' }, { type: 'function', function: { name: 'ns__close_agent' } }],
    ['required', 'required', 'required'],
    ['none', 'none', 'none'],
  ])('tool_choice %s', (_title, choice, expected) => {
    const out = translate({
      input: 'x',
      tools: [weatherTool, { type: 'namespace', name: 'ns', description: '', tools: [{ type: 'function', name: 'close_agent' }] }],
      tool_choice: choice,
    });
    expect(out.chat.tool_choice).toEqual(expected);
  });

  it('allowed_tools narrows the tool list and keeps its mode', () => {
    const out = translate({
      input: 'x',
      tools: [weatherTool, { type: 'function', name: 'time', parameters: null, strict: null }],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'time' }, { type: 'web_search' }] },
    });
    expect(out.chat.tools).toEqual([{ type: 'function', function: { name: 'time', strict: false } }]);
    expect(out.chat.tool_choice).toBe('required');
    expect(out.notes).toContain('tool_choice allowed_tools sent as the tool list');
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a built-in tool', { tools: [{ type: 'web_search_preview' }], tool_choice: { type: 'web_search_preview' } }, /web_search_preview/],
    ['an MCP server', { tools: [{ type: 'mcp', server_label: 'x' }], tool_choice: { type: 'mcp', server_label: 'x' } }, /mcp/],
    ['a custom tool', { tools: [{ type: 'custom', name: 'apply_patch' }], tool_choice: { type: 'custom', name: 'apply_patch' } }, /custom tool apply_patch/],
    ['required over built-ins only', { tools: [{ type: 'web_search' }], tool_choice: 'required' }, /web_search/],
    ['a function the request does not declare', { tools: [weatherTool], tool_choice: { type: 'function', name: 'nope' } }, /nope/],
    ['allowed_tools without a mode', { tools: [weatherTool], tool_choice: { type: 'allowed_tools', tools: [{ type: 'function', name: 'weather' }] } }, /allowed_tools needs a mode/],
  ])('tool_choice forcing %s is a 400 naming it', (_title, body, message) => {
    const err = refusal({ input: 'x', ...body });
    expect(err.status).toBe(400);
    expect(err.param).toBe('tool_choice');
    expect(err.message).toMatch(message);
  });

  it('two tools of one chat name are refused', () => {
    const err = refusal({
      input: 'x',
      tools: [
        { type: 'function', name: 'ns__a' },
        { type: 'namespace', name: 'ns', description: '', tools: [{ type: 'function', name: 'a' }] },
      ],
    });
    expect(err.param).toBe('tools[1].tools[0]');
  });
});

describe('the other fields', () => {
  it('text.format, reasoning.effort, limits and sampling map to their chat fields', () => {
    const out = translate({
      input: 'x',
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
      reasoning: { effort: 'high', summary: 'auto' },
      max_output_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      user: 'u1',
      stream: true,
      top_k: 20,
    });
    expect(out.chat).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
      reasoning_effort: 'high',
      max_completion_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      user: 'u1',
      stream: true,
      verbosity: 'low',
      top_k: 20,
    });
    expect(translate({ input: 'x', text: { format: { type: 'json_object' } } }).chat.response_format).toEqual({ type: 'json_object' });
    expect(translate({ input: 'x', text: { format: { type: 'text' } } }).chat.response_format).toBeUndefined();
  });

  it('fields svir cannot honour are noted, never sent', () => {
    const out = translate({
      input: 'x',
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'k',
      safety_identifier: 's',
      client_metadata: { thread_id: 't' },
      truncation: 'auto',
      store: false,
      metadata: { a: 'b' },
      previous_response_id: null,
    });
    expect(out.notes).toEqual([
      'safety_identifier not sent',
      'prompt_cache_key not sent (the backend caches prompt prefixes itself)',
      'client_metadata not sent',
      'truncation auto not honoured (a prompt over the context is refused with context_length_exceeded)',
      'include reasoning.encrypted_content not honoured (svir has no encrypted reasoning)',
    ]);
    for (const field of ['include', 'prompt_cache_key', 'safety_identifier', 'client_metadata', 'truncation', 'store', 'metadata', 'previous_response_id', 'input', 'instructions']) {
      expect(out.chat, field).not.toHaveProperty(field);
    }
  });

  it('a bad json_schema name is refused by the schema', () => {
    const parsed = responsesRequestSchema.safeParse({ model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'a b', schema: {} } } });
    expect(parsed.success).toBe(false);
  });

  it('the chat request is what the chat schema would read from it, key for key in the same order (the bytes sent upstream)', () => {
    const out = translate({
      top_k: 20,
      input: [
        { role: 'developer', content: 'd' },
        { role: 'user', content: 'weather?' },
        { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'sunny' },
      ],
      instructions: 'I',
      tools: [weatherTool, { type: 'namespace', name: 'ns', tools: [{ type: 'function', name: 'g' }] }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'x', schema: { type: 'object' }, description: 'about x', strict: true }, verbosity: 'low' },
      reasoning: { effort: 'high' },
      max_output_tokens: 100,
      temperature: 0.5,
      top_p: 0.9,
      user: 'u',
      stream: true,
      seed: 3,
    });
    expect(JSON.stringify(out.chat)).toBe(JSON.stringify(chatRequestSchema.parse(out.chat)));
    expect(Object.keys(out.chat)).toEqual([
      'model', 'messages', 'stream', 'tools', 'tool_choice', 'response_format', 'reasoning_effort', 'max_completion_tokens',
      'top_k', 'seed', 'parallel_tool_calls', 'verbosity', 'temperature', 'top_p', 'user',
    ]);
    expect(Object.keys(out.chat.response_format?.type === 'json_schema' ? out.chat.response_format.json_schema : {})).toEqual(['name', 'description', 'schema', 'strict']);
    expect(out.chat.messages.map((message) => Object.keys(message))).toEqual([
      ['role', 'content'],
      ['role', 'content'],
      ['role', 'content', 'tool_calls'],
      ['role', 'content', 'tool_call_id'],
    ]);
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['n: 2', { n: 2 }, 'n', /n is not supported: a response has one output/],
    ['n: "1"', { n: '1' }, 'n', /only n = 1/],
    ['logprobs: true', { logprobs: true }, 'logprobs', /does not return logprobs/],
    ['max_tokens: -1', { max_tokens: -1 }, 'max_tokens', /max_tokens is a Chat Completions field; on \/v1\/responses it is max_output_tokens/],
    ['max_tokens: 5', { max_tokens: 5 }, 'max_tokens', /it is max_output_tokens/],
    ['max_completion_tokens', { max_completion_tokens: 5 }, 'max_completion_tokens', /it is max_output_tokens/],
    ['messages', { messages: [{ role: 'user', content: 'not this' }] }, 'messages', /it is input/],
    ['response_format', { response_format: { type: 'json_object' } }, 'response_format', /it is text\.format/],
    ['reasoning_effort', { reasoning_effort: 'low' }, 'reasoning_effort', /it is reasoning\.effort/],
    ['verbosity', { verbosity: 'high' }, 'verbosity', /it is text\.verbosity/],
    ['functions', { functions: [] }, 'functions', /it is tools/],
    ['function_call', { function_call: 'auto' }, 'function_call', /it is tool_choice/],
  ])('a chat field the client sent that /v1/responses does not take is a 400 naming it (%s)', (_name, body, param, message) => {
    const err = refusal({ input: 'x', ...body });
    expect(err).toMatchObject({ code: 'invalid_request', status: 400, param });
    expect(err.message).toMatch(message);
  });

  it('n: 1 and logprobs: false change nothing and are not sent', () => {
    const out = translate({ input: 'x', n: 1, logprobs: false });
    expect(out.chat).not.toHaveProperty('n');
    expect(out.chat).not.toHaveProperty('logprobs');
    expect(out.notes).toEqual([]);
    expect(translate({ input: 'x', n: null, logprobs: null }).chat).not.toHaveProperty('n');
  });

  it('max_tool_calls bounds built-in tools, which svir does not run: noted, not sent; a bad one is refused by the schema', () => {
    const out = translate({ input: 'x', max_tool_calls: 3 });
    expect(out.chat).not.toHaveProperty('max_tool_calls');
    expect(out.notes).toEqual(['max_tool_calls not sent (it bounds built-in tool calls, which svir does not run)']);
    expect(responsesRequestSchema.safeParse({ model: 'm', input: 'x', max_tool_calls: -1 }).success).toBe(false);
  });

  it('every field the chat schema reads is a Responses field read, a chat name refused, or n/logprobs: none is passed from the client', () => {
    const handled = new Set([...READ_FIELDS, ...CHAT_NAMES.keys(), 'n', 'logprobs']);
    for (const field of Object.keys(chatRequestSchema.shape)) expect(handled.has(field), field).toBe(true);
  });

  it('other fields with a chat meaning (vendor sampling) are passed on as the chat route passes them', () => {
    const out = translate({ input: 'x', top_k: 20, seed: 3, stop: ['END'], chat_template_kwargs: { enable_thinking: false } });
    expect(out.chat).toMatchObject({ top_k: 20, seed: 3, stop: ['END'], chat_template_kwargs: { enable_thinking: false } });
    expect(out.notes).toEqual([]);
  });
});
