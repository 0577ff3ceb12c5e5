/**
 * Codex CLI's own requests (recorded from Codex 0.169, tests/fixtures/responses/) replayed
 * through svir: the chat request each becomes (developer messages as one system message,
 * the namespace flattened, web_search dropped with a note, the turn-2 reasoning, call and
 * output as an assistant turn and a tool message), and the answer's events as Codex's reader
 * needs them (every item whole in output_item.done, response.completed with total_tokens,
 * a namespaced call returned with its namespace apart).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { sse, startScriptedUpstream, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { chatChunkMaker } from '../helpers/chat-chunk-maker.js';
import { expectResponsesStream } from '../responses/expect-responses-stream.js';
import type { WireEvent } from '../responses/wire-event.js';
import { received, startSvir, SVIR_KEY, type SvirRig } from './backends-rig.js';

const fixture = (name: string): Record<string, unknown> =>
  z.record(z.string(), z.unknown()).parse(JSON.parse(readFileSync(new URL(`../fixtures/responses/${name}`, import.meta.url), 'utf8')));
const turn1 = fixture('codex-request.json');
const turn2 = fixture('codex-request-turn2.json');
const MODEL = 'qwen3.8-27b-lms';

let upstream: ScriptedUpstream;
let svir: SvirRig;

beforeAll(async () => {
  upstream = await startScriptedUpstream();
  svir = await startSvir([{ name: 'lms', type: 'openai', upstream, models: [MODEL] }]);
});
afterAll(async () => {
  await svir.close();
  await upstream.close();
});

const codex = chatChunkMaker({ id: 'chatcmpl-codex', created: 1_796_135_011, model: MODEL });
const { chunk } = codex;
const usage = codex.usage({ prompt_tokens: 9000, completion_tokens: 40, total_tokens: 9040 });

async function post(body: Record<string, unknown>): Promise<{ headers: Headers; events: WireEvent[] }> {
  const response = await fetch(`${svir.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${SVIR_KEY}` },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => JSON.parse(block.split('\n')[1]?.slice('data: '.length) ?? '') as WireEvent);
  return { headers: response.headers, events };
}

const doneItems = (events: readonly WireEvent[]): unknown[] =>
  events.filter((event) => event.type === 'response.output_item.done').map((event) => event['item']);

describe('Codex CLI turn 1 (the prompt)', () => {
  it('becomes a chat request with the developer messages as one system message, the namespace flattened and web_search dropped', async () => {
    upstream.chat({
      kind: 'sse',
      pieces: [
        sse(
          chunk({ role: 'assistant', reasoning_content: 'I will run echo.' }),
          chunk({ tool_calls: [{ index: 0, id: 'call_cap1', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"echo svir-capture"}' } }] }),
          chunk({}, 'tool_calls'),
          usage,
          '[DONE]',
        ),
      ],
    });
    const { headers, events } = await post(turn1);
    const sent = received(upstream, 0);
    const input = z.array(z.looseObject({ content: z.array(z.looseObject({ text: z.string() })) })).parse(turn1['input']);
    const text = (i: number): string => (input[i]?.content ?? []).map((part) => part.text).join('\n');
    expect(sent['messages']).toEqual([
      { role: 'system', content: `${text(0)}\n\n${text(1)}` },
      { role: 'user', content: text(2) },
      { role: 'user', content: text(3) },
    ]);
    const tools = z.array(z.object({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) })).parse(sent['tools']);
    expect(tools.map((tool) => tool.function.name)).toEqual([
      'exec_command',
      'write_stdin',
      'request_user_input',
      'view_image',
      'multi_agent_v1__close_agent',
      'multi_agent_v1__resume_agent',
      'multi_agent_v1__send_input',
      'multi_agent_v1__spawn_agent',
      'multi_agent_v1__wait_agent',
      'get_goal',
      'create_goal',
      'update_goal',
    ]);
    expect(sent).toMatchObject({ model: MODEL, stream: true, tool_choice: 'auto', parallel_tool_calls: true });
    for (const field of ['input', 'store', 'include', 'prompt_cache_key', 'client_metadata', 'reasoning']) expect(sent, field).not.toHaveProperty(field);
    const changes = headers.get('x-svir-changes') ?? '';
    expect(changes).toContain('tools not sent (a chat backend cannot run them): web_search');
    expect(changes).toContain('include reasoning.encrypted_content not honoured');

    expectResponsesStream(events);
    expect(doneItems(events)).toEqual([
      expect.objectContaining({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'I will run echo.' }] }),
      expect.objectContaining({ type: 'function_call', call_id: 'call_cap1', name: 'exec_command', arguments: '{"cmd":"echo svir-capture"}', status: 'completed' }),
    ]);
    const completed = events[events.length - 1];
    expect(completed?.type).toBe('response.completed');
    expect(completed?.['response']).toMatchObject({ id: expect.stringMatching(/^resp_/), usage: { input_tokens: 9000, output_tokens: 40, total_tokens: 9040 } });
    expect(events.some((event) => event.type === 'response.reasoning_summary_text.delta' && event['summary_index'] === 0)).toBe(true);
  });

  it('returns a call of a namespaced tool with its name and namespace apart', async () => {
    upstream.chat({
      kind: 'sse',
      pieces: [
        sse(
          chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_ns', type: 'function', function: { name: 'multi_agent_v1__wait_agent', arguments: '{}' } }] }),
          chunk({}, 'tool_calls'),
          usage,
          '[DONE]',
        ),
      ],
    });
    const { events } = await post(turn1);
    expectResponsesStream(events);
    expect(doneItems(events)).toEqual([expect.objectContaining({ type: 'function_call', call_id: 'call_ns', name: 'wait_agent', namespace: 'multi_agent_v1' })]);
  });
});

describe('Codex CLI turn 2 (after the tool call)', () => {
  it('sends the reasoning, the call and its output back as one assistant turn and a tool message', async () => {
    upstream.chat({ kind: 'sse', pieces: [sse(chunk({ role: 'assistant', content: 'Done: svir-capture.' }), chunk({}, 'stop'), usage, '[DONE]')] });
    const before = upstream.requestsTo('POST', '/v1/chat/completions').length;
    const { events } = await post(turn2);
    const messages = z.array(z.looseObject({ role: z.string() })).parse(received(upstream, before)['messages']);
    const output = z
      .array(z.looseObject({ type: z.string().optional(), output: z.string().optional() }))
      .parse(turn2['input'])
      .find((item) => item.type === 'function_call_output')?.output;
    expect(messages.slice(3)).toEqual([
      {
        role: 'assistant',
        content: null,
        reasoning_content: 'I will run echo.',
        tool_calls: [{ id: 'call_cap1', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"echo svir-capture"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_cap1', content: output },
    ]);
    expectResponsesStream(events);
    expect(doneItems(events)).toEqual([
      { id: expect.stringMatching(/^msg_/), type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Done: svir-capture.', annotations: [] }] },
    ]);
  });

  it('a context overflow after the first event reaches Codex as response.failed with context_length_exceeded', async () => {
    upstream.chat({
      kind: 'sse',
      pieces: [
        sse(chunk({ role: 'assistant', reasoning_content: 'Let me' })),
        sse({ error: { message: "This model's maximum context length is 8192 tokens. However, you requested 9040 tokens.", type: 'invalid_request_error', code: 'context_length_exceeded' } }),
      ],
    });
    const { events } = await post(turn2);
    expectResponsesStream(events);
    const failed = events[events.length - 1];
    expect(failed?.type).toBe('response.failed');
    expect(failed?.['response']).toMatchObject({ status: 'failed', error: { code: 'context_length_exceeded', message: expect.stringContaining('maximum context length') } });
  });
});
