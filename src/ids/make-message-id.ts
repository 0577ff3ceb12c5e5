/** The ids of the Messages route's messages, as Anthropic shapes them: `msg_` and 24 more characters. */
import { pooledRandomBytes } from './pooled-random-bytes.js';

export function defaultMakeMessageId(): string {
  return `msg_${pooledRandomBytes(12).toString('hex')}`;
}
