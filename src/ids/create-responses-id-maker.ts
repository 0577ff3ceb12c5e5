/** The ids of the Responses route: a response (`resp_…`) and its items (`msg_…`, `rs_…`, `fc_…`, `fco_…`). */
import { createRandomBytesPool, type RandomBytes } from './create-random-bytes-pool.js';

export type ResponsesIdKind = 'response' | 'msg' | 'rs' | 'fc' | 'fco';

/** Responses ids as OpenAI shapes them: a prefix and 48 hex digits, from `randomBytes` (a pool of its own by default). */
export function createResponsesIdMaker(randomBytes: RandomBytes = createRandomBytesPool()): (kind: ResponsesIdKind) => string {
  return (kind) => `${kind === 'response' ? 'resp' : kind}_${randomBytes(24).toString('hex')}`;
}
