/**
 * Where the pieces of a joined read are copied (dispatch-request.ts, #flushJoined): one buffer
 * for every exchange, reused from read to read. Its reader takes the bytes within the call
 * (BodySink.data), and a Buffer.concat per read cost about twice the copy (a new backing store
 * each time, outside the heap, for the collector to count and free). A read longer than the
 * largest kept is concatenated.
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
