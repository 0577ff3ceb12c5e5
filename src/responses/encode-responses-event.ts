/** One Responses stream event on the wire: `event: <type>` and one `data:` line, LF ends. */
import type { ResponsesEvent } from './response-object.js';

export function encodeResponsesEvent(event: ResponsesEvent): string {
  // JSON.stringify escapes every line break inside strings: the data stays one line.
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
