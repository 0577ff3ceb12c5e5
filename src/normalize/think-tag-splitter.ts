/**
 * Splits a `<think>...</think>` block that opens the answer out of streamed content
 * (docs/wire-protocol.md#reasoning, docs/contract.md#clean-dialect). Tags count only at the very
 * start of the answer: a `<think>` after nothing but whitespace opens reasoning, and its `</think>`
 * closes it. Anything else, a `<think>` in the middle of an answer, a second block, a `</think>`
 * that nothing opened, is answer text: a model explaining think tags, or a JSON string holding one,
 * keeps every character.
 *
 * The markers can be cut anywhere between two pieces (`<thi` + `nk>b</think>c` is reasoning `b`,
 * answer `c`), so the splitter holds back the end of a piece while it could still be the start of
 * a marker. What it holds at the very end of the stream was never a marker and goes out as text.
 *
 * Once the answer began, nothing more is ever split: `answering` tells the caller it may hand
 * content straight on and drop the splitter, so the common piece costs it nothing. Output goes
 * to a sink object instead of returned arrays: the normalizer is the sink.
 *
 * `<think>` is one pair of markers among others: a stream's context may name more (a server
 * that leaves other families' markers in content, docs/llamacpp-real.md), and the block opens
 * with whichever pair's opening marker starts the answer and ends at that pair's closing one.
 */

export interface ThinkTagSink {
  onAnswerText(text: string): void;
  onReasoningText(text: string): void;
  /**
   * The block's closing marker came. Called for an empty block too (`<think></think>`: a template
   * that turned reasoning off closes one in the prompt, and a server that leaves markers in
   * content puts it back): whitespace after it only separates it from the answer, as after
   * reasoning (docs/contract.md#clean-dialect).
   */
  onReasoningEnd(): void;
}

/** The markers around a reasoning block that opens the answer. */
export interface ReasoningMarkers {
  open: string;
  close: string;
}

export const THINK_TAGS: ReasoningMarkers = { open: '<think>', close: '</think>' };

const enum Phase {
  /** Nothing but whitespace so far: a `<think>` here opens reasoning. */
  Lead,
  /** `open` mode before anything but whitespace: reasoning, and a `<think>` here is a marker. */
  OpenLead,
  /** Inside the think block: reasoning until `</think>`. */
  Inside,
  /** The answer began: everything is answer text. */
  Answer,
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

export class ThinkTagSplitter {
  private phase: Phase;
  /** The end of the last piece that may be the start of the next marker. */
  private held = '';
  /** The pair whose opening marker opened the block (the first pair until one did). */
  private pair: ReasoningMarkers;

  /**
   * `auto`: answer, unless it opens with `<think>`. `open`: the chat template opened the tag
   * itself, so the stream starts inside reasoning and the marker to expect is `</think>` (a
   * `<think>` the model writes itself at the start is only that marker again).
   */
  constructor(
    mode: 'auto' | 'open',
    private readonly markers: readonly [ReasoningMarkers, ...ReasoningMarkers[]] = [THINK_TAGS],
  ) {
    this.phase = mode === 'open' ? Phase.OpenLead : Phase.Lead;
    this.pair = markers[0];
  }

  /** The answer began: every later piece is answer text, and the splitter has nothing to do. */
  get answering(): boolean {
    return this.phase === Phase.Answer;
  }

  push(piece: string, sink: ThinkTagSink): void {
    if (piece.length === 0) return;
    let text = piece;
    if (this.held.length > 0) {
      text = this.held + piece;
      this.held = '';
    }
    if (this.phase === Phase.Answer) sink.onAnswerText(text);
    else if (this.phase === Phase.Inside) this.scanInside(text, sink);
    else this.scanLead(text, sink);
  }

  /** The stream ended: a marker begun and never finished is plain text of the current kind. */
  end(sink: ThinkTagSink): void {
    if (this.held.length === 0) return;
    const text = this.held;
    this.held = '';
    if (this.phase === Phase.Lead || this.phase === Phase.Answer) sink.onAnswerText(text);
    else sink.onReasoningText(text);
  }

  private scanLead(text: string, sink: ThinkTagSink): void {
    let start = 0;
    while (start < text.length && isSpace(text.charCodeAt(start))) start++;
    if (start === text.length) {
      // Whitespace only: it goes out, and the start is still to come.
      this.emitLead(text, sink);
      return;
    }
    // In `open` mode the template opened the first pair: only its marker counts, again.
    const pairs = this.phase === Phase.OpenLead ? [this.pair] : this.markers;
    for (const pair of pairs) {
      if (!text.startsWith(pair.open, start)) continue;
      if (start > 0) this.emitLead(text.slice(0, start), sink);
      this.phase = Phase.Inside;
      this.pair = pair;
      const after = start + pair.open.length;
      if (after < text.length) this.scanInside(text.slice(after), sink);
      return;
    }
    const rest = text.slice(start);
    if (pairs.some((pair) => rest.length < pair.open.length && pair.open.startsWith(rest))) {
      // `<thi`: maybe the marker, maybe text; the next piece tells.
      if (start > 0) this.emitLead(text.slice(0, start), sink);
      this.held = rest;
      return;
    }
    if (this.phase === Phase.OpenLead) {
      this.phase = Phase.Inside;
      this.scanInside(text, sink);
      return;
    }
    this.phase = Phase.Answer;
    sink.onAnswerText(text);
  }

  private emitLead(text: string, sink: ThinkTagSink): void {
    if (this.phase === Phase.OpenLead) sink.onReasoningText(text);
    else sink.onAnswerText(text);
  }

  private scanInside(text: string, sink: ThinkTagSink): void {
    const close = this.pair.close;
    const at = text.indexOf(close);
    if (at !== -1) {
      if (at > 0) sink.onReasoningText(text.slice(0, at));
      this.phase = Phase.Answer;
      sink.onReasoningEnd();
      const after = at + close.length;
      // What the server sent after the marker is answer text; the normalizer drops the
      // whitespace that only separates it from the reasoning (docs/contract.md#clean-dialect).
      if (after < text.length) sink.onAnswerText(text.slice(after));
      return;
    }
    // Only a suffix starting at the last `<` (the marker's first character) can be the marker's
    // start: the closing markers hold it once.
    const last = text.lastIndexOf(close.charAt(0));
    let keepFrom = text.length;
    if (last !== -1 && text.length - last < close.length && close.startsWith(text.slice(last))) keepFrom = last;
    if (keepFrom > 0) sink.onReasoningText(keepFrom === text.length ? text : text.slice(0, keepFrom));
    if (keepFrom < text.length) this.held = text.slice(keepFrom);
  }
}
