/**
 * The Responses stream events svir sends, one interface per `type` (field names and order as
 * the `openai` package's `ResponseStreamEvent` members have them; tests/responses/
 * responses-event-types.test.ts holds each to its member). The key order of each literal that
 * makes one is the order of its bytes on the wire: `type`, `sequence_number`, then the rest.
 */
import type { OutputItem, OutputTextPart, RefusalPart, ResponseObject } from './response-object.js';

/** The events that carry the whole response. */
export type ResponseEventType = 'response.created' | 'response.in_progress' | 'response.completed' | 'response.incomplete' | 'response.failed';

export interface ResponseLifecycleEvent {
  type: ResponseEventType;
  sequence_number: number;
  response: ResponseObject;
}

export interface OutputItemAddedEvent {
  type: 'response.output_item.added';
  sequence_number: number;
  output_index: number;
  item: OutputItem;
}

export interface OutputItemDoneEvent {
  type: 'response.output_item.done';
  sequence_number: number;
  output_index: number;
  item: OutputItem;
}

export interface ReasoningTextPart {
  type: 'reasoning_text';
  text: string;
}

export interface SummaryTextPart {
  type: 'summary_text';
  text: string;
}

export interface ContentPartAddedEvent {
  type: 'response.content_part.added';
  sequence_number: number;
  item_id: string;
  output_index: number;
  content_index: number;
  part: OutputTextPart | RefusalPart | ReasoningTextPart;
}

export interface ContentPartDoneEvent {
  type: 'response.content_part.done';
  sequence_number: number;
  item_id: string;
  output_index: number;
  content_index: number;
  part: OutputTextPart | RefusalPart | ReasoningTextPart;
}

export interface OutputTextDeltaEvent {
  type: 'response.output_text.delta';
  sequence_number: number;
  item_id: string;
  output_index: number;
  content_index: number;
  delta: string;
  /** svir sends no logprobs on /v1/responses. */
  logprobs: never[];
}

export interface OutputTextDoneEvent {
  type: 'response.output_text.done';
  sequence_number: number;
  item_id: string;
  output_index: number;
  content_index: number;
  text: string;
  logprobs: never[];
}

export interface RefusalDeltaEvent {
  type: 'response.refusal.delta';
  sequence_number: number;
  item_id: string;
  output_index: number;
  content_index: number;
  delta: string;
}

export interface RefusalDoneEvent {
  type: 'response.refusal.done';
  sequence_number: number;
  item_id: string;
  output_index: number;
  content_index: number;
  refusal: string;
}

export interface ReasoningSummaryPartAddedEvent {
  type: 'response.reasoning_summary_part.added';
  sequence_number: number;
  item_id: string;
  output_index: number;
  summary_index: number;
  part: SummaryTextPart;
}

export interface ReasoningSummaryPartDoneEvent {
  type: 'response.reasoning_summary_part.done';
  sequence_number: number;
  item_id: string;
  output_index: number;
  summary_index: number;
  part: SummaryTextPart;
}

export interface ReasoningSummaryTextDeltaEvent {
  type: 'response.reasoning_summary_text.delta';
  sequence_number: number;
  item_id: string;
  output_index: number;
  summary_index: number;
  delta: string;
}

export interface ReasoningSummaryTextDoneEvent {
  type: 'response.reasoning_summary_text.done';
  sequence_number: number;
  item_id: string;
  output_index: number;
  summary_index: number;
  text: string;
}

export interface ReasoningTextDeltaEvent {
  type: 'response.reasoning_text.delta';
  sequence_number: number;
  item_id: string;
  output_index: number;
  content_index: number;
  delta: string;
}

export interface ReasoningTextDoneEvent {
  type: 'response.reasoning_text.done';
  sequence_number: number;
  item_id: string;
  output_index: number;
  content_index: number;
  text: string;
}

export interface FunctionCallArgumentsDeltaEvent {
  type: 'response.function_call_arguments.delta';
  sequence_number: number;
  item_id: string;
  output_index: number;
  delta: string;
}

export interface FunctionCallArgumentsDoneEvent {
  type: 'response.function_call_arguments.done';
  sequence_number: number;
  item_id: string;
  output_index: number;
  /** The client's name of the function (a namespaced one without its namespace). */
  name: string;
  arguments: string;
}

export type ResponsesEvent =
  | ResponseLifecycleEvent
  | OutputItemAddedEvent
  | OutputItemDoneEvent
  | ContentPartAddedEvent
  | ContentPartDoneEvent
  | OutputTextDeltaEvent
  | OutputTextDoneEvent
  | RefusalDeltaEvent
  | RefusalDoneEvent
  | ReasoningSummaryPartAddedEvent
  | ReasoningSummaryPartDoneEvent
  | ReasoningSummaryTextDeltaEvent
  | ReasoningSummaryTextDoneEvent
  | ReasoningTextDeltaEvent
  | ReasoningTextDoneEvent
  | FunctionCallArgumentsDeltaEvent
  | FunctionCallArgumentsDoneEvent;

/** The per-token events, written without event objects by the text sink (encode-responses-event.ts). */
export type DeltaType =
  | OutputTextDeltaEvent['type']
  | RefusalDeltaEvent['type']
  | ReasoningSummaryTextDeltaEvent['type']
  | ReasoningTextDeltaEvent['type']
  | FunctionCallArgumentsDeltaEvent['type'];
