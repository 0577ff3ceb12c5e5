/**
 * The response object under construction: the item machine's sink (src/items/README.md) that
 * folds one answer into its Responses output items, status, error and usage. It is the whole
 * output for `stream: false`; the streamed outputs (responses-event-sink.ts,
 * responses-text-sink.ts) build their events on it, so that the final object of every output is
 * this one. Ids and clock injected.
 */
import type { ItemsEnd, ItemSink, ItemStatus, PartKind } from '../items/item-sink.js';
import type { Usage } from '../normalize/parts.js';
import type {
  FunctionCallOutputItem,
  OutputItem,
  OutputTextPart,
  RefusalPart,
  ResponseEcho,
  ResponseObject,
  ResponseStatus,
} from './response-object.js';
import type { ReasoningForm } from './reasoning-form.js';
import type { ToolOrigin } from './to-chat-tools.js';
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
  /** The reasoning as the summary or as `reasoning_text` content, as the request asked (reasoning-form.ts). */
  reasoningForm: ReasoningForm;
}

export interface ResponsesTranslatorDeps {
  /** A fresh item id: `msg_…`, `rs_…` or `fc_…`. */
  makeItemId(kind: 'msg' | 'rs' | 'fc'): string;
  /** ms since the epoch. */
  now(): number;
}

/** The fields of svir's error a `response.failed` carries. */
export interface ResponseError {
  code: string | null;
  message: string;
}

type IncompleteReason = 'max_output_tokens' | 'content_filter';

export class ResponseDraft implements ItemSink<ResponseError> {
  private readonly init: ResponsesTranslatorInit;
  private readonly deps: ResponsesTranslatorDeps;
  private readonly createdAt: number;
  /** The output items closed so far. */
  readonly output: OutputItem[] = [];
  /** The open item's id, and its output index. */
  itemId = '';
  itemIndex = -1;
  /** The open message's index of its open part, and its closed parts. */
  partIndex = -1;
  private parts: (OutputTextPart | RefusalPart)[] = [];
  /** The open call's id from the server, and its name and namespace as the client knows them. */
  private callId = '';
  callName = '';
  private callNamespace: string | undefined;
  private status: ResponseStatus = 'in_progress';
  private error: ResponseError | null = null;
  private incomplete: IncompleteReason | undefined;
  private usage: Usage | undefined;
  /** Reasoning pieces so far: usage's reasoning_tokens when the server gave none (to-response-usage.ts). */
  private reasoningPieces = 0;
  private completedAt: number | undefined;
  /** The JSON of each closed item, made once: its output_item.done, then every response after it. */
  private readonly itemJson: string[] = [];
  /** The echo's JSON without its braces, made once (the response events all repeat it). */
  private echoFields: string | undefined;

  constructor(init: ResponsesTranslatorInit, deps: ResponsesTranslatorDeps) {
    this.init = init;
    this.deps = deps;
    this.createdAt = Math.floor(deps.now() / 1000);
  }

  get reasoningForm(): ReasoningForm {
    return this.init.reasoningForm;
  }

  /** Whether the response is final (completed, incomplete or failed). */
  get ended(): boolean {
    return this.status !== 'in_progress';
  }

  start(): void {}

  openReasoning(item: number): void {
    this.open(item, 'rs');
  }

  reasoningDelta(): void {
    this.reasoningPieces++;
  }

  closeReasoning(text: string, status: ItemStatus): void {
    const summary = this.init.reasoningForm === 'summary';
    this.output.push({
      id: this.itemId,
      type: 'reasoning',
      status,
      summary: summary ? [{ type: 'summary_text', text }] : [],
      content: summary ? [] : [{ type: 'reasoning_text', text }],
    });
  }

  openMessage(item: number): void {
    this.open(item, 'msg');
    this.parts = [];
  }

  openPart(_kind: PartKind, part: number): void {
    this.partIndex = part;
  }

  partDelta(): void {}

  closePart(kind: PartKind, text: string): void {
    this.parts.push(kind === 'text' ? { type: 'output_text', text, annotations: [] } : { type: 'refusal', refusal: text });
  }

  /** The part closed last (closePart made it). */
  lastPart(): OutputTextPart | RefusalPart | undefined {
    return this.parts[this.parts.length - 1];
  }

  closeMessage(status: ItemStatus): void {
    this.output.push({ id: this.itemId, type: 'message', role: 'assistant', status, content: this.parts });
  }

  openCall(item: number, callId: string, name: string): void {
    this.open(item, 'fc');
    const origin = this.init.origins.get(name);
    this.callId = callId;
    this.callName = origin?.name ?? name;
    this.callNamespace = origin?.namespace;
  }

  callDelta(): void {}

  closeCall(args: string, status: ItemStatus): void {
    this.output.push(this.callItem(status, args));
  }

  /** The open call as an item (output_item.added shows it with no arguments, in progress). */
  callItem(status: FunctionCallOutputItem['status'], args: string): FunctionCallOutputItem {
    const call: FunctionCallOutputItem = { id: this.itemId, type: 'function_call', status, call_id: this.callId, name: this.callName, arguments: args };
    if (this.callNamespace !== undefined) call.namespace = this.callNamespace;
    return call;
  }

  finish(end: ItemsEnd): void {
    this.usage = end.usage;
    if (end.cut) {
      this.status = 'incomplete';
      this.incomplete = end.reason === 'content_filter' ? 'content_filter' : 'max_output_tokens';
    } else {
      this.status = 'completed';
      this.completedAt = Math.floor(this.deps.now() / 1000);
    }
  }

  fail(failure: ResponseError, usage: Usage | undefined): void {
    this.usage = usage;
    this.status = 'failed';
    this.error = { code: failure.code, message: failure.message };
  }

  /**
   * The response as it stands: a copy while it is open; once final, one that shares the draft's
   * items and echo (nothing changes them after the end, and its holders, the reply and the
   * store, only read it).
   */
  response(): ResponseObject {
    return this.snapshot(!this.ended);
  }

  /** A copy of the response as it stands (an event that carries it keeps its own). */
  copy(): ResponseObject {
    return this.snapshot(true);
  }

  /** JSON.stringify(response()), the same bytes, made from the JSON already made of its parts (the echo, each closed item). */
  responseJson(): string {
    let output = '';
    for (let i = 0; i < this.output.length; i++) output += i === 0 ? this.outputItemJson(i) : `,${this.outputItemJson(i)}`;
    let json =
      `{"id":${JSON.stringify(this.init.id)},"object":"response","created_at":${JSON.stringify(this.createdAt)},` +
      `"status":${JSON.stringify(this.status)},"model":${JSON.stringify(this.init.model)},"output":[${output}],` +
      `"error":${JSON.stringify(this.error)},"incomplete_details":${this.incomplete === undefined ? 'null' : JSON.stringify({ reason: this.incomplete })}`;
    this.echoFields ??= JSON.stringify(this.init.echo).slice(1, -1);
    if (this.echoFields !== '') json += `,${this.echoFields}`;
    if (this.completedAt !== undefined) json += `,"completed_at":${JSON.stringify(this.completedAt)}`;
    if (this.usage !== undefined) json += `,"usage":${JSON.stringify(toResponseUsage(this.usage, this.reasoningPieces))}`;
    return `${json}}`;
  }

  /** The JSON of closed item `index` as a sink already made it (the same bytes as JSON.stringify's). */
  knowItemJson(index: number, json: string): void {
    this.itemJson[index] = json;
  }

  /** The JSON of closed item `index`, made once. */
  outputItemJson(index: number): string {
    let json = this.itemJson[index];
    if (json === undefined) {
      json = JSON.stringify(this.output[index]);
      this.itemJson[index] = json;
    }
    return json;
  }

  private open(item: number, kind: 'rs' | 'msg' | 'fc'): void {
    this.itemId = this.deps.makeItemId(kind);
    this.itemIndex = item;
  }

  /** The response object; `copy` false shares the draft's own items (to serialize or to keep, final). */
  private snapshot(copy: boolean): ResponseObject {
    const response: ResponseObject = {
      id: this.init.id,
      object: 'response',
      created_at: this.createdAt,
      status: this.status,
      model: this.init.model,
      output: copy ? structuredClone(this.output) : this.output,
      error: this.error === null ? null : { ...this.error },
      incomplete_details: this.incomplete === undefined ? null : { reason: this.incomplete },
      ...(copy ? structuredClone(this.init.echo) : this.init.echo),
    };
    if (this.completedAt !== undefined) response.completed_at = this.completedAt;
    if (this.usage !== undefined) response.usage = toResponseUsage(this.usage, this.reasoningPieces);
    return response;
  }
}
