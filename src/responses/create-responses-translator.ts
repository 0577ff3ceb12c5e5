/**
 * Clean chat chunks → one Responses output: the item machine (src/items/) driving one of three
 * sinks over one response draft (response-draft.ts). Pure, one instance per response (per
 * attempt); ids and clock injected.
 * - `events`: the stream's event objects (responses-event-sink.ts);
 * - `text`: the same events as their wire text (responses-text-sink.ts), what a stream sends;
 * - `fold`: no events, only the final response object (`stream: false`).
 * All three end with the same response object (`response()`, `responseJson()`).
 */
import { ItemMachine } from '../items/item-machine.js';
import type { CleanChunk } from '../normalize/clean-chunk.js';
import { ResponseDraft, type ResponseError, type ResponsesTranslatorDeps, type ResponsesTranslatorInit } from './response-draft.js';
import type { ResponseObject } from './response-object.js';
import type { ResponsesEvent } from './responses-event.js';
import { ResponsesEventSink } from './responses-event-sink.js';
import type { ResponsesOutput } from './responses-stream-sink.js';
import { ResponsesTextSink } from './responses-text-sink.js';

export type { ResponseError, ResponsesTranslatorDeps, ResponsesTranslatorInit } from './response-draft.js';

/** What each output makes per call. */
export interface ResponsesOutputs {
  events: ResponsesEvent[];
  text: string;
  fold: void;
}

export type ResponsesOutputKind = keyof ResponsesOutputs;

export class ResponsesTranslator<Out> {
  private readonly draft: ResponseDraft;
  private readonly output: ResponsesOutput<Out>;
  private readonly machine: ItemMachine<ResponseError>;

  constructor(draft: ResponseDraft, output: ResponsesOutput<Out>, reasoningField: string) {
    this.draft = draft;
    this.output = output;
    this.machine = new ItemMachine({ reasoningField }, output);
  }

  /** What one clean chunk makes; the first chunk opens the response (created, in_progress). */
  push(chunk: CleanChunk): Out {
    this.machine.push(chunk);
    return this.output.take();
  }

  /** What a list of chunks makes, as one (one upstream read's chunks). */
  pushAll(chunks: readonly CleanChunk[]): Out {
    for (const chunk of chunks) this.machine.push(chunk);
    return this.output.take();
  }

  /** The clean stream completed: the open item closes, then response.completed or response.incomplete. */
  finish(): Out {
    this.machine.finish();
    return this.output.take();
  }

  /** The stream failed: the open item closes as incomplete, then response.failed with the error. */
  fail(error: ResponseError): Out {
    this.machine.fail(error);
    return this.output.take();
  }

  /** Whether the response was opened (its first events made). */
  started(): boolean {
    return this.machine.started;
  }

  /** The response as it stands (ResponseDraft.response). */
  response(): ResponseObject {
    return this.draft.response();
  }

  /** JSON.stringify(response()), the same bytes. */
  responseJson(): string {
    return this.draft.responseJson();
  }
}

/** The folded response object is the draft itself; it makes nothing per call. */
class FoldOutput extends ResponseDraft implements ResponsesOutput<void> {
  take(): void {}
}

export function createResponsesTranslator<K extends ResponsesOutputKind>(
  init: ResponsesTranslatorInit,
  deps: ResponsesTranslatorDeps,
  output: K,
): ResponsesTranslator<ResponsesOutputs[K]>;
export function createResponsesTranslator(
  init: ResponsesTranslatorInit,
  deps: ResponsesTranslatorDeps,
  output: ResponsesOutputKind,
): ResponsesTranslator<ResponsesEvent[]> | ResponsesTranslator<string> | ResponsesTranslator<void> {
  if (output === 'fold') {
    const fold = new FoldOutput(init, deps);
    return new ResponsesTranslator(fold, fold, init.reasoningField);
  }
  const draft = new ResponseDraft(init, deps);
  if (output === 'text') return new ResponsesTranslator(draft, new ResponsesTextSink(draft), init.reasoningField);
  return new ResponsesTranslator(draft, new ResponsesEventSink(draft), init.reasoningField);
}
