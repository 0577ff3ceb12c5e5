/**
 * The ids svir gives chat completions, tool calls and requests, in the shapes OpenAI uses, so
 * client code that looks at them is not surprised.
 */
import { randomUUID } from 'node:crypto';
import { createRandomBytesPool, type RandomBytes } from './create-random-bytes-pool.js';

export type IdKind = 'completion' | 'call' | 'request';

const ALPHANUMERIC = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 'latin1');

/** Ids in the shapes OpenAI uses, their random part from `randomBytes` (a pool of its own by default). */
export function createIdMaker(randomBytes: RandomBytes = createRandomBytesPool()): (kind: IdKind) => string {
  function randomAlphanumeric(length: number): string {
    const bytes = randomBytes(length);
    // 62 symbols from a byte: the modulo bias is irrelevant for ids that only need to be unique.
    // The pool's bytes are mapped in place (they are used once) and read as one string.
    for (let i = 0; i < bytes.length; i += 1) bytes[i] = ALPHANUMERIC[(bytes[i] ?? 0) % ALPHANUMERIC.length] ?? 0;
    return bytes.toString('latin1');
  }
  return (kind) => {
    if (kind === 'completion') return `chatcmpl-${randomAlphanumeric(29)}`;
    if (kind === 'call') return `call_${randomAlphanumeric(24)}`;
    return randomUUID();
  };
}
