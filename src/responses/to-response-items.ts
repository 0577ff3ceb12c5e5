/**
 * Stored input items → the items `GET /v1/responses/{id}/input_items` lists, in the shapes of the
 * `openai` package's `ResponseItem`: a message's string content becomes one text part
 * (`input_text`, or `output_text` for the assistant), and every item says `status: completed`.
 */
import type { InputItem } from './input-item.js';

export function toResponseItems(items: readonly InputItem[]): Record<string, unknown>[] {
  return items.map((item) => {
    if (item.type === 'function_call' || item.type === 'function_call_output' || item.type === 'reasoning') {
      return { ...item, status: 'completed' };
    }
    const assistant = item.role === 'assistant';
    const content =
      typeof item.content === 'string'
        ? [assistant ? { type: 'output_text', text: item.content, annotations: [] } : { type: 'input_text', text: item.content }]
        : item.content;
    return { ...item, type: 'message', status: 'completed', content };
  });
}
