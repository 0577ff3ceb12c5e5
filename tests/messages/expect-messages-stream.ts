/**
 * The Messages stream rules (docs/messages.md), checked on parsed events: `event:` equal to the
 * data's type, `message_start` first, blocks indexed 0, 1, 2... one open at a time, each
 * started, given deltas of its own kind, and stopped; `input_json_delta` pieces joining to JSON;
 * `stop_reason: tool_use` whenever a tool_use block went out; then `message_delta` and
 * `message_stop` last, or one `error` event last with every block closed.
 */
import { expect } from 'vitest';
import { z } from 'zod';

export const messagesEventSchema = z.looseObject({ type: z.string() });
export type MessagesEvent = z.infer<typeof messagesEventSchema> & Record<string, unknown>;

/** The events of an SSE text, each `event:` line checked against its data's type. */
export function parseMessagesEvents(text: string): MessagesEvent[] {
  const events: MessagesEvent[] = [];
  for (const frame of text.split('\n\n')) {
    if (frame.trim() === '') continue;
    const lines = frame.split('\n');
    const name = /^event: (.+)$/.exec(lines[0] ?? '')?.[1];
    const data = /^data: (.+)$/s.exec(lines[1] ?? '')?.[1];
    expect(name, `a frame without its event: line: ${frame}`).toBeDefined();
    expect(lines).toHaveLength(2);
    const event = messagesEventSchema.parse(JSON.parse(data ?? 'null'));
    expect(event.type).toBe(name);
    events.push(event);
  }
  return events;
}

const blockStart = z.looseObject({ index: z.number(), content_block: z.looseObject({ type: z.string() }) });
const blockDelta = z.looseObject({ index: z.number(), delta: z.looseObject({ type: z.string(), partial_json: z.string().optional() }) });
const blockStop = z.looseObject({ index: z.number() });
const messageDelta = z.looseObject({ delta: z.looseObject({ stop_reason: z.string().nullable() }), usage: z.looseObject({ output_tokens: z.number() }) });

const DELTA_OF: Record<string, string> = { text: 'text_delta', thinking: 'thinking_delta', tool_use: 'input_json_delta' };

export function expectMessagesStream(events: readonly MessagesEvent[]): void {
  const body = events.filter((event) => event.type !== 'ping');
  expect(body[0]?.type).toBe('message_start');
  let next = 0;
  let open: { index: number; type: string; json: string } | undefined;
  let toolUse = false;
  let ended = false;
  for (const event of body.slice(1)) {
    expect(ended, `an event after the end: ${event.type}`).toBe(false);
    switch (event.type) {
      case 'content_block_start': {
        expect(open, 'a block started while another is open').toBeUndefined();
        const start = blockStart.parse(event);
        expect(start.index).toBe(next);
        next += 1;
        open = { index: start.index, type: start.content_block.type, json: '' };
        if (start.content_block.type === 'tool_use') toolUse = true;
        break;
      }
      case 'content_block_delta': {
        const delta = blockDelta.parse(event);
        expect(open?.index).toBe(delta.index);
        expect(delta.delta.type).toBe(DELTA_OF[open?.type ?? '']);
        if (open !== undefined && delta.delta.partial_json !== undefined) open.json += delta.delta.partial_json;
        break;
      }
      case 'content_block_stop': {
        expect(open?.index).toBe(blockStop.parse(event).index);
        if (open?.type === 'tool_use' && open.json !== '') expect(() => JSON.parse(open?.json ?? '') as unknown).not.toThrow();
        open = undefined;
        break;
      }
      case 'message_delta': {
        expect(open, 'message_delta with a block open').toBeUndefined();
        const stop = messageDelta.parse(event).delta.stop_reason;
        if (toolUse) expect(stop).toBe('tool_use');
        else expect(stop).not.toBe('tool_use');
        break;
      }
      case 'message_stop':
      case 'error':
        expect(open, `${event.type} with a block open`).toBeUndefined();
        ended = true;
        break;
      default:
        throw new Error(`an unknown event: ${event.type}`);
    }
  }
  expect(ended, 'the stream ended without message_stop or error').toBe(true);
}
