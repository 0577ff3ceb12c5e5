/**
 * The rules every Responses event stream svir emits must keep (docs/contract.md#responses):
 * sequence numbers 0..n-1; response.created first, response.in_progress second; exactly one
 * terminal event (completed, incomplete or failed), last; every *.added closed by its *.done, items
 * one after another; the deltas of a part add up to its done text; each output_item.done carries
 * the whole item, the same item as the final response's output.
 */
import { expect } from 'vitest';
import { field } from './wire-event.js';

/** What is read of every event by name; any other field through `field`. */
interface StreamEvent {
  type: string;
  sequence_number: number;
}

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export function expectResponsesStream(events: readonly StreamEvent[]): void {
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, i) => i));
  expect(events[0]?.type).toBe('response.created');
  expect(events[1]?.type).toBe('response.in_progress');
  const terminals = events.filter((event) => TERMINAL.has(event.type));
  expect(terminals).toHaveLength(1);
  expect(TERMINAL.has(events[events.length - 1]?.type ?? '')).toBe(true);

  const openItems = new Map<number, StreamEvent>();
  const openParts = new Set<string>();
  const texts = new Map<string, string>();
  const doneItems: unknown[] = [];
  let nextIndex = 0;
  for (const event of events) {
    const index = Number(field(event, 'output_index'));
    const partKey = (kind: string, i: unknown): string => `${index}/${kind}/${String(i)}`;
    switch (event.type) {
      case 'response.output_item.added':
        expect(index).toBe(nextIndex);
        expect(openItems.size, 'items go out one after another').toBe(0);
        openItems.set(index, event);
        break;
      case 'response.output_item.done':
        expect(openItems.has(index)).toBe(true);
        expect([...openParts].filter((key) => key.startsWith(`${index}/`)), 'parts closed before their item').toEqual([]);
        openItems.delete(index);
        doneItems[index] = field(event, 'item');
        nextIndex++;
        break;
      case 'response.content_part.added':
        openParts.add(partKey('content', field(event, 'content_index')));
        break;
      case 'response.content_part.done':
        expect(openParts.delete(partKey('content', field(event, 'content_index')))).toBe(true);
        break;
      case 'response.reasoning_summary_part.added':
        openParts.add(partKey('summary', field(event, 'summary_index')));
        break;
      case 'response.reasoning_summary_part.done':
        expect(openParts.delete(partKey('summary', field(event, 'summary_index')))).toBe(true);
        break;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
      case 'response.reasoning_text.delta': {
        const key = partKey('content', field(event, 'content_index'));
        expect(openParts.has(key), `${event.type} inside an open part`).toBe(true);
        texts.set(`${event.type}:${key}`, (texts.get(`${event.type}:${key}`) ?? '') + String(field(event, 'delta')));
        break;
      }
      case 'response.reasoning_summary_text.delta': {
        const key = partKey('summary', field(event, 'summary_index'));
        expect(openParts.has(key)).toBe(true);
        texts.set(`${event.type}:${key}`, (texts.get(`${event.type}:${key}`) ?? '') + String(field(event, 'delta')));
        break;
      }
      case 'response.function_call_arguments.delta':
        expect(openItems.has(index)).toBe(true);
        texts.set(`args:${index}`, (texts.get(`args:${index}`) ?? '') + String(field(event, 'delta')));
        break;
      case 'response.output_text.done':
        expect(field(event, 'text')).toBe(texts.get(`response.output_text.delta:${partKey('content', field(event, 'content_index'))}`) ?? '');
        break;
      case 'response.refusal.done':
        expect(field(event, 'refusal')).toBe(texts.get(`response.refusal.delta:${partKey('content', field(event, 'content_index'))}`) ?? '');
        break;
      case 'response.reasoning_text.done':
        expect(field(event, 'text')).toBe(texts.get(`response.reasoning_text.delta:${partKey('content', field(event, 'content_index'))}`) ?? '');
        break;
      case 'response.reasoning_summary_text.done':
        expect(field(event, 'text')).toBe(
          texts.get(`response.reasoning_summary_text.delta:${partKey('summary', field(event, 'summary_index'))}`) ?? '',
        );
        break;
      case 'response.function_call_arguments.done':
        expect(field(event, 'arguments')).toBe(texts.get(`args:${index}`) ?? '');
        break;
      default:
        break;
    }
  }
  expect(openItems.size).toBe(0);
  expect(openParts.size).toBe(0);
  const last = events[events.length - 1];
  const response = last === undefined ? undefined : field(last, 'response');
  expect(response).toMatchObject({ object: 'response', output: doneItems });
}
