/**
 * A response's output items → the input items the store keeps for the next turn (the shapes are
 * the same). Built from svir's own typed items rather than read again through the input
 * schemas: the keys in the order those schemas' parse gives them (its fields first, then
 * `status`), so what `GET .../input_items` later lists of them is byte for byte the same.
 */
import type { FunctionCallItem, InputItem, MessageItem, ReasoningItem } from './input-item.js';
import type { OutputItem } from './response-object.js';

export function outputAsInput(output: readonly OutputItem[]): InputItem[] {
  return output.map((item): InputItem => {
    if (item.type === 'message') {
      const content: MessageItem['content'] = item.content.map((part) =>
        part.type === 'output_text' ? { type: part.type, text: part.text, annotations: part.annotations } : { type: part.type, refusal: part.refusal },
      );
      return { type: item.type, id: item.id, role: item.role, content, status: item.status };
    }
    if (item.type === 'reasoning') {
      const reasoning: ReasoningItem = {
        type: item.type,
        id: item.id,
        summary: item.summary.map((part) => ({ type: part.type, text: part.text })),
        content: item.content.map((part) => ({ type: part.type, text: part.text })),
        status: item.status,
      };
      return reasoning;
    }
    const { namespace } = item;
    const call: FunctionCallItem =
      namespace === undefined
        ? { type: item.type, id: item.id, call_id: item.call_id, name: item.name, arguments: item.arguments, status: item.status }
        : { type: item.type, id: item.id, call_id: item.call_id, name: item.name, namespace, arguments: item.arguments, status: item.status };
    return call;
  });
}
