/**
 * Bytes (or text) cut at the given offsets (ascending), as the reads a test feeds a decoder or
 * sends from a fake server: the pieces join back to the whole; an offset repeated, or at either
 * end, gives an empty piece (an empty read), so a caller that wants none leaves those offsets out.
 */
export function cutAt(whole: Uint8Array, offsets: readonly number[]): Uint8Array[];
export function cutAt(whole: string, offsets: readonly number[]): string[];
export function cutAt(whole: Uint8Array | string, offsets: readonly number[]): (Uint8Array | string)[] {
  const piece = (start: number, end?: number): Uint8Array | string => (typeof whole === 'string' ? whole.slice(start, end) : whole.subarray(start, end));
  const pieces: (Uint8Array | string)[] = [];
  let start = 0;
  for (const offset of offsets) {
    pieces.push(piece(start, offset));
    start = offset;
  }
  pieces.push(piece(start));
  return pieces;
}

/**
 * Cut at any numbers a property test drew: each taken modulo the length + 1 (so every place, both
 * ends included, can be drawn), repeats dropped, in ascending order.
 */
export function cutAnywhere(whole: Uint8Array, cuts: readonly number[]): Uint8Array[];
export function cutAnywhere(whole: string, cuts: readonly number[]): string[];
export function cutAnywhere(whole: Uint8Array | string, cuts: readonly number[]): (Uint8Array | string)[] {
  const offsets = [...new Set(cuts.map((cut) => cut % (whole.length + 1)))].sort((a, b) => a - b);
  return typeof whole === 'string' ? cutAt(whole, offsets) : cutAt(whole, offsets);
}
