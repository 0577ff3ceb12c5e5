/**
 * One Responses stream event on the wire: `event: <type>` and one `data:` line (JSON escapes
 * every line break inside a string), LF ends.
 *
 * Speed, for the wire text sink (responses-text-sink.ts): the deltas (one or two per token) are
 * written without an event object: the JSON before the text is two constant pieces around the
 * sequence number and the part's place (made once per part), and only the text is serialized.
 * The events that repeat JSON already made (an item, the response) take it as it is. The bytes
 * are those JSON.stringify gives for the event literals of responses-stream-sink.ts, whose key
 * order they follow (tested on every fixture).
 */
import type { DeltaType, ResponseEventType, ResponsesEvent } from './responses-event.js';

export function encodeResponsesEvent(event: ResponsesEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The JSON between a delta's sequence number and its text: the item, its output index and,
 * for a part, the part's index under its key.
 */
export function deltaPlace(itemId: string, outputIndex: number, index?: { key: 'content_index' | 'summary_index'; value: number }): string {
  const part = index === undefined ? '' : `,"${index.key}":${index.value}`;
  return `,"item_id":${JSON.stringify(itemId)},"output_index":${outputIndex}${part},"delta":`;
}

const HEADS: Readonly<Record<DeltaType, string>> = {
  'response.output_text.delta': head('response.output_text.delta'),
  'response.refusal.delta': head('response.refusal.delta'),
  'response.reasoning_summary_text.delta': head('response.reasoning_summary_text.delta'),
  'response.reasoning_text.delta': head('response.reasoning_text.delta'),
  'response.function_call_arguments.delta': head('response.function_call_arguments.delta'),
};

function head(type: DeltaType): string {
  return `event: ${type}\ndata: {"type":"${type}","sequence_number":`;
}

/** svir sends no logprobs on /v1/responses: output_text deltas carry an empty list. */
const TEXT_TAIL = ',"logprobs":[]}\n\n';

/** A delta event; `place` is deltaPlace's text for the part. */
export function encodeDelta(type: DeltaType, sequence: number, place: string, delta: string): string {
  return `${HEADS[type]}${sequence}${place}${JSON.stringify(delta)}${type === 'response.output_text.delta' ? TEXT_TAIL : '}\n\n'}`;
}

/** An event that carries the whole response, given as its JSON. */
export function encodeResponseEvent(type: ResponseEventType, sequence: number, response: string): string {
  return `event: ${type}\ndata: {"type":"${type}","sequence_number":${sequence},"response":${response}}\n\n`;
}

/** `response.output_item.done`, the item given as its JSON (the final response repeats it). */
export function encodeItemDoneEvent(sequence: number, outputIndex: number, item: string): string {
  return `event: response.output_item.done\ndata: {"type":"response.output_item.done","sequence_number":${sequence},"output_index":${outputIndex},"item":${item}}\n\n`;
}

/** A message part's JSON, its text given as JSON: its closing events and its message repeat it. */
export function encodePart(kind: 'text' | 'refusal', textJson: string): string {
  return kind === 'text' ? `{"type":"output_text","text":${textJson},"annotations":[]}` : `{"type":"refusal","refusal":${textJson}}`;
}

/**
 * A message part's two closing events, `output_text.done` (or `refusal.done`) and
 * `content_part.done` (sequence numbers `sequence` and `next`), from its text's JSON and its
 * own (encodePart).
 */
export function encodePartDone(
  kind: 'text' | 'refusal',
  sequence: number,
  next: number,
  at: { itemId: string; outputIndex: number; contentIndex: number },
  textJson: string,
  partJson: string,
): string {
  const place = `"item_id":${JSON.stringify(at.itemId)},"output_index":${at.outputIndex},"content_index":${at.contentIndex}`;
  const done =
    kind === 'text'
      ? `event: response.output_text.done\ndata: {"type":"response.output_text.done","sequence_number":${sequence},${place},"text":${textJson},"logprobs":[]}\n\n`
      : `event: response.refusal.done\ndata: {"type":"response.refusal.done","sequence_number":${sequence},${place},"refusal":${textJson}}\n\n`;
  return `${done}event: response.content_part.done\ndata: {"type":"response.content_part.done","sequence_number":${next},${place},"part":${partJson}}\n\n`;
}

/** A closed message item's JSON, from its parts' JSON (encodePart), joined by commas. */
export function encodeMessageItem(itemId: string, status: string, partsJson: string): string {
  return `{"id":${JSON.stringify(itemId)},"type":"message","role":"assistant","status":${JSON.stringify(status)},"content":[${partsJson}]}`;
}

/** `response.output_item.added` for an assistant message (in progress, no content yet). */
export function encodeMessageAdded(sequence: number, outputIndex: number, itemId: string): string {
  return (
    `event: response.output_item.added\ndata: {"type":"response.output_item.added","sequence_number":${sequence},"output_index":${outputIndex},` +
    `"item":{"id":${JSON.stringify(itemId)},"type":"message","role":"assistant","status":"in_progress","content":[]}}\n\n`
  );
}

/** `response.content_part.added` for a message's empty output_text or refusal part. */
export function encodePartAdded(kind: 'text' | 'refusal', sequence: number, itemId: string, outputIndex: number, contentIndex: number): string {
  const part = kind === 'text' ? '{"type":"output_text","text":"","annotations":[]}' : '{"type":"refusal","refusal":""}';
  return (
    `event: response.content_part.added\ndata: {"type":"response.content_part.added","sequence_number":${sequence},` +
    `"item_id":${JSON.stringify(itemId)},"output_index":${outputIndex},"content_index":${contentIndex},"part":${part}}\n\n`
  );
}
