/**
 * Random bytes for ids, taken from a pool filled 4 KiB at a time. `randomBytes(29)` costs about
 * 3 µs whatever its size (a native job per call), and svir takes one or more ids per request;
 * one fill serves a hundred of them. The bytes are the same CSPRNG's, each handed out once.
 *
 * The pool is the process's, shared by every request, and may be: it holds nothing of a request,
 * only random bytes, and each byte goes to one caller, who reads it at once (before the next
 * call may refill the pool); what one id took tells nothing about another.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

/**
 * `length` fresh random bytes (at most 4096), as a view into the pool: read them at once, the
 * next call may overwrite them.
 */
export function pooledRandomBytes(length: number): Buffer {
  if (length > POOL_BYTES) throw new RangeError(`pooledRandomBytes takes at most ${POOL_BYTES} bytes`);
  if (offset + length > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + length);
  offset += length;
  return bytes;
}
