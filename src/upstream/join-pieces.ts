/**
 * Where the pieces of a joined read are copied (dispatch-request.ts, #flushJoined): one buffer
 * for every exchange, reused from read to read. Its reader takes the bytes within the call
 * (BodySink.data), and a Buffer.concat per read cost about twice the copy (a new backing store
 * each time, outside the heap, for the collector to count and free). A read longer than the
 * largest kept is concatenated.
 *
 * The one buffer is shared by every stream, and may be: it is scratch space, not state. A join
 * writes the bytes it hands out before it hands them out, and the view it returns is the
 * reader's only during that synchronous call (BodySink.data: a reader that joins copies what it
 * keeps; the SSE decoder turns the bytes into text at once). No stream can read from it a byte
 * another wrote: nothing runs between the copy and the call, and after the call the view is not
 * read again. A buffer per exchange, tried instead, cost about a tenth more CPU per request under
 * load in the bench, side by side (the first join of each exchange allocates, outside the heap).
 */

let joinBuffer = Buffer.allocUnsafe(64 * 1024);
const JOIN_BUFFER_MAX = 1024 * 1024;

/** The pieces as one run of bytes, valid until the next joined read. */
export function joinPieces(pieces: readonly Buffer[]): Buffer {
  let length = 0;
  for (const piece of pieces) length += piece.length;
  if (length > JOIN_BUFFER_MAX) return Buffer.concat(pieces, length);
  if (length > joinBuffer.length) joinBuffer = Buffer.allocUnsafe(Math.max(length, joinBuffer.length * 2));
  let at = 0;
  for (const piece of pieces) at += piece.copy(joinBuffer, at);
  return joinBuffer.subarray(0, length);
}
