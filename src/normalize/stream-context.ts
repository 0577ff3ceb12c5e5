/**
 * The request's facts a stream is read with. They live in normalize/, the lowest layer that reads
 * them, so that adapters import them from here and no import runs back up.
 */
import type { StreamMemo } from './stream-memo.js';
import type { ReasoningMarkers } from './think-tag-splitter.js';

/** How `<think>` tags in content are read (config `reasoningTags`, docs/contract.md#configuration). */
export type ReasoningTags = 'auto' | 'open' | 'off';

/** What the normalizer and readEvent need to know about the request that opened the stream. */
export interface StreamContext {
  /** The model string the client sent: every clean chunk carries it. */
  model: string;
  /** The backend's name, for error messages. */
  backend: string;
  /** Names of the tools offered upstream, to tell when a streamed name is whole. */
  toolNames: readonly string[];
  /** The client asked for `stream_options.include_usage`. */
  includeUsage: boolean;
  /** The client asked for logprobs. */
  logprobs: boolean;
  /** The client asked for structured output (`json_schema` or `json_object`). */
  structuredOutput: boolean;
  /**
   * How `<think>` tags in content are read: `auto` (a think block that opens the answer), `open`
   * (the template opened it: the answer starts as reasoning), `off` (text). The backend's config,
   * else its type's default (reasoningTagsOf).
   */
  reasoningTags: ReasoningTags;
  /**
   * The marker pairs a reasoning block in content may open with (the adapter's
   * `reasoningMarkers`); absent: `<think>` alone.
   */
  reasoningMarkers?: readonly [ReasoningMarkers, ...ReasoningMarkers[]];
  /**
   * The request as sent turned reasoning off (`reasoning_effort: "none"`, `enable_thinking:
   * false`, ...): a template that opens `<think>` did not, so `open` reads as `auto`.
   */
  reasoningOff: boolean;
  /** The delta key reasoning goes out under (config `reasoning.field`). */
  reasoningField: string;
  /**
   * The request said `parallel_tool_calls: false` (the Messages route's
   * `disable_parallel_tool_use` too): only the first call goes out, later ones are dropped with
   * a note. A server may not hold to it.
   */
  singleToolCall?: boolean;
  /** The context the backend gives a request, where svir knows it: an overflow's message says it when the server does not. */
  contextLength?: number;
  /** Configured keys, scrubbed from a server's error inside the stream that echoes one. */
  secrets?: readonly string[];
  /**
   * The stream's own memo for its event reader (stream-memo.ts): made with the context, one per
   * stream, so that nothing a reader remembers is shared between streams.
   */
  readonly memo: StreamMemo;
}
