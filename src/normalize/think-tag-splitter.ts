/**
 * Splits `<think>...</think>` out of streamed content (reference §4). The markers can be cut
 * anywhere between two pieces (`a<thi` + `nk>b</think>c` is answer `ac`, reasoning `b`), so the
 * splitter holds back the end of a piece while it could still be the start of a marker. What it
 * holds at the very end of the stream was never a marker and goes out as text.
 *
 * Output goes to a sink object instead of returned arrays: the normalizer is the sink, and the
 * common piece without `<` passes straight through without any allocation.
 */

export interface ThinkTagSink {
  onAnswerText(text: string): void;
  onReasoningText(text: string): void;
}

const OPEN = '<think>';
const CLOSE = '</think>';

export class ThinkTagSplitter {
  /** Inside `<think>`: text is reasoning. */
  private inside: boolean;
  /** The end of the last piece that may be the start of the next marker. */
  private held = '';

  /**
   * `auto`: answer until a `<think>`. `open`: the chat template opened the tag itself, so the
   * stream starts inside reasoning and the first marker to expect is `</think>`.
   */
  constructor(mode: 'auto' | 'open') {
    this.inside = mode === 'open';
  }

  push(piece: string, sink: ThinkTagSink): void {
    if (this.held.length === 0) {
      if (piece.indexOf('<') === -1) {
        this.emit(piece, sink);
        return;
      }
      this.scan(piece, sink);
      return;
    }
    const text = this.held + piece;
    this.held = '';
    this.scan(text, sink);
  }

  /** The stream ended: a marker begun and never finished is plain text of the current kind. */
  end(sink: ThinkTagSink): void {
    if (this.held.length === 0) return;
    const text = this.held;
    this.held = '';
    this.emit(text, sink);
  }

  private scan(text: string, sink: ThinkTagSink): void {
    let position = 0;
    for (;;) {
      const marker = this.inside ? CLOSE : OPEN;
      const at = text.indexOf(marker, position);
      if (at === -1) break;
      if (at > position) this.emit(text.slice(position, at), sink);
      this.inside = !this.inside;
      position = at + marker.length;
    }
    // Only a suffix starting at the last `<` can be a marker's start: each marker holds one `<`.
    const marker = this.inside ? CLOSE : OPEN;
    const lastOpen = text.lastIndexOf('<');
    let keepFrom = text.length;
    if (lastOpen >= position && text.length - lastOpen < marker.length && marker.startsWith(text.slice(lastOpen))) {
      keepFrom = lastOpen;
    }
    if (keepFrom > position) this.emit(position === 0 && keepFrom === text.length ? text : text.slice(position, keepFrom), sink);
    if (keepFrom < text.length) this.held = text.slice(keepFrom);
  }

  private emit(text: string, sink: ThinkTagSink): void {
    if (text.length === 0) return;
    if (this.inside) sink.onReasoningText(text);
    else sink.onAnswerText(text);
  }
}
