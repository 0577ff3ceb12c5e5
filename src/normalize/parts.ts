/**
 * Neutral parts: what an adapter reads out of one upstream SSE event, whatever the server's
 * dialect. The normalizer turns a sequence of parts into clean chunks. Pure data.
 */
import type { SvirError } from '../errors.js';

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  completion_tokens_details?: { reasoning_tokens: number };
  prompt_tokens_details?: { cached_tokens: number };
}

export type Part =
  /** Chunk identity, from any chunk that carries it (empty strings and 0 are absent). */
  | { kind: 'meta'; id?: string; created?: number }
  /** Answer text. May contain `<think>` markers: the normalizer splits them per `reasoningTags`. */
  | { kind: 'content'; text: string }
  /** Reasoning text, from any carrier key. */
  | { kind: 'reasoning'; text: string }
  | { kind: 'refusal'; text: string }
  /** One piece of a tool call, keyed by the server's index (an index-less piece: its place in the delta). */
  | { kind: 'tool'; index: number; id?: string; name?: string; arguments?: string }
  /** Logprobs the server sent for this chunk's choice (only forwarded when the client asked). */
  | { kind: 'logprobs'; value: unknown }
  /** The server's finish reason, raw (`stop`, `length`, `tool_calls`, `content_filter`, `eos`, ...). */
  | { kind: 'finish'; reason: string }
  /** A content-filter verdict that blocked the answer (Azure `filtered: true`), with or without a finish. */
  | { kind: 'filtered' }
  | { kind: 'usage'; usage: Usage }
  /** The server failed inside the stream (error chunk, `event: error`). */
  | { kind: 'error'; error: SvirError }
  /** `data: [DONE]`. */
  | { kind: 'done' };

/** One decoded SSE event, as the decoder hands it over. */
export interface SseEvent {
  /** The `event:` field; undefined when absent (which means "message"). */
  event: string | undefined;
  data: string;
}
