/**
 * Random bytes for ids, taken from a pool filled 4 KiB at a time. `randomBytes(29)` costs about
 * 3 µs whatever its size (a native job per call), and svir takes one or more ids per request;
 * one fill serves a hundred of them. The bytes are the same CSPRNG's, each handed out once.
 *
 * One pool per id maker, made with it (buildServer makes one for its servers' ids): nothing in
 * the process is shared through a module variable.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

/**
 * `length` fresh random bytes (at most 4096), as a view into the pool: read them at once, the
 * next call may overwrite them.
 */
export type RandomBytes = (length: number) => Buffer;

export function createRandomBytesPool(): RandomBytes {
  const pool = Buffer.allocUnsafe(POOL_BYTES);
  let offset = POOL_BYTES;
  return (length) => {
    if (length > POOL_BYTES) throw new RangeError(`a random bytes pool hands out at most ${POOL_BYTES} bytes`);
    if (offset + length > POOL_BYTES) {
      randomFillSync(pool);
      offset = 0;
    }
    const bytes = pool.subarray(offset, offset + length);
    offset += length;
    return bytes;
  };
}
