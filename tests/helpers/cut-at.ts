/**
 * Bytes cut at the given offsets (ascending), as the reads a test feeds a decoder or sends from a
 * fake server: the pieces join back to the bytes; an offset repeated, or at either end, gives an
 * empty piece (an empty read), so a caller that wants none leaves those offsets out.
 */
export function cutAt(bytes: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const offset of offsets) {
    pieces.push(bytes.subarray(start, offset));
    start = offset;
  }
  pieces.push(bytes.subarray(start));
  return pieces;
}
