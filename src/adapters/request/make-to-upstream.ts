/**
 * An adapter's `toUpstream`: the client's request with the server's model id, through the
 * adapter's rewrites in order, into the call its server takes.
 */
import type { ChatRequest } from '../../requests/chat-request.js';
import type { BackendInfo, ToUpstreamResult, UpstreamCall } from '../adapter.js';
import { applyRewrites } from './apply-rewrites.js';
import type { RequestDraft, RequestRewrite } from './request-draft.js';

export type CallBuilder = (draft: RequestDraft, backend: BackendInfo) => UpstreamCall;

export function makeToUpstream(rewrites: readonly RequestRewrite[], buildCall: CallBuilder) {
  return (request: ChatRequest, backend: BackendInfo, upstreamModel: string): ToUpstreamResult => {
    const result = applyRewrites({ body: { ...request, model: upstreamModel }, changes: [] }, backend, rewrites);
    if (!result.ok) return result;
    return { ok: true, call: buildCall(result.draft, backend) };
  };
}
