/**
 * Tool-call pieces, as servers stream them (reference §3.3: names split, calls interleaved in
 * any index order, ids missing or repeated), → the clean dialect's pieces (DESIGN.md §2):
 *
 * - the first piece of a call carries `index`, `id`, `type` and the whole name, with the
 *   arguments so far; later pieces carry only `index` and more arguments;
 * - a name is whole once it equals a declared tool that no other declared tool extends, so
 *   `look` never goes out when `lookup` is coming; any other name is held until the end;
 * - calls go out one after another: a call waits until every earlier one is complete (its
 *   arguments parse as JSON) or the stream ends, since many clients read calls in sequence;
 * - output indices run 0..n-1 in the order the calls went out; ids are non-empty and unique.
 *
 * `add` only records; `drain` sends what may go now; `finish` sends everything left.
 */
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
  /** Follows `args` as it grows, to judge completeness without parsing it all again. */
  scan: JsonEndScanner;
  started: boolean;
  /** Index in the clean stream, set when the call went out. */
  out: number;
}

export class ToolCallAssembler {
  private readonly byKey = new Map<number, Call>();
  /** Calls in sending order. */
  private readonly order: Call[] = [];
  /** Calls first seen since the last drain: ordered by server index when they join `order`. */
  private fresh: Call[] = [];
  /** First call of `order` not yet complete: everything before it is out. */
  private current = 0;
  private readonly usedIds = new Set<string>();
  private sent = 0;

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
    return this.sent;
  }

  add(piece: ToolPiece): void {
    let call = this.byKey.get(piece.index);
    if (call === undefined) {
      call = {
        key: piece.index,
        id: '',
        name: '',
        args: '',
        sentArgs: 0,
        checkedArgs: -1,
        scan: createJsonEndScanner(),
        started: false,
        out: -1,
      };
      this.byKey.set(piece.index, call);
      this.fresh.push(call);
    }
    if (piece.id !== undefined && piece.id.length > 0 && call.id.length === 0) call.id = piece.id;
    // Once a call went out its name is final: it was a whole declared name, nothing can extend it.
    if (piece.name !== undefined && !call.started) call.name += piece.name;
    if (piece.arguments !== undefined) call.args += piece.arguments;
  }

  /** Sends what the rules allow now. */
  drain(sink: ToolCallSink): void {
    this.admitFresh();
    while (this.current < this.order.length) {
      const call = this.order[this.current];
      if (call === undefined) return;
      if (!call.started) {
        if (!this.wholeNames.has(call.name)) return;
        this.start(call, sink);
      } else {
        this.sendRest(call, sink);
      }
      if (!this.isComplete(call)) return;
      this.current++;
    }
  }

  /** The stream ended: every call goes out, in order, with all its arguments. */
  finish(sink: ToolCallSink): void {
    this.admitFresh();
    for (const call of this.order) {
      if (!call.started) {
        // A call without any name cannot be executed by anyone: nothing to send.
        if (call.name.length === 0) continue;
        this.start(call, sink);
      } else {
        this.sendRest(call, sink);
      }
    }
    this.current = this.order.length;
  }

  private admitFresh(): void {
    if (this.fresh.length === 0) return;
    // Calls first seen in the same event go in the server's index order.
    if (this.fresh.length > 1) this.fresh.sort((a, b) => a.key - b.key);
    for (const call of this.fresh) this.order.push(call);
    this.fresh = [];
  }

  private start(call: Call, sink: ToolCallSink): void {
    let id = call.id.length > 0 && !this.usedIds.has(call.id) ? call.id : this.makeCallId();
    // An id maker that repeats itself must not loop: number its id until it is new.
    const base = id.length > 0 ? id : 'call';
    for (let n = 2; id.length === 0 || this.usedIds.has(id); n++) id = `${base}_${n}`;
    call.id = id;
    this.usedIds.add(id);
    call.started = true;
    call.out = this.sent++;
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

  /** Judged once per length: text already found incomplete and unchanged is still incomplete. */
  private isComplete(call: Call): boolean {
    if (call.checkedArgs === call.args.length) return false;
    call.checkedArgs = call.args.length;
    // Finished: the arguments hold one JSON object or array (and nothing but whitespace after).
    return call.scan.advance(call.args) === 'complete';
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
