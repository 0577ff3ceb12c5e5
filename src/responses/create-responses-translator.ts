/**
 * Clean chat chunks → Responses stream events, and the response object they build. Pure and
 * stateful: one instance per response, ids and clock injected. The same instance serves
 * `stream: false` (its final `response()` is the answer), so both say the same.
 *
 * Events, in order (every `*.added` has its `*.done`; `sequence_number` counts from 0):
 *   response.created, response.in_progress            (with the first chunk)
 *   per output item, one after another:
 *     reasoning  output_item.added, reasoning_summary_part.added, content_part.added (reasoning_text),
 *                { reasoning_summary_text.delta, reasoning_text.delta }*,
 *                reasoning_summary_text.done, reasoning_summary_part.done, reasoning_text.done,
 *                content_part.done, output_item.done
 *     message    output_item.added, per part: content_part.added, output_text.delta* | refusal.delta*,
 *                output_text.done | refusal.done, content_part.done; then output_item.done
 *     call       output_item.added, function_call_arguments.delta*, function_call_arguments.done,
 *                output_item.done
 *   response.completed | response.incomplete | response.failed
 * The reasoning text goes out in both forms on the one item: as its summary (the AI SDK shows
 * reasoning from the summary only) and as reasoning_text content (Codex and the openai SDK read it).
 */
import type { CleanChunk, FinishReason } from '../normalize/clean-chunk.js';
import type { Usage } from '../normalize/parts.js';
import type {
  FunctionCallOutputItem,
  ItemStatus,
  MessageOutputItem,
  OutputItem,
  OutputTextPart,
  ReasoningOutputItem,
  RefusalPart,
  ResponseEcho,
  ResponseObject,
  ResponsesEvent,
} from './response-object.js';
import type { ToolOrigin } from './to-chat-tools.js';
import {
  deltaPlace,
  encodeDelta,
  encodeItemDoneEvent,
  encodePartDone,
  encodeResponseEvent,
  encodeResponsesEvent,
  type DeltaType,
  type ResponseEventType,
} from './encode-responses-event.js';
import { toResponseUsage } from './to-response-usage.js';

export interface ResponsesTranslatorInit {
  /** `resp_…`. */
  id: string;
  /** The model string the client sent. */
  model: string;
  echo: ResponseEcho;
  /** Chat tool name → the client's name and namespace (flattened namespace tools). */
  origins: ReadonlyMap<string, ToolOrigin>;
  /** The delta key reasoning arrives under (config `reasoning.field`). */
  reasoningField: string;
}

export interface ResponsesTranslatorDeps {
  /** A fresh item id: `msg_…`, `rs_…` or `fc_…`. */
  makeItemId(kind: 'msg' | 'rs' | 'fc'): string;
  /** ms since the epoch. */
  now(): number;
}

export interface ResponseError {
  code: string | null;
  message: string;
}

export interface ResponsesTranslator {
  /** Events for one clean chunk; the first chunk opens the response (created, in_progress). */
  push(chunk: CleanChunk): ResponsesEvent[];
  /** The same events as push, as their wire text (encodeResponsesEvent's bytes), built without event objects where it can. */
  pushText(chunk: CleanChunk): string;
  /** pushText of each chunk, as one text (one upstream read's chunks). */
  pushTexts(chunks: readonly CleanChunk[]): string;
  /** Reads one clean chunk into the response and makes no events (`stream: false`: only the final object is sent). */
  fold(chunk: CleanChunk): void;
  /** finish without events: the response is final (`stream: false`). */
  foldFinish(): void;
  /** The clean stream completed: the open item closes, then response.completed or response.incomplete. */
  finish(): ResponsesEvent[];
  /** finish's events as their wire text. */
  finishText(): string;
  /** The stream failed: the open item closes as incomplete, then response.failed with the error. */
  fail(error: ResponseError): ResponsesEvent[];
  /** fail's events as their wire text. */
  failText(error: ResponseError): string;
  /** Whether the response was opened (its first events produced). */
  started(): boolean;
  /**
   * The response as it stands: a copy while it is open; once finished or failed, one that shares
   * the translator's items and echo (nothing changes them after the end, and its holders, the
   * reply and the store, only read it).
   */
  response(): ResponseObject;
  /** JSON.stringify(response()), the same bytes, made from the JSON already made of its parts (the echo, each closed item). */
  responseJson(): string;
}

export function createResponsesTranslator(init: ResponsesTranslatorInit, deps: ResponsesTranslatorDeps): ResponsesTranslator {
  return new Translator(init, deps);
}

interface OpenReasoning {
  kind: 'reasoning';
  index: number;
  id: string;
  text: string[];
  /** deltaPlace of the summary part and of the reasoning_text part, made with the first text delta ('' before). */
  summaryPlace: string;
  contentPlace: string;
}

interface OpenPart {
  kind: 'text' | 'refusal';
  index: number;
  text: string[];
  /** deltaPlace of the part, made with the first text delta ('' before). */
  place: string;
}

interface OpenMessage {
  kind: 'message';
  index: number;
  id: string;
  parts: (OutputTextPart | RefusalPart)[];
  part: OpenPart | undefined;
}

interface OpenCall {
  kind: 'call';
  index: number;
  id: string;
  /** The call's index in the chat stream. */
  chatIndex: number;
  callId: string;
  name: string;
  namespace: string | undefined;
  args: string[];
  /** deltaPlace of the call, made with the first text delta ('' before). */
  place: string;
}

type OpenItem = OpenReasoning | OpenMessage | OpenCall;

/**
 * What the current call produces: event objects (push, finish, fail), their wire text
 * (pushText, finishText, failText; no copies, since nothing outlives the serialization), or
 * nothing (fold): the sequence numbers and the response advance alike in all three.
 */
type Output = 'events' | 'text' | 'none';

/** svir sends no logprobs on /v1/responses; one shared empty list (it is only serialized). */
const NO_LOGPROBS: readonly never[] = Object.freeze([]);

const CUT_REASONS: Partial<Record<FinishReason, 'max_output_tokens' | 'content_filter'>> = {
  length: 'max_output_tokens',
  content_filter: 'content_filter',
};

class Translator implements ResponsesTranslator {
  private readonly init: ResponsesTranslatorInit;
  private readonly deps: ResponsesTranslatorDeps;
  private readonly createdAt: number;
  private sequence = 0;
  private opened = false;
  private ended = false;
  private open: OpenItem | undefined;
  private readonly output: OutputItem[] = [];
  private finishReason: FinishReason | undefined;
  private usage: Usage | undefined;
  private status: ResponseObject['status'] = 'in_progress';
  private error: ResponseError | null = null;
  private completedAt: number | undefined;
  private mode: Output = 'events';
  /** The events (mode `events`) or their text (mode `text`) of the current call. */
  private events: ResponsesEvent[] = [];
  private text = '';
  /**
   * The echo's JSON without its braces, made once: created, in_progress and the terminal event
   * all repeat it (with the tools and instructions, most of their bytes).
   */
  private echoFields: string | undefined;
  /** The JSON of each output item, made once: its output_item.done, then every response after it. */
  private readonly itemJson: string[] = [];

  constructor(init: ResponsesTranslatorInit, deps: ResponsesTranslatorDeps) {
    this.init = init;
    this.deps = deps;
    this.createdAt = Math.floor(deps.now() / 1000);
  }

  started(): boolean {
    return this.opened;
  }

  push(chunk: CleanChunk): ResponsesEvent[] {
    this.begin('events');
    this.read(chunk);
    return this.takeEvents();
  }

  pushText(chunk: CleanChunk): string {
    this.begin('text');
    this.read(chunk);
    return this.takeText();
  }

  pushTexts(chunks: readonly CleanChunk[]): string {
    this.begin('text');
    for (const chunk of chunks) this.read(chunk);
    return this.takeText();
  }

  fold(chunk: CleanChunk): void {
    this.begin('none');
    this.read(chunk);
  }

  foldFinish(): void {
    this.begin('none');
    this.complete();
  }

  finish(): ResponsesEvent[] {
    this.begin('events');
    this.complete();
    return this.takeEvents();
  }

  finishText(): string {
    this.begin('text');
    this.complete();
    return this.takeText();
  }

  fail(error: ResponseError): ResponsesEvent[] {
    this.begin('events');
    this.failWith(error);
    return this.takeEvents();
  }

  failText(error: ResponseError): string {
    this.begin('text');
    this.failWith(error);
    return this.takeText();
  }

  response(): ResponseObject {
    return this.snapshot(!this.ended);
  }

  private begin(mode: Output): void {
    this.mode = mode;
    // Only push and its kin collect events: the text of a stream's every read allocates no list.
    if (this.events.length > 0) this.events = [];
    this.text = '';
  }

  private takeEvents(): ResponsesEvent[] {
    const events = this.events;
    this.events = [];
    return events;
  }

  private takeText(): string {
    const text = this.text;
    this.text = '';
    return text;
  }

  private read(chunk: CleanChunk): void {
    if (this.ended) return;
    this.start();
    if (chunk.usage !== undefined) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice !== undefined) {
      const delta = choice.delta;
      const reasoning = delta[this.init.reasoningField];
      if (typeof reasoning === 'string' && reasoning.length > 0) this.reasoning(reasoning);
      if (typeof delta.content === 'string' && delta.content.length > 0) this.message('text', delta.content);
      if (typeof delta.refusal === 'string' && delta.refusal.length > 0) this.message('refusal', delta.refusal);
      const calls = delta.tool_calls;
      if (calls !== undefined) for (const piece of calls) this.call(piece.index, piece.id, piece.function.name, piece.function.arguments);
      if (choice.finish_reason !== null) this.finishReason = choice.finish_reason;
    }
  }

  private complete(): void {
    if (this.ended) return;
    this.start();
    const cut = this.finishReason === undefined ? undefined : CUT_REASONS[this.finishReason];
    this.close(cut === undefined ? 'completed' : 'incomplete');
    this.ended = true;
    this.status = cut === undefined ? 'completed' : 'incomplete';
    if (cut === undefined) this.completedAt = Math.floor(this.deps.now() / 1000);
    this.emitResponse(cut === undefined ? 'response.completed' : 'response.incomplete');
  }

  private failWith(error: ResponseError): void {
    if (this.ended) return;
    this.start();
    this.close('incomplete');
    this.ended = true;
    this.status = 'failed';
    this.error = { code: error.code, message: error.message };
    this.emitResponse('response.failed');
  }

  /** The response object; `copy` false shares the translator's own items (to serialize only). */
  private snapshot(copy: boolean): ResponseObject {
    const cut = this.status === 'incomplete' && this.finishReason !== undefined ? CUT_REASONS[this.finishReason] : undefined;
    const response: ResponseObject = {
      id: this.init.id,
      object: 'response',
      created_at: this.createdAt,
      status: this.status,
      model: this.init.model,
      output: copy ? this.output.map(copyItem) : this.output,
      error: this.error === null ? null : { ...this.error },
      incomplete_details: cut === undefined ? null : { reason: cut },
      ...(copy ? structuredClone(this.init.echo) : this.init.echo),
    };
    if (this.completedAt !== undefined) response.completed_at = this.completedAt;
    if (this.usage !== undefined && this.ended) response.usage = toResponseUsage(this.usage);
    return response;
  }

  responseJson(): string {
    const cut = this.status === 'incomplete' && this.finishReason !== undefined ? CUT_REASONS[this.finishReason] : undefined;
    let output = '';
    for (let i = 0; i < this.output.length; i++) output += i === 0 ? this.outputItemJson(i) : `,${this.outputItemJson(i)}`;
    let json =
      `{"id":${JSON.stringify(this.init.id)},"object":"response","created_at":${JSON.stringify(this.createdAt)},` +
      `"status":${JSON.stringify(this.status)},"model":${JSON.stringify(this.init.model)},"output":[${output}],` +
      `"error":${JSON.stringify(this.error)},"incomplete_details":${cut === undefined ? 'null' : JSON.stringify({ reason: cut })}`;
    this.echoFields ??= JSON.stringify(this.init.echo).slice(1, -1);
    if (this.echoFields !== '') json += `,${this.echoFields}`;
    if (this.completedAt !== undefined) json += `,"completed_at":${JSON.stringify(this.completedAt)}`;
    if (this.usage !== undefined && this.ended) json += `,"usage":${JSON.stringify(toResponseUsage(this.usage))}`;
    return `${json}}`;
  }

  private outputItemJson(index: number): string {
    let json = this.itemJson[index];
    if (json === undefined) {
      json = JSON.stringify(this.output[index]);
      this.itemJson[index] = json;
    }
    return json;
  }

  private emit(type: string, fields: Record<string, unknown>): void {
    const event: ResponsesEvent = { type, sequence_number: this.sequence++, ...fields };
    if (this.mode === 'events') this.events.push(event);
    else if (this.mode === 'text') this.text += encodeResponsesEvent(event);
  }

  /** created, in_progress and the terminal events carry the whole response. */
  private emitResponse(type: ResponseEventType): void {
    if (this.mode === 'events') this.emit(type, { response: this.snapshot(true) });
    else if (this.mode === 'text') this.text += encodeResponseEvent(type, this.sequence++, this.responseJson());
    else this.sequence++;
  }

  private delta(type: DeltaType, place: string, delta: string): void {
    this.text += encodeDelta(type, this.sequence++, place, delta);
  }

  private start(): void {
    if (this.opened) return;
    this.opened = true;
    if (this.mode === 'text') {
      // Both carry the same response (nothing is in it yet): serialized once.
      const response = this.responseJson();
      this.text += encodeResponseEvent('response.created', this.sequence++, response);
      this.text += encodeResponseEvent('response.in_progress', this.sequence++, response);
      return;
    }
    this.emitResponse('response.created');
    this.emitResponse('response.in_progress');
  }

  private reasoning(text: string): void {
    let item = this.open;
    if (item?.kind !== 'reasoning') {
      this.close('completed');
      const index = this.output.length;
      const id = this.deps.makeItemId('rs');
      item = { kind: 'reasoning', index, id, text: [], summaryPlace: '', contentPlace: '' };
      this.open = item;
      if (this.mode !== 'none') {
        const at = { item_id: id, output_index: index };
        this.emit('response.output_item.added', { output_index: index, item: { id, type: 'reasoning', status: 'in_progress', summary: [], content: [] } });
        this.emit('response.reasoning_summary_part.added', { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } });
        this.emit('response.content_part.added', { ...at, content_index: 0, part: { type: 'reasoning_text', text: '' } });
      } else {
        this.sequence += 3;
      }
    }
    item.text.push(text);
    if (this.mode === 'text') {
      // The hot path (two events per token): no event objects.
      if (item.summaryPlace === '') {
        item.summaryPlace = deltaPlace(item.id, item.index, { key: 'summary_index', value: 0 });
        item.contentPlace = deltaPlace(item.id, item.index, { key: 'content_index', value: 0 });
      }
      this.delta('response.reasoning_summary_text.delta', item.summaryPlace, text);
      this.delta('response.reasoning_text.delta', item.contentPlace, text);
    } else if (this.mode === 'events') {
      this.events.push(
        { type: 'response.reasoning_summary_text.delta', sequence_number: this.sequence++, item_id: item.id, output_index: item.index, summary_index: 0, delta: text },
        { type: 'response.reasoning_text.delta', sequence_number: this.sequence++, item_id: item.id, output_index: item.index, content_index: 0, delta: text },
      );
    } else {
      this.sequence += 2;
    }
  }

  private message(kind: 'text' | 'refusal', text: string): void {
    let item = this.open;
    if (item?.kind !== 'message') {
      this.close('completed');
      item = { kind: 'message', index: this.output.length, id: this.deps.makeItemId('msg'), parts: [], part: undefined };
      this.open = item;
      if (this.mode === 'none') this.sequence++;
      else this.emit('response.output_item.added', { output_index: item.index, item: { id: item.id, type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
    }
    let part = item.part;
    if (part?.kind !== kind) {
      this.closePart(item);
      const index = item.parts.length;
      part = { kind, index, text: [], place: '' };
      item.part = part;
      if (this.mode === 'none') this.sequence++;
      else {
        this.emit('response.content_part.added', {
          item_id: item.id,
          output_index: item.index,
          content_index: index,
          part: kind === 'text' ? { type: 'output_text', text: '', annotations: [] } : { type: 'refusal', refusal: '' },
        });
      }
    }
    part.text.push(text);
    const type = kind === 'text' ? 'response.output_text.delta' : 'response.refusal.delta';
    if (this.mode === 'text') {
      // The hot path (one event per token): no event object.
      if (part.place === '') part.place = deltaPlace(item.id, item.index, { key: 'content_index', value: part.index });
      this.delta(type, part.place, text);
    } else if (this.mode === 'events') {
      const sequence = this.sequence++;
      if (kind === 'text') {
        this.events.push({ type, sequence_number: sequence, item_id: item.id, output_index: item.index, content_index: part.index, delta: text, logprobs: NO_LOGPROBS });
      } else {
        this.events.push({ type, sequence_number: sequence, item_id: item.id, output_index: item.index, content_index: part.index, delta: text });
      }
    } else {
      this.sequence++;
    }
  }

  private call(chatIndex: number, callId: string | undefined, name: string | undefined, args: string): void {
    let item = this.open;
    if (item?.kind !== 'call' || item.chatIndex !== chatIndex || callId !== undefined) {
      this.close('completed');
      const chatName = name ?? '';
      const origin = this.init.origins.get(chatName);
      const index = this.output.length;
      const id = this.deps.makeItemId('fc');
      item = {
        kind: 'call',
        index,
        id,
        chatIndex,
        callId: callId ?? '',
        name: origin?.name ?? chatName,
        namespace: origin?.namespace,
        args: [],
        place: '',
      };
      this.open = item;
      if (this.mode === 'none') this.sequence++;
      else this.emit('response.output_item.added', { output_index: index, item: callItem(item, 'in_progress', '') });
    }
    if (args.length === 0) return;
    item.args.push(args);
    if (this.mode === 'text') {
      if (item.place === '') item.place = deltaPlace(item.id, item.index);
      this.delta('response.function_call_arguments.delta', item.place, args);
    } else if (this.mode === 'events') {
      this.events.push({ type: 'response.function_call_arguments.delta', sequence_number: this.sequence++, item_id: item.id, output_index: item.index, delta: args });
    } else {
      this.sequence++;
    }
  }

  private closePart(item: OpenMessage): void {
    const part = item.part;
    if (part === undefined) return;
    item.part = undefined;
    const text = part.text.join('');
    const done: OutputTextPart | RefusalPart = part.kind === 'text' ? { type: 'output_text', text, annotations: [] } : { type: 'refusal', refusal: text };
    item.parts.push(done);
    if (this.mode === 'none') {
      this.sequence += 2;
      return;
    }
    if (this.mode === 'text') {
      this.text += encodePartDone(part.kind, this.sequence, item.id, item.index, part.index, text);
      this.sequence += 2;
      return;
    }
    const at = { item_id: item.id, output_index: item.index, content_index: part.index };
    if (part.kind === 'text') this.emit('response.output_text.done', { ...at, text, logprobs: [] });
    else this.emit('response.refusal.done', { ...at, refusal: text });
    this.emit('response.content_part.done', { ...at, part: { ...done } });
  }

  /** Closes the open item with its done events; it joins the output. */
  private close(status: ItemStatus): void {
    const item = this.open;
    if (item === undefined) return;
    this.open = undefined;
    const events = this.mode !== 'none';
    let done: OutputItem;
    if (item.kind === 'reasoning') {
      const text = item.text.join('');
      if (events) {
        const at = { item_id: item.id, output_index: item.index };
        this.emit('response.reasoning_summary_text.done', { ...at, summary_index: 0, text });
        this.emit('response.reasoning_summary_part.done', { ...at, summary_index: 0, part: { type: 'summary_text', text } });
        this.emit('response.reasoning_text.done', { ...at, content_index: 0, text });
        this.emit('response.content_part.done', { ...at, content_index: 0, part: { type: 'reasoning_text', text } });
      } else {
        this.sequence += 4;
      }
      const reasoning: ReasoningOutputItem = {
        id: item.id,
        type: 'reasoning',
        status,
        summary: [{ type: 'summary_text', text }],
        content: [{ type: 'reasoning_text', text }],
      };
      done = reasoning;
    } else if (item.kind === 'message') {
      this.closePart(item);
      const message: MessageOutputItem = { id: item.id, type: 'message', role: 'assistant', status, content: item.parts };
      done = message;
    } else {
      const args = item.args.join('');
      if (events) this.emit('response.function_call_arguments.done', { item_id: item.id, output_index: item.index, name: item.name, arguments: args });
      else this.sequence++;
      done = callItem(item, status, args);
    }
    this.output.push(done);
    if (this.mode === 'text') this.text += encodeItemDoneEvent(this.sequence++, item.index, this.outputItemJson(item.index));
    else if (events) this.emit('response.output_item.done', { output_index: item.index, item: copyItem(done) });
    else this.sequence++;
  }
}

function callItem(item: OpenCall, status: ItemStatus, args: string): FunctionCallOutputItem {
  const call: FunctionCallOutputItem = { id: item.id, type: 'function_call', status, call_id: item.callId, name: item.name, arguments: args };
  if (item.namespace !== undefined) call.namespace = item.namespace;
  return call;
}

function copyItem(item: OutputItem): OutputItem {
  return structuredClone(item);
}
