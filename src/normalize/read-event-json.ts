/**
 * The first step of both chunk readers (chat and legacy completions): one SSE event → either the
 * parts that say all it holds (the server's `event: error`, nothing, `[DONE]`, text that is not
 * JSON) or the chunk's JSON with its text, for the reader to read the chunk from.
 */
import type { StreamContext } from './stream-context.js';
import type { Part, SseEvent } from './parts.js';
import { streamErrorPart, unreadablePart } from './stream-error-part.js';

export interface EventJson {
  /** The event's data, trimmed: the server's words when the chunk turns out to be an error. */
  data: string;
  json: unknown;
}

export function readEventJson(event: SseEvent, ctx: StreamContext): Part[] | EventJson {
  if (event.event === 'error') return [streamErrorPart(event.data, ctx)];
  // Chunks come as plain (`message`) events; other types are not part of this protocol
  // (docs/wire-protocol.md#sse-framing), and an EventSource would not hand them to a message
  // listener either.
  if (event.event !== undefined) return [];
  const data = event.data.trim();
  // An event without data carries no chunk (some servers send one to keep the line open).
  if (data.length === 0) return [];
  if (data === '[DONE]') return [{ kind: 'done' }];
  try {
    return { data, json: JSON.parse(data) };
  } catch {
    return [unreadablePart(ctx, 'a chunk that is not JSON')];
  }
}
