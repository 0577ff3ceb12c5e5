/**
 * The streamed Responses answer as its wire text: the events responses-stream-sink.ts orders,
 * each `encodeResponsesEvent(event)`'s bytes. Speed: the events that come once per token (the
 * deltas), those every answer's message has (its item and part added), and those that repeat
 * what was already serialized (a closed item, the whole response, a part's closing pair) are
 * written here from constant pieces and JSON made once, without event objects
 * (encode-responses-event.ts); tests/responses/ compare every output with the event objects'
 * JSON.stringify on every fixture.
 */
import type { ItemStatus, PartKind } from '../items/item-sink.js';
import {
  deltaPlace,
  encodeDelta,
  encodeItemDoneEvent,
  encodeMessageAdded,
  encodeMessageItem,
  encodePart,
  encodePartAdded,
  encodePartDone,
  encodeResponseEvent,
  encodeResponsesEvent,
} from './encode-responses-event.js';
import type { ResponseEventType, ResponsesEvent } from './responses-event.js';
import { ResponsesStreamSink } from './responses-stream-sink.js';

export class ResponsesTextSink extends ResponsesStreamSink<string> {
  private text = '';
  /** deltaPlace of the open item's deltas: a reasoning item's summary or content, a message's open part, a call. */
  private place = '';
  /** The open message's closed parts, as JSON joined by commas. */
  private partsJson = '';

  take(): string {
    const text = this.text;
    this.text = '';
    return text;
  }

  protected emit(event: ResponsesEvent): void {
    this.text += encodeResponsesEvent(event);
  }

  protected override emitResponse(type: ResponseEventType): void {
    this.text += encodeResponseEvent(type, this.next(), this.draft.responseJson());
  }

  protected override emitItemDone(): void {
    const index = this.draft.itemIndex;
    this.text += encodeItemDoneEvent(this.next(), index, this.draft.outputItemJson(index));
  }

  override start(): void {
    this.draft.start();
    // Both carry the same response (nothing is in it yet): serialized once.
    const response = this.draft.responseJson();
    this.text += encodeResponseEvent('response.created', this.next(), response);
    this.text += encodeResponseEvent('response.in_progress', this.next(), response);
  }

  override openReasoning(item: number): void {
    super.openReasoning(item);
    const index = this.draft.reasoningForm === 'summary' ? ({ key: 'summary_index', value: 0 } as const) : ({ key: 'content_index', value: 0 } as const);
    this.place = deltaPlace(this.draft.itemId, item, index);
  }

  override reasoningDelta(text: string): void {
    const draft = this.draft;
    draft.reasoningDelta();
    const type = draft.reasoningForm === 'summary' ? 'response.reasoning_summary_text.delta' : 'response.reasoning_text.delta';
    this.text += encodeDelta(type, this.next(), this.place, text);
  }

  override openMessage(item: number): void {
    const draft = this.draft;
    draft.openMessage(item);
    this.text += encodeMessageAdded(this.next(), item, draft.itemId);
  }

  override openPart(kind: PartKind, part: number): void {
    const draft = this.draft;
    draft.openPart(kind, part);
    this.text += encodePartAdded(kind, this.next(), draft.itemId, draft.itemIndex, part);
    this.place = deltaPlace(draft.itemId, draft.itemIndex, { key: 'content_index', value: part });
  }

  override partDelta(kind: PartKind, text: string): void {
    this.draft.partDelta();
    this.text += encodeDelta(kind === 'text' ? 'response.output_text.delta' : 'response.refusal.delta', this.next(), this.place, text);
  }

  override closePart(kind: PartKind, text: string): void {
    const draft = this.draft;
    draft.closePart(kind, text);
    // The text is serialized once, for the part's two closing events and its message item.
    const textJson = JSON.stringify(text);
    const partJson = encodePart(kind, textJson);
    this.partsJson = this.partsJson === '' ? partJson : `${this.partsJson},${partJson}`;
    const at = { itemId: draft.itemId, outputIndex: draft.itemIndex, contentIndex: draft.partIndex };
    this.text += encodePartDone(kind, this.next(), this.next(), at, textJson, partJson);
  }

  override closeMessage(status: ItemStatus): void {
    const draft = this.draft;
    draft.closeMessage(status);
    draft.knowItemJson(draft.itemIndex, encodeMessageItem(draft.itemId, status, this.partsJson));
    this.partsJson = '';
    this.emitItemDone();
  }

  override openCall(item: number, callId: string, name: string): void {
    super.openCall(item, callId, name);
    this.place = deltaPlace(this.draft.itemId, item);
  }

  override callDelta(args: string): void {
    this.draft.callDelta();
    this.text += encodeDelta('response.function_call_arguments.delta', this.next(), this.place, args);
  }
}
