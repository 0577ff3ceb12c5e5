/**
 * What every adapter shares: the upstream call always streams with usage under the server's
 * model id, tool turns pass untouched, and every change phrase fits the comma-separated changes
 * header.
 */
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/index.js';
import { BACKEND_TYPES } from '../../src/config/schema.js';
import { chat, lockerTool, weatherTool } from './chat.js';
import { makeBackend } from './make-backend.js';

const toolTurns = [
  { role: 'user', content: 'Open locker 4' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'open_locker', arguments: '{"number":4}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: 'opened' },
];

/** Requests that make each adapter change as much as it can. */
const busyRequests: Record<string, unknown>[] = [
  {
    messages: [{ role: 'system', content: [{ type: 'text', text: 'Be brief.' }] }, ...toolTurns, { role: 'assistant', content: 'Done', reasoning: 'R' }, { role: 'user', content: 'Again' }],
    tools: [weatherTool, lockerTool],
    tool_choice: { type: 'function', function: { name: 'open_locker' } },
    response_format: { type: 'json_object' },
    reasoning_effort: 'high',
    max_completion_tokens: 10,
  },
  { tools: [lockerTool], tool_choice: 'none', response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } }, reasoning_effort: 'none' },
  { tools: [lockerTool], tool_choice: 'required' },
  { tool_choice: 'auto', tools: [] },
];

describe('every adapter', () => {
  for (const type of BACKEND_TYPES) {
    const adapter = getAdapter(type);
    const backend = makeBackend(type, { effortTemplateKey: type === 'llamacpp' ? 'reasoning_strength' : undefined });

    it(`${type}: streams with usage under the server's model id, tool turns untouched`, () => {
      const result = adapter.toUpstream(chat({ messages: toolTurns, stream: false }), backend, 'server-id');
      if (!result.ok) throw result.error;
      expect(result.call.body.model).toBe('server-id');
      expect(result.call.body.stream).toBe(true);
      expect(result.call.body.stream_options).toEqual({ include_usage: true });
      expect(result.call.body.messages).toEqual(toolTurns);
    });

    it(`${type}: passes fields svir does not know on to the server as sent`, () => {
      // Server-specific sampling knobs and anything newer than svir's schema (issue 2).
      const extras = {
        top_k: 40,
        min_p: 0.05,
        repeat_penalty: 1.1,
        mirostat: 0,
        x_vendor_option: { nested: [1, 'two', null, { three: true }] },
      };
      const result = adapter.toUpstream(chat({ ...extras, temperature: 0.2 }), backend, 'server-id');
      if (!result.ok) throw result.error;
      expect(result.call.body).toMatchObject({ ...extras, temperature: 0.2 });
      expect(result.call.changes).toEqual([]);
    });

    it(`${type}: every change phrase fits the changes header (no comma, no line break)`, () => {
      const phrases = busyRequests.flatMap((fields) => {
        const result = adapter.toUpstream(chat(fields), backend, 'server-id');
        if (!result.ok) throw result.error;
        return result.call.changes;
      });
      for (const phrase of phrases) expect(phrase).toMatch(/^[^,\r\n]+$/);
    });
  }
});
