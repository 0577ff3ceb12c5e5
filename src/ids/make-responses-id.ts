/** The ids of the Responses route: a response (`resp_…`) and its items (`msg_…`, `rs_…`, `fc_…`, `fco_…`). */
import { pooledRandomBytes } from './pooled-random-bytes.js';

export type ResponsesIdKind = 'response' | 'msg' | 'rs' | 'fc' | 'fco';

/** Responses ids as OpenAI shapes them: a prefix and 48 hex digits. */
export function defaultMakeResponsesId(kind: ResponsesIdKind): string {
  return `${kind === 'response' ? 'resp' : kind}_${pooledRandomBytes(24).toString('hex')}`;
}
