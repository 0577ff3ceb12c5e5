/**
 * The output items of one answer, read from its clean chat chunks (src/normalize/clean-chunk.ts)
 * and told to a sink (item-sink.ts): the one state machine under every front that is not Chat
 * Completions (the Responses route, the Messages route). Pure, one instance per stream; the
 * sink call by call is src/items/README.md.
 *
 * The clean stream sends reasoning before the answer and tool calls one after another, each
 * complete before the next begins (docs/architecture.md); the machine still holds its rules
 * whatever comes: one item open at a time, every opened item and part closed exactly once,
 * `start` first and exactly one `finish` or `fail` last, nothing after it.
 *
 * Phases and transitions (a chunk may carry several kinds; they are read in the order
 * reasoning, content, refusal, tool calls):
 *   Waiting  --any chunk, finish, fail-->  start, then as from Between
 *   Between, Reasoning, Text, Refusal, Call:
 *     reasoning text  -->  Reasoning   (Reasoning: delta; else close the open item, open one)
 *     content text    -->  Text        (Text: delta; Refusal: close the part, open a text part
 *                                       in the same message; else close the item, open a message)
 *     refusal text    -->  Refusal     (the same, with the kinds swapped)
 *     a call piece    -->  Call        (Call of the same chat index, no new call id: delta;
 *                                       else close the open item, open a call)
 *     finish          -->  Ended       (the open item closes, `incomplete` when the answer
 *                                       was cut, then finish)
 *     fail            -->  Ended       (the open item closes `incomplete`, then fail)
 *   Ended: every input is ignored.
 * Empty text is no input: it neither opens nor continues an item. A call's first piece opens its
 * item even with no arguments yet.
 */
import type { CleanChunk, FinishReason } from '../normalize/clean-chunk.js';
import type { Usage } from '../normalize/parts.js';
import type { ItemSink, ItemStatus, PartKind } from './item-sink.js';

const enum Phase {
  /** Nothing read yet: the sink has not been started. */
  Waiting,
  /** Started, no item open (before the first item). */
  Between,
  /** A reasoning item is open. */
  Reasoning,
  /** A message item is open, its open part answer text. */
  Text,
  /** A message item is open, its open part a refusal. */
  Refusal,
  /** A function call item is open. */
  Call,
  /** finish or fail was told: nothing more. */
  Ended,
}

export interface ItemMachineInit {
  /** The delta key reasoning arrives under (config `reasoning.field`). */
  reasoningField: string;
}

/** Finish reasons that cut the answer: the item open at the end closes `incomplete`. */
function cuts(reason: FinishReason | undefined): boolean {
  return reason === 'length' || reason === 'content_filter';
}

export class ItemMachine<Failure> {
  private readonly reasoningField: string;
  private readonly sink: ItemSink<Failure>;
  private phase = Phase.Waiting;
  /** Output items opened so far (the open one included). */
  private items = 0;
  /** The open message's parts opened so far (the open one included). */
  private parts = 0;
  /** The open item's text (reasoning, the open part, a call's arguments) so far. */
  private text = '';
  /** The open call's index in the chat stream. */
  private callIndex = -1;
  private reason: FinishReason | undefined;
  private usage: Usage | undefined;

  constructor(init: ItemMachineInit, sink: ItemSink<Failure>) {
    this.reasoningField = init.reasoningField;
    this.sink = sink;
  }

  /** Whether the sink was started (its first output made). */
  get started(): boolean {
    return this.phase !== Phase.Waiting;
  }

  /** Whether finish or fail was told. */
  get ended(): boolean {
    return this.phase === Phase.Ended;
  }

  push(chunk: CleanChunk): void {
    if (this.phase === Phase.Ended) return;
    if (this.phase === Phase.Waiting) this.start();
    if (chunk.usage !== undefined) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) return;
    const delta = choice.delta;
    const reasoning = delta[this.reasoningField];
    if (typeof reasoning === 'string' && reasoning.length > 0) this.reasoning(reasoning);
    if (typeof delta.content === 'string' && delta.content.length > 0) this.part('text', delta.content);
    if (typeof delta.refusal === 'string' && delta.refusal.length > 0) this.part('refusal', delta.refusal);
    const calls = delta.tool_calls;
    if (calls !== undefined) for (const piece of calls) this.call(piece.index, piece.id, piece.function.name, piece.function.arguments);
    if (choice.finish_reason !== null) this.reason = choice.finish_reason;
  }

  /** The clean stream completed. */
  finish(): void {
    if (this.phase === Phase.Ended) return;
    if (this.phase === Phase.Waiting) this.start();
    const cut = cuts(this.reason);
    this.close(cut ? 'incomplete' : 'completed');
    this.phase = Phase.Ended;
    this.sink.finish({ reason: this.reason, cut, usage: this.usage });
  }

  /** The stream failed. */
  fail(failure: Failure): void {
    if (this.phase === Phase.Ended) return;
    if (this.phase === Phase.Waiting) this.start();
    this.close('incomplete');
    this.phase = Phase.Ended;
    this.sink.fail(failure, this.usage);
  }

  private start(): void {
    this.phase = Phase.Between;
    this.sink.start();
  }

  private reasoning(text: string): void {
    if (this.phase !== Phase.Reasoning) {
      this.close('completed');
      this.phase = Phase.Reasoning;
      this.sink.openReasoning(this.items++);
    }
    this.text += text;
    this.sink.reasoningDelta(text);
  }

  private part(kind: PartKind, text: string): void {
    const phase = kind === 'text' ? Phase.Text : Phase.Refusal;
    if (this.phase !== phase) {
      if (this.phase === Phase.Text || this.phase === Phase.Refusal) {
        this.closePart();
      } else {
        this.close('completed');
        this.parts = 0;
        this.sink.openMessage(this.items++);
      }
      this.phase = phase;
      this.sink.openPart(kind, this.parts++);
    }
    this.text += text;
    this.sink.partDelta(kind, text);
  }

  private call(index: number, id: string | undefined, name: string | undefined, args: string): void {
    if (this.phase !== Phase.Call || this.callIndex !== index || id !== undefined) {
      this.close('completed');
      this.phase = Phase.Call;
      this.callIndex = index;
      this.sink.openCall(this.items++, id ?? '', name ?? '');
    }
    if (args.length === 0) return;
    this.text += args;
    this.sink.callDelta(args);
  }

  /** The open message's open part closes. */
  private closePart(): void {
    const text = this.takeText();
    this.sink.closePart(this.phase === Phase.Text ? 'text' : 'refusal', text);
  }

  /** The open item, if any, closes; the phase is Between after it. */
  private close(status: ItemStatus): void {
    switch (this.phase) {
      case Phase.Reasoning:
        this.sink.closeReasoning(this.takeText(), status);
        break;
      case Phase.Text:
      case Phase.Refusal:
        this.closePart();
        this.sink.closeMessage(status);
        break;
      case Phase.Call:
        this.sink.closeCall(this.takeText(), status);
        break;
      default:
        return;
    }
    this.phase = Phase.Between;
  }

  private takeText(): string {
    const text = this.text;
    this.text = '';
    return text;
  }
}
