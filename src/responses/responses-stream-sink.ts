/**
 * The item machine's sink for a streamed Responses answer: each item call of the machine
 * (src/items/README.md) becomes its Responses events, in the order docs/responses.md lists them,
 * built on the response draft (response-draft.ts) that folds the same calls. Every event's
 * `sequence_number` is taken from `next()`, counting from 0. The order of events is written here
 * only; a subclass says what an event becomes (`emit`): an object (responses-event-sink.ts) or
 * its wire text (responses-text-sink.ts).
 */
import type { ItemsEnd, ItemSink, ItemStatus, PartKind } from '../items/item-sink.js';
import type { Usage } from '../normalize/parts.js';
import type { ResponseDraft, ResponseError } from './response-draft.js';
import type { ResponseEventType, ResponsesEvent } from './responses-event.js';

/** A sink that collects what it made since the last take (one machine call's events, or their text). */
export interface ResponsesOutput<Out> extends ItemSink<ResponseError> {
  take(): Out;
}

export abstract class ResponsesStreamSink<Out> implements ResponsesOutput<Out> {
  protected readonly draft: ResponseDraft;
  private sequence = 0;

  constructor(draft: ResponseDraft) {
    this.draft = draft;
  }

  /** What was made since the last take. */
  abstract take(): Out;

  /** One event goes out. */
  protected abstract emit(event: ResponsesEvent): void;

  /** The next event's sequence number. */
  protected next(): number {
    return this.sequence++;
  }

  /** An event that carries the whole response as it stands. */
  protected emitResponse(type: ResponseEventType): void {
    this.emit({ type, sequence_number: this.next(), response: this.draft.copy() });
  }

  /** `output_item.done` for the item just closed. */
  protected emitItemDone(): void {
    const index = this.draft.itemIndex;
    const item = this.draft.output[index];
    if (item !== undefined) this.emit({ type: 'response.output_item.done', sequence_number: this.next(), output_index: index, item: structuredClone(item) });
  }

  start(): void {
    this.draft.start();
    this.emitResponse('response.created');
    this.emitResponse('response.in_progress');
  }

  openReasoning(item: number): void {
    const draft = this.draft;
    draft.openReasoning(item);
    const id = draft.itemId;
    this.emit({ type: 'response.output_item.added', sequence_number: this.next(), output_index: item, item: { id, type: 'reasoning', status: 'in_progress', summary: [], content: [] } });
    if (draft.reasoningForm === 'summary') {
      this.emit({ type: 'response.reasoning_summary_part.added', sequence_number: this.next(), item_id: id, output_index: item, summary_index: 0, part: { type: 'summary_text', text: '' } });
    } else {
      this.emit({ type: 'response.content_part.added', sequence_number: this.next(), item_id: id, output_index: item, content_index: 0, part: { type: 'reasoning_text', text: '' } });
    }
  }

  reasoningDelta(text: string): void {
    const draft = this.draft;
    draft.reasoningDelta();
    const { itemId, itemIndex } = draft;
    if (draft.reasoningForm === 'summary') {
      this.emit({ type: 'response.reasoning_summary_text.delta', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, summary_index: 0, delta: text });
    } else {
      this.emit({ type: 'response.reasoning_text.delta', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, content_index: 0, delta: text });
    }
  }

  closeReasoning(text: string, status: ItemStatus): void {
    const draft = this.draft;
    draft.closeReasoning(text, status);
    const { itemId, itemIndex } = draft;
    if (draft.reasoningForm === 'summary') {
      this.emit({ type: 'response.reasoning_summary_text.done', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, summary_index: 0, text });
      this.emit({ type: 'response.reasoning_summary_part.done', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, summary_index: 0, part: { type: 'summary_text', text } });
    } else {
      this.emit({ type: 'response.reasoning_text.done', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, content_index: 0, text });
      this.emit({ type: 'response.content_part.done', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, content_index: 0, part: { type: 'reasoning_text', text } });
    }
    this.emitItemDone();
  }

  openMessage(item: number): void {
    const draft = this.draft;
    draft.openMessage(item);
    this.emit({ type: 'response.output_item.added', sequence_number: this.next(), output_index: item, item: { id: draft.itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
  }

  openPart(kind: PartKind, part: number): void {
    const draft = this.draft;
    draft.openPart(kind, part);
    this.emit({
      type: 'response.content_part.added',
      sequence_number: this.next(),
      item_id: draft.itemId,
      output_index: draft.itemIndex,
      content_index: part,
      part: kind === 'text' ? { type: 'output_text', text: '', annotations: [] } : { type: 'refusal', refusal: '' },
    });
  }

  partDelta(kind: PartKind, text: string): void {
    this.draft.partDelta();
    const { itemId, itemIndex, partIndex } = this.draft;
    if (kind === 'text') {
      this.emit({ type: 'response.output_text.delta', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, content_index: partIndex, delta: text, logprobs: [] });
    } else {
      this.emit({ type: 'response.refusal.delta', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, content_index: partIndex, delta: text });
    }
  }

  closePart(kind: PartKind, text: string): void {
    const draft = this.draft;
    draft.closePart(kind, text);
    const part = draft.lastPart();
    if (part === undefined) return;
    const { itemId, itemIndex, partIndex } = draft;
    if (kind === 'text') {
      this.emit({ type: 'response.output_text.done', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, content_index: partIndex, text, logprobs: [] });
    } else {
      this.emit({ type: 'response.refusal.done', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, content_index: partIndex, refusal: text });
    }
    this.emit({ type: 'response.content_part.done', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, content_index: partIndex, part: { ...part } });
  }

  closeMessage(status: ItemStatus): void {
    this.draft.closeMessage(status);
    this.emitItemDone();
  }

  openCall(item: number, callId: string, name: string): void {
    const draft = this.draft;
    draft.openCall(item, callId, name);
    this.emit({ type: 'response.output_item.added', sequence_number: this.next(), output_index: item, item: draft.callItem('in_progress', '') });
  }

  callDelta(args: string): void {
    this.draft.callDelta();
    const { itemId, itemIndex } = this.draft;
    this.emit({ type: 'response.function_call_arguments.delta', sequence_number: this.next(), item_id: itemId, output_index: itemIndex, delta: args });
  }

  closeCall(args: string, status: ItemStatus): void {
    const draft = this.draft;
    draft.closeCall(args, status);
    this.emit({ type: 'response.function_call_arguments.done', sequence_number: this.next(), item_id: draft.itemId, output_index: draft.itemIndex, name: draft.callName, arguments: args });
    this.emitItemDone();
  }

  finish(end: ItemsEnd): void {
    this.draft.finish(end);
    this.emitResponse(end.cut ? 'response.incomplete' : 'response.completed');
  }

  fail(failure: ResponseError, usage: Usage | undefined): void {
    this.draft.fail(failure, usage);
    this.emitResponse('response.failed');
  }
}
