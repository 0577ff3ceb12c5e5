/**
 * `stream: false`: the same item machine, folded into one Messages `message` object (the
 * content blocks the stream would have carried, whole). A failure is the HTTP error: `fail`
 * keeps it for the route to throw.
 */
import type { ItemSink, ItemsEnd } from '../items/item-sink.js';
import type { MessagesFailure } from './messages-failure.js';
import { toMessagesUsage, type MessagesUsage } from './messages-usage.js';
import { stopReason, type StopReason } from './stop-reason.js';

export type ContentBlock =
  | { type: 'thinking'; thinking: string; signature: '' }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface MessageObject {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: ContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence: null;
  usage: MessagesUsage;
}

/** A call's arguments as its `input`: the object they hold ({} for none or for text that is no JSON object). */
function inputOf(args: string): unknown {
  if (args.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(args);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

export class MessageFoldSink implements ItemSink<MessagesFailure> {
  readonly message: MessageObject;
  private readonly inputEstimate: number;
  private call: { id: string; name: string } | undefined;
  private calledTool = false;
  failure: MessagesFailure | undefined;

  constructor(init: { id: string; model: string; inputEstimate: number }) {
    this.inputEstimate = init.inputEstimate;
    this.message = {
      id: init.id,
      type: 'message',
      role: 'assistant',
      model: init.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: toMessagesUsage(undefined, init.inputEstimate),
    };
  }

  start(): void {}
  openReasoning(): void {}
  reasoningDelta(): void {}
  closeReasoning(text: string): void {
    this.message.content.push({ type: 'thinking', thinking: text, signature: '' });
  }
  openMessage(): void {}
  openPart(): void {}
  partDelta(): void {}
  closePart(_kind: string, text: string): void {
    this.message.content.push({ type: 'text', text });
  }
  closeMessage(): void {}
  openCall(_item: number, callId: string, name: string): void {
    this.calledTool = true;
    this.call = { id: callId, name };
  }
  callDelta(): void {}
  closeCall(args: string): void {
    const call = this.call ?? { id: '', name: '' };
    this.message.content.push({ type: 'tool_use', id: call.id, name: call.name, input: inputOf(args) });
    this.call = undefined;
  }
  finish(end: ItemsEnd): void {
    this.message.stop_reason = stopReason(end.reason, this.calledTool);
    this.message.usage = toMessagesUsage(end.usage, this.inputEstimate);
  }
  fail(failure: MessagesFailure): void {
    this.failure = failure;
  }
}
