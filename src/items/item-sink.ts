/**
 * What the item machine (item-machine.ts) tells its sink: the output items of one answer, opened
 * and closed one after another, their text piece by piece, then the end. One sink per output of
 * a front (events, wire text, a folded object); the sink decides the output's shape, the machine
 * the order. The contract, call by call, is src/items/README.md.
 */
import type { FinishReason } from '../normalize/clean-chunk.js';
import type { Usage } from '../normalize/parts.js';

/**
 * How an item ended: `completed`, or `incomplete` when the answer was cut in it (finish reason
 * `length` or `content_filter`) or the stream failed while it was open.
 */
export type ItemStatus = 'completed' | 'incomplete';

/** A message's part: answer text or a refusal. */
export type PartKind = 'text' | 'refusal';

/** The end of a clean stream that completed. */
export interface ItemsEnd {
  /** The clean stream's finish reason; undefined when the stream ended without one. */
  reason: FinishReason | undefined;
  /** Whether the answer was cut (`length`, `content_filter`): the open item closed `incomplete`. */
  cut: boolean;
  /** The last usage the stream carried, if any. */
  usage: Usage | undefined;
}

export interface ItemSink<Failure> {
  /** Once, first: the first chunk arrived (or the stream ended or failed before any). */
  start(): void;

  /** A reasoning item opens as output item `item` (0, 1, 2... across all kinds). */
  openReasoning(item: number): void;
  /** A piece of its text (never empty). */
  reasoningDelta(text: string): void;
  /** It closes: `text` is all its pieces joined. */
  closeReasoning(text: string, status: ItemStatus): void;

  /** An assistant message item opens as output item `item`; its first part opens next. */
  openMessage(item: number): void;
  /** A part of the open message opens as its part `part` (0, 1...): one open at a time. */
  openPart(kind: PartKind, part: number): void;
  /** A piece of the open part's text (never empty). */
  partDelta(kind: PartKind, text: string): void;
  /** The open part closes: `text` is all its pieces joined. */
  closePart(kind: PartKind, text: string): void;
  /** The message closes (its last part closed just before). */
  closeMessage(status: ItemStatus): void;

  /** A function call item opens as output item `item`, with the call's id and chat name ('' when the server sent none). */
  openCall(item: number, callId: string, name: string): void;
  /** A piece of its arguments (never empty). */
  callDelta(args: string): void;
  /** It closes: `args` is all its pieces joined. */
  closeCall(args: string, status: ItemStatus): void;

  /** Last, once: the stream completed (the open item closed just before). */
  finish(end: ItemsEnd): void;
  /** Last, once, instead of finish: the stream failed (the open item closed `incomplete` just before). */
  fail(failure: Failure, usage: Usage | undefined): void;
}
