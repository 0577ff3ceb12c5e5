/** The ids of the Messages route's messages, as Anthropic shapes them: `msg_` and 24 more characters. */
import { createRandomBytesPool, type RandomBytes } from './create-random-bytes-pool.js';

/** Message ids from `randomBytes` (a pool of its own by default). */
export function createMessageIdMaker(randomBytes: RandomBytes = createRandomBytesPool()): () => string {
  return () => `msg_${randomBytes(12).toString('hex')}`;
}
