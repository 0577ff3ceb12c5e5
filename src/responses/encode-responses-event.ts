/**
 * One Responses stream event on the wire: `event: <type>` and one `data:` line (JSON escapes
 * every line break inside a string), LF ends. The deltas (one or two per token) are written from
 * their few fields with only the text serialized; the text is byte for byte what
 * JSON.stringify(event) gives for the translator's literals, whose key order it follows.
 */
import type { ResponsesEvent } from './response-object.js';

function slow(event: ResponsesEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The fields every delta event has, when they have the expected types. */
function head(event: ResponsesEvent): string | undefined {
  const { item_id: itemId, output_index: outputIndex } = event;
  if (typeof itemId !== 'string' || typeof outputIndex !== 'number') return undefined;
  return `{"type":"${event.type}","sequence_number":${event.sequence_number},"item_id":${JSON.stringify(itemId)},"output_index":${outputIndex}`;
}

export function encodeResponsesEvent(event: ResponsesEvent): string {
  const type = event.type;
  const delta = event['delta'];
  if (typeof delta !== 'string' || Object.keys(event).length > 7) return slow(event);
  const start = head(event);
  if (start === undefined) return slow(event);
  const index = type === 'response.reasoning_summary_text.delta' ? event['summary_index'] : event['content_index'];
  switch (type) {
    case 'response.output_text.delta':
      if (typeof index !== 'number' || !Array.isArray(event['logprobs']) || event['logprobs'].length > 0) return slow(event);
      return `event: ${type}\ndata: ${start},"content_index":${index},"delta":${JSON.stringify(delta)},"logprobs":[]}\n\n`;
    case 'response.reasoning_text.delta':
    case 'response.refusal.delta':
      if (typeof index !== 'number' || Object.keys(event).length !== 6) return slow(event);
      return `event: ${type}\ndata: ${start},"content_index":${index},"delta":${JSON.stringify(delta)}}\n\n`;
    case 'response.reasoning_summary_text.delta':
      if (typeof index !== 'number' || Object.keys(event).length !== 6) return slow(event);
      return `event: ${type}\ndata: ${start},"summary_index":${index},"delta":${JSON.stringify(delta)}}\n\n`;
    case 'response.function_call_arguments.delta':
      if (Object.keys(event).length !== 5) return slow(event);
      return `event: ${type}\ndata: ${start},"delta":${JSON.stringify(delta)}}\n\n`;
    default:
      return slow(event);
  }
}
