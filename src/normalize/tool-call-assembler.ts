/**
 * Tool-call pieces, as servers stream them (docs/wire-protocol.md#tool-calls: names split, calls
 * interleaved in any index order, ids missing or repeated; Ollama's every call at index 0; calls
 * without any index) → the clean dialect's pieces (docs/contract.md#clean-dialect):
 *
 * - the first piece of a call carries `index`, `id`, `type` and the whole name, with the
 *   arguments so far; later pieces carry only `index` and more arguments;
 * - a piece that brings a new id, or a new name where the call's name is already whole, at a
 *   server index in use starts a new call there (the reader gives an index-less piece its
 *   position in the delta as index);
 * - a name is whole once it equals a declared tool that no other declared tool extends, so
 *   `look` never goes out when `lookup` is coming; any other name is held until the end;
 * - calls go out in the server's index order (calls at one index in the order they came), one
 *   after another: a call waits until every lower index was seen and every earlier call is
 *   complete (its arguments parse as JSON), or the stream ends, since many clients read calls in
 *   sequence;
 * - output indices run 0..n-1 in the order the calls went out; ids are non-empty and unique;
 * - a piece that repeats a call's arguments whole once they are one whole JSON value (a parser
 *   that re-sends them at the end, docs/llamacpp-real.md) is dropped: nothing can follow a whole
 *   value, so the repeat can only be that, and joined it would make the arguments unreadable.
 *
 * `add` only records; `drain` sends what may go now; `finish` sends everything left. A stream
 * without calls costs `drain` two comparisons per event.
 */
import { isDeepStrictEqual } from 'node:util';
import type { CleanToolCallDelta } from './clean-chunk.js';
import { createJsonEndScanner, type JsonEndScanner } from './json-end-scanner.js';

export interface ToolCallSink {
  onToolCall(piece: CleanToolCallDelta): void;
}

export interface ToolPiece {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

interface Call {
  /** The server's index. */
  key: number;
  id: string;
  name: string;
  /** Every argument byte received. */
  args: string;
  /** How much of `args` went out. */
  sentArgs: number;
  /** Length of `args` when its completeness was last judged, to judge each text once. */
  checkedArgs: number;
  /** The last judgement: the arguments hold one whole JSON object or array. */
  complete: boolean;
  /** Follows `args` as it grows, to judge completeness without parsing it all again. */
  scan: JsonEndScanner;
  /** A later call took its index: no more pieces can reach it. */
  closed: boolean;
  started: boolean;
  /** Index in the clean stream, set when the call went out. */
  out: number;
}

export class ToolCallAssembler {
  /** The latest call at each server index: pieces of that index go to it. */
  private readonly byKey = new Map<number, Call>();
  /** Calls not yet sent, from `head` on, sorted by server index, then by arrival. */
  private readonly waiting: Call[] = [];
  private head = 0;
  /** Calls sent, in sending order. */
  private readonly sentCalls: Call[] = [];
  /** The call whose arguments are streaming: the next call waits until it is complete. */
  private current: Call | undefined;
  /** The lowest server index no piece had yet: a call at a higher index waits for it. */
  private lowestUnseen = 0;
  private readonly seenKeys = new Set<number>();
  private readonly usedIds = new Set<string>();

  /**
   * @param wholeNames declared tool names that no other declared tool extends (see wholeToolNames)
   * @param makeCallId makes an id where the server sent none or repeated one
   */
  constructor(
    private readonly wholeNames: ReadonlySet<string>,
    private readonly makeCallId: () => string,
  ) {}

  /** How many calls went out so far. */
  get sentCount(): number {
    return this.sentCalls.length;
  }

  add(piece: ToolPiece): void {
    let call = this.byKey.get(piece.index);
    if (call !== undefined && this.startsNewCall(call, piece)) {
      call.closed = true;
      call = undefined;
    }
    if (call === undefined) {
      call = {
        key: piece.index,
        id: '',
        name: '',
        args: '',
        sentArgs: 0,
        checkedArgs: 0,
        complete: false,
        scan: createJsonEndScanner(),
        closed: false,
        started: false,
        out: -1,
      };
      this.byKey.set(piece.index, call);
      this.enqueue(call);
    }
    if (piece.id !== undefined && piece.id.length > 0 && call.id.length === 0) call.id = piece.id;
    // Once a call went out its name is final: it was a whole declared name, nothing can extend it.
    if (piece.name !== undefined && !call.started) call.name += piece.name;
    if (piece.arguments !== undefined && !this.repeatsWholeArguments(call, piece.arguments)) call.args += piece.arguments;
  }

  /** The piece is the call's whole arguments again, sent after they were complete. */
  private repeatsWholeArguments(call: Call, more: string): boolean {
    if (more.trim().length === 0 || !this.isComplete(call)) return false;
    if (more.trim() === call.args.trim()) return true;
    // The same value written another way (spacing, key order kept): compared as parsed JSON.
    try {
      return isDeepStrictEqual(JSON.parse(more), JSON.parse(call.args));
    } catch {
      return false;
    }
  }

  /** Sends what the rules allow now. */
  drain(sink: ToolCallSink): void {
    for (;;) {
      const current = this.current;
      if (current !== undefined) {
        this.sendRest(current, sink);
        if (!current.closed && !this.isComplete(current)) return;
        this.current = undefined;
      }
      const next = this.waiting[this.head];
      // Nothing waits, a lower server index has not come yet, or the name may still grow.
      if (next === undefined || next.key >= this.lowestUnseen || !this.wholeNames.has(next.name)) return;
      this.head++;
      this.start(next, sink);
      this.current = next;
    }
  }

  /** The stream ended: every call goes out, in order, with all its arguments. */
  finish(sink: ToolCallSink): void {
    for (const call of this.sentCalls) this.sendRest(call, sink);
    for (let i = this.head; i < this.waiting.length; i++) {
      const call = this.waiting[i];
      // A call without any name cannot be executed by anyone: nothing to send.
      if (call === undefined || call.name.length === 0) continue;
      this.start(call, sink);
    }
    this.waiting.length = 0;
    this.head = 0;
    this.current = undefined;
  }

  /**
   * At an index in use, a different id, or a name where the call's name is already whole (a
   * different one, or the same once the arguments are complete: the same tool called again),
   * is the start of another call, not more of this one.
   */
  private startsNewCall(call: Call, piece: ToolPiece): boolean {
    if (piece.id !== undefined && piece.id.length > 0 && call.id.length > 0 && piece.id !== call.id) return true;
    if (piece.name === undefined || piece.name.length === 0 || !this.wholeNames.has(call.name)) return false;
    return piece.name !== call.name || this.isComplete(call);
  }

  /** Into `waiting` after every call of a lower or equal server index (usually at the end). */
  private enqueue(call: Call): void {
    let at = this.waiting.length;
    while (at > this.head && (this.waiting[at - 1]?.key ?? 0) > call.key) at--;
    if (at === this.waiting.length) this.waiting.push(call);
    else this.waiting.splice(at, 0, call);
    if (!this.seenKeys.has(call.key)) {
      this.seenKeys.add(call.key);
      while (this.seenKeys.has(this.lowestUnseen)) this.lowestUnseen++;
    }
  }

  private start(call: Call, sink: ToolCallSink): void {
    let id = call.id.length > 0 && !this.usedIds.has(call.id) ? call.id : this.makeCallId();
    // An id maker that repeats itself must not loop: number its id until it is new.
    const base = id.length > 0 ? id : 'call';
    for (let n = 2; id.length === 0 || this.usedIds.has(id); n++) id = `${base}_${n}`;
    call.id = id;
    this.usedIds.add(id);
    call.started = true;
    call.out = this.sentCalls.length;
    this.sentCalls.push(call);
    call.sentArgs = call.args.length;
    sink.onToolCall({
      index: call.out,
      id,
      type: 'function',
      function: { name: call.name, arguments: call.args },
    });
  }

  private sendRest(call: Call, sink: ToolCallSink): void {
    if (call.sentArgs === call.args.length) return;
    const more = call.args.slice(call.sentArgs);
    call.sentArgs = call.args.length;
    sink.onToolCall({ index: call.out, function: { arguments: more } });
  }

  /** Judged once per length of the arguments: the scanner looks at each character once. */
  private isComplete(call: Call): boolean {
    if (call.checkedArgs !== call.args.length) {
      call.checkedArgs = call.args.length;
      // Finished: the arguments hold one JSON object or array (and nothing but whitespace after).
      call.complete = call.scan.advance(call.args) === 'complete';
    }
    return call.complete;
  }
}

/**
 * Declared names a streamed name can be taken as whole at: those no other declared name extends.
 * Sorted, the names that extend a name come right after it, so one look at the next distinct
 * name tells whether any does: O(n log n), where comparing every pair took seconds for a
 * request with twenty thousand tools (and blocked every other request meanwhile).
 */
export function wholeToolNames(names: readonly string[]): Set<string> {
  const sorted = [...new Set(names)].filter((name) => name.length > 0).sort();
  const whole = new Set<string>();
  sorted.forEach((name, i) => {
    const next = sorted[i + 1];
    if (next === undefined || !next.startsWith(name)) whole.add(name);
  });
  return whole;
}
