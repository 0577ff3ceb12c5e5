/**
 * The Messages stream, written as a sink of the item machine (src/items/README.md): each item
 * becomes content blocks numbered 0, 1, 2... one open at a time: reasoning a `thinking` block
 * (`signature: ""`, never a real-looking fake), each text or refusal part a `text` block, each
 * call a `tool_use` block (the server's call id, its whole name, `input: {}`, then
 * `input_json_delta` pieces that join to exactly the call's arguments). `message_start` first
 * (with an estimate of the input tokens, since the server counts them only at the end), then
 * `message_delta` with the stop reason (stop-reason.ts) and the cumulative usage, then
 * `message_stop`. A failure closes the open block (the machine does) and ends with one
 * `event: error`. Every event carries its `event:` line: the SDKs skip unnamed ones.
 *
 * The text is gathered in `out` as the machine calls, and taken once per upstream read.
 */
import type { ItemSink, ItemsEnd } from '../items/item-sink.js';
import type { Usage } from '../normalize/parts.js';
import { encodeMessagesError, type MessagesFailure } from './messages-failure.js';
import { toMessagesUsage } from './messages-usage.js';
import { stopReason } from './stop-reason.js';

export interface MessagesStreamInit {
  id: string;
  /** The model the client named. */
  model: string;
  /** svir's estimate of the prompt's tokens, for `message_start` (the real count comes in `message_delta`). */
  inputEstimate: number;
  requestId: string;
}

export class MessagesStreamSink implements ItemSink<MessagesFailure> {
  private readonly init: MessagesStreamInit;
  /** The next block's index. */
  private next = 0;
  /** The open block's `index` and the tail of its deltas (`,"delta":{"type":"…","…":`). */
  private open = '';
  private calledTool = false;
  out = '';

  constructor(init: MessagesStreamInit) {
    this.init = init;
  }

  /** The text made since the last take. */
  take(): string {
    const text = this.out;
    this.out = '';
    return text;
  }

  start(): void {
    const { id, model, inputEstimate } = this.init;
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: toMessagesUsage(undefined, inputEstimate),
    };
    this.out += `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message })}\n\n`;
  }

  private startBlock(block: string, delta: string): void {
    const index = this.next++;
    this.open = `{"type":"content_block_delta","index":${index},"delta":{"type":"${delta}","`;
    this.out += `event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":${block}}\n\n`;
  }

  private delta(key: string, text: string): void {
    this.out += `event: content_block_delta\ndata: ${this.open}${key}":${JSON.stringify(text)}}}\n\n`;
  }

  private stopBlock(): void {
    this.out += `event: content_block_stop\ndata: {"type":"content_block_stop","index":${this.next - 1}}\n\n`;
  }

  openReasoning(): void {
    this.startBlock('{"type":"thinking","thinking":"","signature":""}', 'thinking_delta');
  }

  reasoningDelta(text: string): void {
    this.delta('thinking', text);
  }

  closeReasoning(): void {
    this.stopBlock();
  }

  openMessage(): void {}

  openPart(): void {
    this.startBlock('{"type":"text","text":""}', 'text_delta');
  }

  partDelta(_kind: string, text: string): void {
    this.delta('text', text);
  }

  closePart(): void {
    this.stopBlock();
  }

  closeMessage(): void {}

  openCall(_item: number, callId: string, name: string): void {
    this.calledTool = true;
    this.startBlock(`{"type":"tool_use","id":${JSON.stringify(callId)},"name":${JSON.stringify(name)},"input":{}}`, 'input_json_delta');
  }

  callDelta(args: string): void {
    this.delta('partial_json', args);
  }

  closeCall(): void {
    this.stopBlock();
  }

  finish(end: ItemsEnd): void {
    const delta = { stop_reason: stopReason(end.reason, this.calledTool), stop_sequence: null };
    const usage = toMessagesUsage(end.usage, this.init.inputEstimate);
    this.out +=
      `event: message_delta\ndata: ${JSON.stringify({ type: 'message_delta', delta, usage })}\n\n` +
      'event: message_stop\ndata: {"type":"message_stop"}\n\n';
  }

  fail(failure: MessagesFailure, _usage: Usage | undefined): void {
    this.out += encodeMessagesError(failure, this.init.requestId);
  }
}
