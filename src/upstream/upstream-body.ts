/**
 * The body of an upstream answer as undici's parser reads it (dispatch-request.ts): each read is
 * handed to the reader in the parser's own turn, with no stream, buffer or promise in between.
 * The reader says when it cannot take more, and undici then stops reading the socket until
 * `resume()`: a slow client holds the backend back through TCP, not through svir's memory.
 */
export interface BodySink {
  /**
   * One read of the body. false: no more for now; the next read waits for `resume()`. A read
   * that joins pieces (`joins`) is the reader's only during the call: its bytes may lie in a
   * buffer the next joined read reuses (create-join-buffer.ts), so a reader that joins copies
   * what it keeps.
   */
  data(bytes: Buffer): boolean;
  /** The body ended whole (the connection may serve another request). */
  end(): void;
  /** The body failed: cut, too slow, aborted (then `err` is the abort's reason). */
  error(err: unknown): void;
  /**
   * Whether the reads that come now may reach `data` as one: undici hands over a socket read
   * piece by piece (one call per chunk of the answer's chunked encoding, often one SSE event
   * each), and the pieces of one run of its parser then come together, joined, at the end of the
   * turn's microtasks. Without it (or false), each piece comes as it is parsed.
   */
  joins?(): boolean;
}

export interface UpstreamBody {
  /**
   * Reads from now on go to `sink`, instead of an earlier reader: reads held meanwhile first,
   * then the end or failure if it came already. Starts the reading.
   */
  read(sink: BodySink): void;
  /** The reader can take reads again (after its `data` returned false). */
  resume(): void;
  /**
   * svir will not read this body (any further): its socket is closed and the request aborted,
   * unless it ended already. The reader hears nothing more.
   */
  discard(): void;
  /** Nothing more comes: the body ended, failed or was discarded. */
  readonly over: boolean;
}
