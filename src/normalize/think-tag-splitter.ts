/**
 * Splits a `<think>...</think>` block that opens the answer out of streamed content (reference
 * §4, DESIGN §2). Tags count only at the very start of the answer: a `<think>` after nothing but
 * whitespace opens reasoning, and its `</think>` closes it. Anything else, a `<think>` in the
 * middle of an answer, a second block, a `</think>` that nothing opened, is answer text: a model
 * explaining think tags, or a JSON string holding one, keeps every character.
 *
 * The markers can be cut anywhere between two pieces (`<thi` + `nk>b</think>c` is reasoning `b`,
 * answer `c`), so the splitter holds back the end of a piece while it could still be the start of
 * a marker. What it holds at the very end of the stream was never a marker and goes out as text.
 *
 * Once the answer began, nothing more is ever split: `answering` tells the caller it may hand
 * content straight on and drop the splitter, so the common piece costs it nothing. Output goes
 * to a sink object instead of returned arrays: the normalizer is the sink.
 */

export interface ThinkTagSink {
  onAnswerText(text: string): void;
  onReasoningText(text: string): void;
}

const OPEN = '<think>';
const CLOSE = '</think>';

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

  /**
   * `auto`: answer, unless it opens with `<think>`. `open`: the chat template opened the tag
   * itself, so the stream starts inside reasoning and the marker to expect is `</think>` (a
   * `<think>` the model writes itself at the start is only that marker again).
   */
  constructor(mode: 'auto' | 'open') {
    this.phase = mode === 'open' ? Phase.OpenLead : Phase.Lead;
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
    if (text.startsWith(OPEN, start)) {
      if (start > 0) this.emitLead(text.slice(0, start), sink);
      this.phase = Phase.Inside;
      const after = start + OPEN.length;
      if (after < text.length) this.scanInside(text.slice(after), sink);
      return;
    }
    if (text.length - start < OPEN.length && OPEN.startsWith(text.slice(start))) {
      // `<thi`: maybe the marker, maybe text; the next piece tells.
      if (start > 0) this.emitLead(text.slice(0, start), sink);
      this.held = text.slice(start);
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
    const at = text.indexOf(CLOSE);
    if (at !== -1) {
      if (at > 0) sink.onReasoningText(text.slice(0, at));
      this.phase = Phase.Answer;
      const after = at + CLOSE.length;
      // What the server sent after the marker (`"\n\n"` too) is answer text and stays.
      if (after < text.length) sink.onAnswerText(text.slice(after));
      return;
    }
    // Only a suffix starting at the last `<` can be the marker's start: it holds one `<`.
    const last = text.lastIndexOf('<');
    let keepFrom = text.length;
    if (last !== -1 && text.length - last < CLOSE.length && CLOSE.startsWith(text.slice(last))) keepFrom = last;
    if (keepFrom > 0) sink.onReasoningText(keepFrom === text.length ? text : text.slice(0, keepFrom));
    if (keepFrom < text.length) this.held = text.slice(keepFrom);
  }
}
