/**
 * The Messages request → clean chat request translation (src/messages/to-chat-request.ts), by
 * table and on Claude Code's own captured requests (tests/fixtures/messages/, from the
 * reference's recorder): what reaches a chat server, and what `x-svir-changes` says was dropped.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { SvirError } from '../../src/errors.js';
import { messagesRequestSchema } from '../../src/messages/messages-request.js';
import { toChatRequest } from '../../src/messages/to-chat-request.js';
import { refusalOf } from '../helpers/refusal-of.js';

function translate(body: Record<string, unknown>, betas: string[] = []) {
  return toChatRequest(messagesRequestSchema.parse({ model: 'm', max_tokens: 100, ...body }), betas);
}

function captured(name: string): Record<string, unknown> {
  const file = JSON.parse(readFileSync(new URL(`../fixtures/messages/${name}.json`, import.meta.url), 'utf8')) as unknown;
  return z.looseObject({ body: z.record(z.string(), z.unknown()) }).parse(file).body;
}

function refusal(body: Record<string, unknown>): SvirError {
  return refusalOf(() => translate(body));
}

describe("Claude Code's first turn (captured)", () => {
  const body = captured('claude-code-turn1');
  const { chat, notes } = toChatRequest(messagesRequestSchema.parse(body), ['claude-code-20250219', 'interleaved-thinking-2025-05-14']);

  it('one leading system message: the system blocks and the mid-list system message, joined by a blank line, no billing header', () => {
    const roles = chat.messages.map((m) => m.role);
    expect(roles[0]).toBe('system');
    expect(roles.slice(1)).not.toContain('system');
    const system = String(chat.messages[0]?.content);
    expect(system.startsWith("You are a Claude agent, built on Anthropic's Claude Agent SDK.\n\n")).toBe(true);
    expect(system).toContain('# Environment');
    expect(system).not.toContain('x-anthropic-billing-header');
    expect(roles.slice(1)).toEqual(['user']);
  });

  it('tools as functions, the deferred placeholder left out; max_tokens and effort as asked', () => {
    const names = (chat.tools ?? []).map((t) => t.function.name);
    expect(names).toContain('Bash');
    expect(names).not.toContain('DeferredToolPlaceholder');
    const bash = chat.tools?.find((t) => t.function.name === 'Bash');
    expect(bash?.function.parameters).toMatchObject({ type: 'object' });
    expect(chat.max_tokens).toBe(32000);
    expect(chat.reasoning_effort).toBe('high');
    expect(chat.stream).toBe(true);
    for (const field of ['metadata', 'context_management', 'thinking', 'output_config', 'system']) expect(chat).not.toHaveProperty(field);
  });

  it('says what it dropped', () => {
    expect(notes).toEqual(
      expect.arrayContaining([
        'x-anthropic-billing-header system block dropped',
        'cache_control dropped (the backend caches prompt prefixes itself)',
        'system messages inside messages moved into the leading system message',
        'deferred tools dropped (defer_loading: no tool search here): DeferredToolPlaceholder',
        'thinking.display dropped',
        'metadata dropped',
        'context_management dropped (svir keeps no context edits)',
        'anthropic-beta not honoured: claude-code-20250219 interleaved-thinking-2025-05-14',
      ]),
    );
  });
});

describe("Claude Code's second turn (captured): the tool round trip", () => {
  const { chat } = toChatRequest(messagesRequestSchema.parse(captured('claude-code-turn2')));
  const messages = chat.messages;

  it('the assistant turn comes back as one message: its reasoning, text and the Bash call; the result as a tool message right after', () => {
    const at = messages.findIndex((m) => m.role === 'assistant');
    const assistant = messages[at];
    expect(assistant?.['reasoning_content']).toEqual(expect.any(String));
    const calls = z.array(z.looseObject({ id: z.string(), function: z.looseObject({ name: z.string(), arguments: z.string() }) })).parse(assistant?.['tool_calls']);
    expect(calls).toHaveLength(1);
    expect(calls[0]?.function.name).toBe('Bash');
    expect(JSON.parse(calls[0]?.function.arguments ?? '')).toMatchObject({ command: 'echo svir-roundtrip' });
    const result = messages[at + 1];
    expect(result).toMatchObject({ role: 'tool', tool_call_id: calls[0]?.id, content: 'svir-roundtrip' });
  });
});

describe('messages, by table', () => {
  it.each([
    ['a string system and a string user message', { system: 'Be brief.', messages: [{ role: 'user', content: 'Hi' }] }, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]],
    [
      'system blocks and a system message folded into one, joined by a blank line',
      {
        system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }],
        messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'C' }, { role: 'assistant', content: 'Yes' }, { role: 'system', content: [{ type: 'text', text: 'D' }] }],
      },
      [{ role: 'system', content: 'A\n\nB\n\nC\n\nD' }, { role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Yes' }],
    ],
    [
      'text blocks joined, an image as a data URL part and a URL part',
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' } },
              { type: 'image', source: { type: 'url', url: 'https://example.test/a.png' } },
            ],
          },
        ],
      },
      [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR' } },
            { type: 'image_url', image_url: { url: 'https://example.test/a.png' } },
          ],
        },
      ],
    ],
    [
      'tool results first (in order), the user text after them; is_error said; image results as parts',
      {
        messages: [
          { role: 'user', content: 'Go' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Two calls.', signature: '' },
              { type: 'text', text: 'Running.' },
              { type: 'tool_use', id: 'toolu_1', name: 'a', input: { x: 1 } },
              { type: 'tool_use', id: 'toolu_2', name: 'b', input: {} },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }] },
              { type: 'tool_result', tool_use_id: 'toolu_2', is_error: true, content: 'no such file' },
              { type: 'text', text: 'And now?' },
            ],
          },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: 'toolu_3', name: 'shot', input: {} }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] }] },
        ],
      },
      [
        { role: 'user', content: 'Go' },
        {
          role: 'assistant',
          content: 'Running.',
          reasoning_content: 'Two calls.',
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'b', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'one\n\ntwo' },
        { role: 'tool', tool_call_id: 'toolu_2', content: 'Error: no such file' },
        { role: 'user', content: 'And now?' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_3', type: 'function', function: { name: 'shot', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'toolu_3', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
      ],
    ],
    [
      'a text document as text, with its title',
      { messages: [{ role: 'user', content: [{ type: 'document', title: 'notes.txt', source: { type: 'text', media_type: 'text/plain', data: 'line' } }] }] },
      [{ role: 'user', content: 'notes.txt\n\nline' }],
    ],
  ])('%s', (_name, body, expected) => {
    expect(translate(body).chat.messages).toEqual(expected);
  });

  it('drops what a chat server cannot take, and says so', () => {
    const { chat, notes } = translate({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'xyz' }, { type: 'server_tool_use', id: 's', name: 'web_search', input: {} }, { type: 'text', text: 'Hello' }] },
        { role: 'user', content: [{ type: 'text', text: 'More', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
      ],
    });
    expect(chat.messages).toEqual([{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: 'More' }]);
    expect(notes).toEqual([
      'redacted_thinking dropped (only Anthropic can read it)',
      'server_tool_use blocks dropped (a chat server has no such input)',
      'cache_control dropped (the backend caches prompt prefixes itself)',
    ]);
  });

  it.each([
    ['an image by file id', { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] }, 'messages[0].content[0]', 400],
    ['a PDF', { messages: [{ role: 'user', content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' } }] }] }, 'messages[0].content[0]', 400],
    ['a message without a role', { messages: [{ content: 'Hi' }] }, 'messages[0]', 400],
    ['a tool_use without its id', { messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: [{ type: 'tool_use', name: 'a', input: {} }] }] }, 'messages[1].content[0]', 400],
    ['only a system message', { system: 'S', messages: [] }, 'messages', 400],
    ['a tool_choice naming a tool not offered', { messages: [{ role: 'user', content: 'Hi' }], tools: [{ name: 'a', input_schema: { type: 'object' } }], tool_choice: { type: 'tool', name: 'b' } }, 'tool_choice.name', 400],
  ])('refuses %s (400, naming where)', (_name, body, param, status) => {
    const err = refusal(body);
    expect(err.status).toBe(status);
    expect(err.param).toBe(param);
  });
});

describe('parameters, by table', () => {
  const tools = [{ name: 'a', description: 'A tool', input_schema: { type: 'object', properties: {} } }];
  const messages = [{ role: 'user', content: 'Hi' }];
  it.each([
    ['tool_choice auto', { tool_choice: { type: 'auto' } }, { tool_choice: 'auto' }],
    ['tool_choice any', { tool_choice: { type: 'any' } }, { tool_choice: 'required' }],
    ['tool_choice tool', { tool_choice: { type: 'tool', name: 'a' } }, { tool_choice: { type: 'function', function: { name: 'a' } } }],
    ['tool_choice none', { tool_choice: { type: 'none' } }, { tool_choice: 'none' }],
    ['disable_parallel_tool_use', { tool_choice: { type: 'auto', disable_parallel_tool_use: true } }, { tool_choice: 'auto', parallel_tool_calls: false }],
    ['thinking disabled turns reasoning off', { thinking: { type: 'disabled' }, output_config: { effort: 'high' } }, { reasoning_effort: 'none' }],
    ['output_config.effort', { thinking: { type: 'adaptive' }, output_config: { effort: 'medium' } }, { reasoning_effort: 'medium' }],
    ['effort max is xhigh', { output_config: { effort: 'max' } }, { reasoning_effort: 'xhigh' }],
    ['a small budget is low', { thinking: { type: 'enabled', budget_tokens: 1024 } }, { reasoning_effort: 'low' }],
    ['a middle budget is medium', { thinking: { type: 'enabled', budget_tokens: 4096 } }, { reasoning_effort: 'medium' }],
    ['Claude Code\'s budget is high', { thinking: { type: 'enabled', budget_tokens: 31999 } }, { reasoning_effort: 'high' }],
    ['stop_sequences are stop', { stop_sequences: ['END', '###'] }, { stop: ['END', '###'] }],
    ['sampling passed', { temperature: 0.2, top_p: 0.9, top_k: 40 }, { temperature: 0.2, top_p: 0.9, top_k: 40 }],
    ['a JSON schema output', { output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } }, { response_format: { type: 'json_schema', json_schema: { name: 'output', schema: { type: 'object' } } } }],
  ])('%s', (_name, body, expected) => {
    expect(translate({ messages, tools, ...body }).chat).toMatchObject(expected);
  });

  it('adaptive thinking alone leaves the server\'s default effort', () => {
    expect(translate({ messages, thinking: { type: 'adaptive' } }).chat).not.toHaveProperty('reasoning_effort');
  });

  it('tools become functions; server tools and deferred tools are dropped with a note; a choice without tools left is not sent', () => {
    const { chat, notes } = translate({
      messages,
      tools: [{ type: 'web_search_20250305', name: 'web_search' }, { name: 'later', input_schema: { type: 'object' }, defer_loading: true }],
      tool_choice: { type: 'any' },
    });
    expect(chat).not.toHaveProperty('tools');
    expect(chat).not.toHaveProperty('tool_choice');
    expect(notes).toEqual(['deferred tools dropped (defer_loading: no tool search here): later', 'server tools dropped (Anthropic runs them): web_search']);
    expect(translate({ messages, tools }).chat.tools).toEqual([{ type: 'function', function: { name: 'a', description: 'A tool', parameters: { type: 'object', properties: {} } } }]);
  });

  it('an unknown field is dropped with a note, never forwarded', () => {
    const { chat, notes } = translate({ messages, safeguards: { dangerous_tool_use: {} }, container: 'c' });
    expect(chat).not.toHaveProperty('safeguards');
    expect(chat).not.toHaveProperty('container');
    expect(notes).toEqual(['fields unknown to a chat server dropped: safeguards container']);
  });
});
